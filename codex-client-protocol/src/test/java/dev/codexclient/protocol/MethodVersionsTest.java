package dev.codexclient.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The versions on the generated descriptors, against the method lists the protocol jar carries. */
class MethodVersionsTest {
    private static final String PINNED = System.getProperty("codex.version", "0.171.0");

    @Test
    void theCheckedVersionsAreOrderedAndEndWithThePin() {
        List<String> checked = MethodVersions.checked();
        assertThat(checked).contains("0.98.0", "0.120.0", "0.169.0", "0.171.0").doesNotHaveDuplicates();
        assertThat(checked.indexOf("0.98.0")).isLessThan(checked.indexOf("0.120.0"));
        assertThat(checked.get(checked.size() - 1)).isEqualTo(PINNED);
    }

    @Test
    void everyDescriptorOfTheSchemaIsRecordedAndThePinnedVersionHasItUnlessRetained() {
        List<String> missing = new ArrayList<>();
        for (MethodDescriptor<?, ?> d : ClientRequestMethods.ALL) {
            if (!d.versions().isPresentIn(PINNED)) {
                missing.add(d.method());
            }
        }
        assertThat(missing).isEmpty();
        for (MethodDescriptor<?, ?> d : ServerRequestMethods.ALL) {
            assertThat(d.versions().recorded()).as(d.method()).isTrue();
            // currentTime/read: retained from 0.169.0 (schema/retained.json)
            assertThat(d.versions().isPresentIn(PINNED)).as(d.method()).isEqualTo(!d.method().equals("currentTime/read"));
        }
        for (NotificationDescriptor<?> d : ServerNotificationMethods.ALL) {
            boolean extra = d.method().startsWith("rawResponse");   // overrides: in no schema
            assertThat(d.versions().recorded()).as(d.method()).isEqualTo(!extra);
        }
    }

    @Test
    void theDescriptorsAgreeWithTheListsInTheJar() throws Exception {
        for (String version : MethodVersions.checked()) {
            String list;
            try (var in = MethodVersions.class.getResourceAsStream(
                    "/META-INF/codex-client/schema/methods/" + version + ".txt")) {
                assertThat(in).as("the method list of " + version).isNotNull();
                list = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            for (MethodDescriptor<?, ?> d : ClientRequestMethods.ALL) {
                assertThat(list.contains("\nclient-request " + d.method() + "\n"))
                        .as(d.method() + " in " + version).isEqualTo(d.versions().isPresentIn(version));
            }
        }
    }

    @Test
    void sinceUntilAndCertainty() {
        List<String> checked = MethodVersions.checked();
        String first = checked.get(0);
        String last = checked.get(checked.size() - 1);
        MethodVersions all = MethodVersions.from(first);
        assertThat(all.versions()).isEqualTo(checked);
        assertThat(all.since()).contains(first);
        assertThat(all.until()).isEmpty();
        MethodVersions gone = MethodVersions.range(first, checked.get(1));
        assertThat(gone.until()).contains(checked.get(1));
        assertThat(gone.isAbsentFrom(last)).isTrue();
        assertThat(gone.isAbsentFrom("99.0.0")).as("a version no list records").isFalse();
        assertThat(gone.isPresentIn("99.0.0")).isFalse();
        assertThat(MethodVersions.of(first, last).versions()).containsExactly(first, last);
        assertThat(MethodVersions.of(first, last)).isEqualTo(MethodVersions.of(last, first))
                .hasToString("MethodVersions[" + first + ", " + last + "]");
        MethodVersions none = MethodVersions.unrecorded();
        assertThat(none.recorded()).isFalse();
        assertThat(none.since()).isEmpty();
        assertThat(none.isAbsentFrom(first)).isFalse();
        assertThat(none).hasToString("MethodVersions[unrecorded]");
        assertThatThrownBy(() -> MethodVersions.from("0.150.1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a checked codex version: 0.150.1");
        assertThatThrownBy(() -> MethodVersions.range(last, first)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new MethodDescriptor<>("x/y", Object.class, Object.class, ParamsPresence.NONE, false).versions())
                .isEqualTo(MethodVersions.unrecorded());
    }
}

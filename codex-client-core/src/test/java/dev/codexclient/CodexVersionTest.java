package dev.codexclient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CodexVersionTest {
    /** initialize results of the real binaries, with the client names they were given. */
    private static final String UA_0_98 = "codex-client-java/0.98.0 (Debian 12.0.0; x86_64) xterm (codex-client-java; 0.1.0)";
    private static final String UA_0_169 = "probe/0.169.0 (Debian 12.0.0; x86_64) xterm (probe; 0)";

    @Test
    void readsTheVersionFromRealUserAgents() {
        assertThat(CodexVersion.fromUserAgent(UA_0_98)).map(CodexVersion::text).contains("0.98.0");
        assertThat(CodexVersion.fromUserAgent(UA_0_169)).map(CodexVersion::text).contains("0.169.0");
        // codex's own name when the client gave none it could use
        assertThat(CodexVersion.fromUserAgent("codex_cli_rs/0.169.0 (Mac OS 15.1.0; arm64) iTerm.app/3.5.10"))
                .map(CodexVersion::text).contains("0.169.0");
    }

    @Test
    void aClientNameThatLooksLikeAVersionDoesNotFoolIt() {
        // The originator is the client's name and may itself contain "/1.2.3".
        assertThat(CodexVersion.fromUserAgent("acme/1.4.2 bot/0.120.0 (Debian 12.0.0; x86_64) unknown"))
                .map(CodexVersion::text).contains("0.120.0");
        assertThat(CodexVersion.fromUserAgent("Codex Desktop/0.150.0-alpha.3 (Windows 11; x86_64) unknown (x; 1)"))
                .map(CodexVersion::text).contains("0.150.0-alpha.3");
    }

    @Test
    void aUserAgentReducedToItsPrefixStillNamesTheVersion() {
        assertThat(CodexVersion.fromUserAgent("codex_cli_rs/0.140.0")).map(CodexVersion::text).contains("0.140.0");
    }

    @Test
    void aUserAgentWithoutAVersionIsEmptyNotAnError() {
        assertThat(CodexVersion.fromUserAgent("")).isEmpty();
        assertThat(CodexVersion.fromUserAgent(null)).isEmpty();
        assertThat(CodexVersion.fromUserAgent("codex_cli_rs")).isEmpty();
        assertThat(CodexVersion.fromUserAgent("something/else (Linux; x86_64)")).isEmpty();
        assertThat(CodexVersion.fromUserAgent("x/99999999999.1.0 (Linux; x86_64)")).isEmpty();
    }

    @Test
    void serverInfoExposesIt() {
        ServerInfo old = new ServerInfo(Optional.of(UA_0_98), Optional.empty(), Optional.empty(), Optional.empty());
        assertThat(old.codexVersion()).contains(CodexVersion.parse("0.98.0"));
        assertThat(new ServerInfo(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()).codexVersion()).isEmpty();
    }

    @Test
    void ordersNumericallyNotAlphabetically() {
        CodexVersion v98 = CodexVersion.parse("0.98.0");
        CodexVersion v169 = CodexVersion.parse("0.169.0");
        assertThat(v98).isLessThan(v169);
        assertThat(v169.isAtLeast("0.120.0")).isTrue();
        assertThat(v98.isAtLeast("0.120.0")).isFalse();
        assertThat(v98.isBefore("0.120.0")).isTrue();
        assertThat(v169.isAtLeast(v169)).isTrue();
        assertThat(CodexVersion.parse("1.0.0")).isGreaterThan(CodexVersion.parse("0.999.999"));
        assertThat(CodexVersion.parse("0.142.10")).isGreaterThan(CodexVersion.parse("0.142.9"));
    }

    @Test
    void preReleasesSortBeforeTheirReleaseBySemverRules() {
        List<String> ordered = List.of("0.170.0-alpha", "0.170.0-alpha.1", "0.170.0-alpha.2", "0.170.0-alpha.10",
                "0.170.0-alpha.beta", "0.170.0-beta", "0.170.0-rc.1", "0.170.0", "0.170.1");
        List<CodexVersion> parsed = new ArrayList<>(ordered.stream().map(CodexVersion::parse).toList());
        java.util.Collections.reverse(parsed);
        java.util.Collections.sort(parsed);
        assertThat(parsed).extracting(CodexVersion::text).containsExactlyElementsOf(ordered);
    }

    @Test
    void buildMetadataDoesNotCountButIsKeptInTheText() {
        CodexVersion built = CodexVersion.parse("0.169.0+linux.1");
        assertThat(built).isEqualTo(CodexVersion.parse("0.169.0")).hasSameHashCodeAs(CodexVersion.parse("0.169.0"));
        assertThat(built.compareTo(CodexVersion.parse("0.169.0"))).isZero();
        assertThat(built.text()).isEqualTo("0.169.0+linux.1");
        assertThat(built).hasToString("0.169.0+linux.1");
    }

    @Test
    void parsesLeniently() {
        assertThat(CodexVersion.parse(" v1.2 ")).satisfies(v -> {
            assertThat(v.major()).isEqualTo(1);
            assertThat(v.minor()).isEqualTo(2);
            assertThat(v.patch()).isZero();
            assertThat(v.preRelease()).isEmpty();
            assertThat(v).isEqualTo(CodexVersion.parse("1.2.0"));
        });
        assertThat(CodexVersion.parse("0.170.0-alpha.2").preRelease()).contains("alpha.2");
        assertThat(CodexVersion.find("codex-cli 0.98.0\n")).map(CodexVersion::text).contains("0.98.0");
        assertThat(CodexVersion.find("no version here")).isEmpty();
        assertThat(CodexVersion.find(null)).isEmpty();
    }

    @Test
    void rejectsWhatIsNotAVersion() {
        for (String bad : List.of("", "0", "0.169.0.1", "x0.169.0", "0.169.0-", "0.169.0-a..b", "1.2.3 4")) {
            assertThatThrownBy(() -> CodexVersion.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a codex version");
        }
    }

    @Test
    void thePinnedVersionIsTheVendoredSchemasVersion() throws Exception {
        String vendored = Files.readString(Path.of("..", "schema", "VERSION"), StandardCharsets.UTF_8).strip();
        assertThat(CodexVersion.pinned()).isEqualTo(CodexVersion.parse(vendored));
        assertThat(CodexVersion.pinned().text()).isEqualTo(vendored);
    }
}

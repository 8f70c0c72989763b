package dev.codexclient.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.Version;
import org.junit.jupiter.api.Test;

/** An old Jackson on the class path is named at first use instead of failing somewhere deep in databind. */
class JacksonVersionTest {
    @Test
    void anOlderJacksonIsRejectedWithBothVersionsNamed() {
        assertThatThrownBy(() -> JacksonVersion.check("jackson-databind",
                new Version(2, 16, 1, null, "com.fasterxml.jackson.core", "jackson-databind")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("jackson-databind 2.17 or newer")
                .hasMessageContaining("2.16.1 is on the class path");
        assertThat(JacksonVersion.problem("jackson-core", Version.unknownVersion())).contains("an unknown version");
    }

    @Test
    void theSupportedVersionsPass() {
        for (Version v : new Version[] {new Version(2, 17, 0, null, null, null), new Version(2, 22, 3, null, null, null),
                new Version(3, 0, 0, null, null, null)}) {
            assertThat(JacksonVersion.problem("jackson-databind", v)).isNull();
        }
        // and the one this build runs with
        JacksonVersion.check();
        assertThat(ProtocolJson.mapper()).isNotNull();
    }
}

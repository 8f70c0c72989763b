package dev.codexclient.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClientVersionTest {

    @Test
    void isTheVersionOfTheBuild() {
        // Surefire runs with the project's version in codex-client.version (set in this module's POM).
        assertThat(ClientVersion.current()).isEqualTo(System.getProperty("codex-client.version"))
                .doesNotContain("$").isNotEqualTo(ClientVersion.UNKNOWN);
    }

    @Test
    void anUnfilteredOrMissingResourceFallsBack() {
        assertThat(ClientVersion.read("unfiltered-version.properties")).isEqualTo(ClientVersion.UNKNOWN);
        assertThat(ClientVersion.read("no-such.properties")).isEqualTo(ClientVersion.UNKNOWN);
    }
}

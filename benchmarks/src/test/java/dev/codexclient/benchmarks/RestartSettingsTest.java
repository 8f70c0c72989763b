package dev.codexclient.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Figure 12's sizes as the {@code bench.restart.*} properties change them. */
class RestartSettingsTest {
    private static final List<String> PROPERTIES = List.of("compactEvery", "lengths", "layouts", "promptBytes",
            "codexConfig");

    @AfterEach
    void clear() {
        PROPERTIES.forEach(p -> System.clearProperty("bench.restart." + p));
    }

    @Test
    void withoutPropertiesTheFullSizesMeasureBothLayouts() {
        RestartFigure.Settings full = RestartFigure.Settings.full().withProperties();

        assertThat(full.lengths()).containsExactly(1, 100, 1000);
        assertThat(full.compactions()).containsExactly(0, 64);
        assertThat(full.prompt(7)).isEqualTo("turn 7");
        assertThat(full.codexConfig()).isEmpty();
        assertThat(BenchmarkRunner.Config.full(Path.of("results")).complete()).isTrue();
    }

    @Test
    void propertiesChooseLengthsLayoutsAndPromptSize() {
        System.setProperty("bench.restart.lengths", "1, 300,1000");
        System.setProperty("bench.restart.layouts", "compacted");
        System.setProperty("bench.restart.compactEvery", "32");
        System.setProperty("bench.restart.promptBytes", "400");

        RestartFigure.Settings s = RestartFigure.Settings.full().withProperties();

        assertThat(BenchmarkRunner.Config.full(Path.of("results")).complete()).isFalse();
        assertThat(s.lengths()).containsExactly(1, 300, 1000);
        assertThat(s.compactions()).containsExactly(32);
        assertThat(s.prompt(12)).startsWith("turn 12 history").hasSizeGreaterThanOrEqualTo(400)
                .hasSizeLessThan(400 + " history".length());
    }

    @Test
    void theStoredLayoutAloneMeasuresNoCompaction() {
        System.setProperty("bench.restart.layouts", "stored");

        assertThat(RestartFigure.Settings.full().withProperties().compactions()).containsExactly(0);
    }

    @Test
    void extraCodexSettingsMakeARunAnExperiment() {
        System.setProperty("bench.restart.codexConfig", "[features.token_budget]\\nenabled = true");

        assertThat(RestartFigure.Settings.full().withProperties().codexConfig())
                .isEqualTo("[features.token_budget]\nenabled = true");
        assertThat(BenchmarkRunner.Config.full(Path.of("results")).complete()).isFalse();
    }

    @Test
    void anUnknownLayoutIsRefused() {
        System.setProperty("bench.restart.layouts", "compact");

        assertThatThrownBy(() -> RestartFigure.Settings.full().withProperties())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not compact");
    }
}

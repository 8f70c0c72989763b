package dev.codexclient.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.benchmarks.SoakLedger.Kill;
import dev.codexclient.benchmarks.SoakLedger.Sample;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/**
 * The soak's parts that need no codex: it runs only when asked for, its settings, the model's tokens, and a plot that
 * is a well-formed SVG with a line per panel, a marker per kill and the judged trend.
 */
class SoakFigureTest {

    @Test
    void theSoakRunsOnlyWhenAskedFor(@TempDir Path results) {
        BenchmarkRunner.Config config = BenchmarkRunner.Config.full(results);
        assertThat(config.runs(BenchmarkRunner.SOAK)).isFalse();
        assertThat(config.runs(7)).isTrue();
        assertThat(config.only(Set.of(BenchmarkRunner.SOAK)).runs(BenchmarkRunner.SOAK)).isTrue();
    }

    @Test
    void theSettingsRefuseASoakOfLessThanAMinute() {
        assertThatThrownBy(() -> new SoakSettings(Duration.ofSeconds(30), Duration.ofMinutes(1), 3, 6, 40,
                Duration.ofMinutes(2), false, 9)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTurnsTokenIsTheSecondWordOfItsMessage() {
        assertThat(SoakModel.token("approve w3-17")).isEqualTo("w3-17");
        assertThat(SoakModel.token("chat")).isEmpty();
    }

    @Test
    void thePlotIsAnSvgWithALinePerPanelAndAMarkerPerKill() throws Exception {
        List<Sample> samples = new ArrayList<>();
        for (int m = 0; m <= 30; m++) {
            samples.add(new Sample(m, 40 + m % 3, 60 + m % 2, 120 + m % 4, 3));
        }
        List<Kill> kills = List.of(new Kill(60.2, "spawned-1", 310), new Kill(120.1, "spawned-3", 290));
        String svg = SoakPlot.svg(SoakSettings.full(), samples, kills);
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
        assertThat(doc.getElementsByTagName("polyline").getLength()).isEqualTo(3);
        assertThat(doc.getElementsByTagName("circle").getLength()).isEqualTo(3 * samples.size());
        // A dashed line per kill in each panel.
        assertThat(doc.getElementsByTagName("line").getLength()).isEqualTo(3 * kills.size());
        // The trend of the judged half in each panel, which says what it found.
        assertThat(doc.getElementsByTagName("path").getLength()).isEqualTo(3);
        assertThat(doc.getElementsByTagName("title").item(0).getTextContent()).startsWith("minutes 15–30:");
        assertThat(svg).contains("client heap after GC (MB)", "live threads", "open file descriptors");
    }
}

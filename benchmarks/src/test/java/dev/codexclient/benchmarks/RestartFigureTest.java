package dev.codexclient.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Figure 12 at smoke sizes (threads of 1 and 3 turns, two held, two SIGKILLs each) against the real codex: every
 * restart resumes every held thread, every history length produces its numbers and the flatness ratio is there.
 * Never asserts a timing.
 */
@Tag("real-codex")
@Timeout(600)
class RestartFigureTest {

    @Test
    void everyHistoryLengthProducesNumbers(@TempDir Path results) throws Exception {
        BenchmarkRunner.Report report = new BenchmarkRunner(BenchmarkRunner.Config.smoke(results)
                .only(Set.of(BenchmarkRunner.RESTART))).run();

        for (int length : RestartFigure.Settings.smoke().lengths()) {
            String key = "restart.n" + length;
            assertThat(report.numbers().get(key + ".resumeMs")).as(key).isPositive();
            // The resumes are part of the whole restart, which starts at the kill.
            assertThat(report.numbers().get(key + ".wholeMs")).as(key)
                    .isGreaterThan(report.numbers().get(key + ".resumeMs"));
            assertThat(report.numbers().get(key + ".setupSeconds")).as(key).isPositive();
            assertThat(report.numbers().get(key + ".fullResumeMs")).as(key).isPositive();
            assertThat(report.numbers().get(key + ".leanResumeMs")).as(key).isPositive();
            // Without its turns, the answer is smaller: what the restart no longer reads.
            assertThat(report.numbers().get(key + ".leanResumeBytes")).as(key).isPositive()
                    .isLessThan(report.numbers().get(key + ".fullResumeBytes"));
        }
        // The flatness ratio is the slowest history's resume over the fastest one's, of the medians above.
        double slowest = RestartFigure.Settings.smoke().lengths().stream()
                .mapToDouble(n -> report.numbers().get("restart.n" + n + ".resumeMs")).max().orElseThrow();
        double fastest = RestartFigure.Settings.smoke().lengths().stream()
                .mapToDouble(n -> report.numbers().get("restart.n" + n + ".resumeMs")).min().orElseThrow();
        assertThat(report.numbers().get("restart.flat.ratio")).isEqualTo(slowest / fastest);
        assertThat(report.markdown()).contains("### 12 Restart");
        assertThat(RunFile.read(report.jsonFile()).targets()).singleElement().satisfies(t -> {
            assertThat(t.id()).isEqualTo("restart.flat");
            assertThat(t.value()).isEqualTo(slowest / fastest);
        });
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList()).isEmpty();
    }

    @Test
    void aFullRunIncludesFiguresElevenAndTwelveAndASmokeRunOfEveryFigureLeavesThemOut(@TempDir Path results) {
        assertThat(BenchmarkRunner.Config.full(results).runs(BenchmarkRunner.STARTUP)).isTrue();
        assertThat(BenchmarkRunner.Config.full(results).runs(BenchmarkRunner.RESTART)).isTrue();
        assertThat(BenchmarkRunner.Config.smoke(results).runs(BenchmarkRunner.STARTUP)).isFalse();
        assertThat(BenchmarkRunner.Config.smoke(results).runs(BenchmarkRunner.RESTART)).isFalse();
        assertThat(BenchmarkRunner.Config.smoke(results).only(Set.of(12)).runs(BenchmarkRunner.RESTART)).isTrue();
        assertThat(BenchmarkRunner.figures("11,12")).containsExactly(11, 12);
    }
}

package dev.codexclient.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

        RestartFigure.Settings smoke = RestartFigure.Settings.smoke();
        for (String key : keys(smoke)) {
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
        // Never compacted, a thread stores no checkpoint; compacted every two turns, the three-turn thread stores
        // one, which carries its history so far.
        int longest = smoke.lengths().get(smoke.lengths().size() - 1);
        assertThat(report.numbers().get("restart.n" + longest + ".checkpoints")).isZero();
        assertThat(report.numbers().get("restart.c" + smoke.compactEvery() + ".n" + longest + ".checkpoints"))
                .isEqualTo(longest / smoke.compactEvery());
        assertThat(report.numbers().get("restart.c" + smoke.compactEvery() + ".n" + longest
                + ".lastCheckpointItems")).isPositive();
        assertThat(report.numbers().get("restart.flat.ratio")).isGreaterThanOrEqualTo(1.0);
        assertThat(report.numbers().get("restart.flat.compacted.ratio")).isGreaterThanOrEqualTo(1.0);
        assertThat(report.markdown()).contains("### 12 Restart", "compacted every " + smoke.compactEvery());
        assertThat(RunFile.read(report.jsonFile()).targets()).extracting(Results.Target::id)
                .containsExactly("restart.flat", "restart.flat.compacted");
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList()).isEmpty();
    }

    private static List<String> keys(RestartFigure.Settings settings) {
        List<String> keys = new ArrayList<>();
        for (int length : settings.lengths()) {
            keys.add("restart.n" + length);
            keys.add("restart.c" + settings.compactEvery() + ".n" + length);
        }
        return keys;
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

package dev.codexclient.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Figure 8 at tiny sizes (1 and 2 threads, 2 turns each) against the real codex: every (N, layout) produces its
 * numbers, the table has its rows, and no server process outlives the figure. Never asserts a timing.
 */
@Tag("real-codex")
@Timeout(900)
class ScalingFigureTest {

    @Test
    void everyLayoutProducesNumbersAndNoProcessIsLeft(@TempDir Path results) throws Exception {
        BenchmarkRunner.Config config = BenchmarkRunner.Config.smoke(results).only(Set.of(8));
        BenchmarkRunner.Report report = new BenchmarkRunner(config).run();

        assertThat(report.numbers()).containsEntry("scaling.leftProcesses", 0.0);
        // Nothing this JVM started is still running: the servers, the launchers and their commands all ended.
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList()).isEmpty();
        assertThat(report.numbers().get("scaling.baseline.rssIdleMb")).isPositive();
        // The idle server as the client runs it is the native codex alone; under its launcher, node comes on top.
        assertThat(report.numbers().get("scaling.baseline.processes")).isEqualTo(1.0);
        assertThat(report.numbers().get("scaling.baselineLauncher.rssIdleMb")).isPositive();
        if (Path.of("/proc/self/smaps_rollup").toFile().canRead()) {
            assertThat(report.numbers()).containsKey("scaling.idlePss.launcherMinusNativeMb");
            assertThat(RunFile.read(report.jsonFile()).targets()).extracting(Results.Target::id)
                    .contains("scaling.idlePss");
        }
        for (int n : List.of(1, 2)) {
            for (String layout : List.of("one", "perThread", "pool3")) {
                String key = "scaling." + layout + ".n" + n;
                assertThat(report.numbers()).containsKeys(key + ".p50Ms", key + ".p99Ms", key + ".maxMs",
                        key + ".turnsPerSec", key + ".rssIdleMb", key + ".rssPeakMb", key + ".rssEndMb");
                assertThat(report.numbers().get(key + ".turns")).isEqualTo(2.0 * n);
                assertThat(report.numbers().get(key + ".p50Ms")).isPositive()
                        .isLessThanOrEqualTo(report.numbers().get(key + ".p99Ms"));
                assertThat(report.numbers().get(key + ".turnsPerSec")).isPositive();
                assertThat(report.numbers().get(key + ".rssIdleMb")).isPositive();
                assertThat(report.numbers().get(key + ".rssPeakMb")).isPositive();
                // A server is at least the native codex.
                assertThat(report.numbers().get(key + ".processes"))
                        .isGreaterThanOrEqualTo(report.numbers().get(key + ".servers"));
                if (Path.of("/proc/self/smaps_rollup").toFile().canRead()) {
                    assertThat(report.numbers().get(key + ".pssPeakMb")).isPositive()
                            .isLessThanOrEqualTo(report.numbers().get(key + ".rssPeakMb"));
                }
            }
            assertThat(report.numbers().get("scaling.perThread.n" + n + ".servers")).isEqualTo((double) n);
            assertThat(report.numbers().get("scaling.pool3.n" + n + ".servers")).isEqualTo(3.0);
        }
        assertThat(report.rows()).filteredOn(r -> r.figure().equals("8 Scaling")).hasSize(2 + 2 * 3);
        assertThat(report.markdown()).contains("### 8 Scaling").contains("one app-server per thread")
                .contains("a pool of 3 app-servers");
        RunFile run = RunFile.read(report.jsonFile());
        assertThat(run.figures()).containsExactly(8);
        assertThat(run.numbers()).containsEntry("scaling.pool3.n2.turns", 4.0);
    }

    @Test
    void aRunOfEveryFigureLeavesScalingOutUnlessAsked(@TempDir Path results) {
        BenchmarkRunner.Config config = BenchmarkRunner.Config.smoke(results);
        assertThat(config.runs(7)).isTrue();
        assertThat(config.runs(8)).isFalse();
        assertThat(config.only(Set.of(8)).runs(8)).isTrue();
        ScalingSettings s = config.scaling();
        ScalingSettings included = new ScalingSettings(s.sizes(), s.turns(), s.minTurns(),
                s.spawnParallelism(), s.sampleEvery(), s.loadTimeout(), true);
        assertThat(config.scaling(included).runs(8)).isTrue();
        assertThat(BenchmarkRunner.figures("8")).containsExactly(8);
    }

    @Test
    void aLoadOfFewThreadsRunsMoreTurnsEachAndOneTurnInFiveRunsACommand() {
        ScalingSettings full = ScalingSettings.full();
        assertThat(full.turnsPerThread(1)).isEqualTo(100);
        assertThat(full.turnsPerThread(10)).isEqualTo(10);
        assertThat(full.turnsPerThread(30)).isEqualTo(5);
        assertThat(full.turnsPerThread(100)).isEqualTo(5);
        assertThat(ScalingSettings.smoke().turnsPerThread(2)).isEqualTo(2);
        assertThat(java.util.stream.IntStream.range(0, 10).mapToObj(TurnLoad::text)
                .filter(t -> t.startsWith(TurnLoad.COMMAND))).hasSize(2);
        assertThat(TurnLoad.text(1)).startsWith(TurnLoad.COMMAND);
    }

    @Test
    void percentilesAreNearestRank() {
        long[] latencies = new long[100];
        for (int i = 0; i < latencies.length; i++) {
            latencies[i] = i + 1;
        }
        TurnLoad.Result r = new TurnLoad.Result(latencies, 2_000_000_000L);
        assertThat(r.percentile(0.50)).isEqualTo(50);
        assertThat(r.percentile(0.99)).isEqualTo(99);
        assertThat(r.max()).isEqualTo(100);
        assertThat(r.turnsPerSecond()).isEqualTo(50.0);
        assertThat(new TurnLoad.Result(new long[] {7}, 1).percentile(0.99)).isEqualTo(7);
    }
}

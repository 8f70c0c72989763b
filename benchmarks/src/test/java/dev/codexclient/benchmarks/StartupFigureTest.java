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
 * Figure 11 at smoke sizes (two rounds, no warm-up) against the real codex: every way to ready produces its numbers,
 * the target's ratio is there, and no server outlives the figure. Never asserts a timing.
 */
@Tag("real-codex")
@Timeout(600)
class StartupFigureTest {

    @Test
    void everyWayToReadyProducesNumbersAndNoProcessIsLeft(@TempDir Path results) throws Exception {
        BenchmarkRunner.Report report = new BenchmarkRunner(BenchmarkRunner.Config.smoke(results)
                .only(Set.of(BenchmarkRunner.STARTUP))).run();

        for (String way : List.of("floor", "bareLauncher", "sdk", "sdkLauncher")) {
            assertThat(report.numbers().get("startup." + way + ".readyMs")).as(way).isPositive();
            // The first event of a turn comes after the handshake, in every way.
            assertThat(report.numbers().get("startup." + way + ".firstEventMs")).as(way)
                    .isGreaterThan(report.numbers().get("startup." + way + ".readyMs"));
        }
        assertThat(report.numbers().get("startup.build.ratio")).isPositive();
        assertThat(report.numbers().get("startup.build.ratioMin"))
                .isLessThanOrEqualTo(report.numbers().get("startup.build.ratioMax"));
        assertThat(report.rows()).filteredOn(r -> r.figure().equals("11 Time to ready")).hasSize(6);
        assertThat(RunFile.read(report.jsonFile()).targets()).extracting(Results.Target::id)
                .containsExactly("startup.build");
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList()).isEmpty();
    }
}

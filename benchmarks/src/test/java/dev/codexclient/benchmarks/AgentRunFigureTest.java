package dev.codexclient.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Figure 9 at its smoke size against the real codex: every measurement (a bare turn, a run with a client of its
 * own, a run on a warm client, the workspace alone) produces its numbers and rows, and no server outlives it. Never
 * asserts a timing.
 */
@Tag("real-codex")
@Timeout(600)
class AgentRunFigureTest {

    @Test
    void everyMeasurementProducesNumbersAndNoProcessIsLeft(@TempDir Path results) throws Exception {
        BenchmarkRunner.Report report = new BenchmarkRunner(BenchmarkRunner.Config.smoke(results).only(Set.of(9)))
                .run();

        for (String key : new String[] {"agentRun.bareTurnMs", "agentRun.perRunClientMs", "agentRun.warmClientMs",
                "agentRun.workspaceMs"}) {
            assertThat(report.numbers().get(key)).as(key).isPositive();
        }
        assertThat(report.numbers()).containsKeys("agentRun.perRunClient.overheadMs",
                "agentRun.warmClient.overheadMs");
        assertThat(report.rows()).filteredOn(r -> r.figure().equals("9 Agent run")).hasSize(3);
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList()).isEmpty();
        assertThat(BenchmarkRunner.Config.smoke(results).runs(9)).as("not in a run of every figure").isFalse();
    }
}

package dev.codexclient.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs every benchmark with tiny sizes: proves they still work and produce numbers (never asserts timings). */
class BenchmarkSmokeTest {

    private static boolean installed(String interpreter) {
        try {
            Process p = new ProcessBuilder(interpreter, "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void everyBenchmarkProducesNumbers(@TempDir Path results) throws Exception {
        BenchmarkRunner.Report report = new BenchmarkRunner(BenchmarkRunner.Config.smoke(results)).run();

        assertThat(report.rows()).extracting(BenchmarkRunner.Row::figure)
                .contains("1 Decode", "2 Stream", "3 Round trip", "4 Cold start", "5 Memory", "6 Isolation",
                        "7 Unit test");
        assertThat(report.numbers()).containsKeys(
                "decode.mix.decoder.msgPerSec", "decode.mix.client.msgPerSec", "decode.mix.readTree.msgPerSec",
                "decode.delta.decoder.msgPerSec", "decode.delta.client.msgPerSec", "decode.delta.readTree.msgPerSec",
                "stream.delta.sdk.linesPerSec", "stream.delta.raw.linesPerSec",
                "stream.mix.sdk.linesPerSec", "roundTrip.sdk.p50Micros", "roundTrip.raw.p50Micros",
                "coldStart.wallMs", "coldStart.classes", "coldStart.protocolClassesAfterDelta",
                "coldStart.sdkClassesAtInit", "coldStart.sdkClassesAfterDelta", "coldStart.deltaUptimeMs",
                "coldStart.slf4jClassesAtInit",
                "memory.peakHeapMb", "isolation.p99Ms", "roundTrip.p50Ratio.median", "stream.delta.raw.minLinesPerSec",
                "unitTest.warm.p50Ms", "unitTest.warm.p99Ms", "unitTest.cold.firstCycleMs", "unitTest.cold.uptimeMs",
                "unitTest.cold.sdkClasses");
        assertThat(report.numbers().values()).allSatisfy(v -> assertThat(v).isFinite().isNotNegative());
        assertThat(report.numbers().get("decode.mix.decoder.msgPerSec")).isPositive();
        assertThat(report.numbers().get("stream.delta.sdk.linesPerSec")).isPositive();
        assertThat(report.numbers().get("memory.completed")).isEqualTo(1.0);
        // SDK classes are counted from class-load logging: some at init, more after the first typed delta.
        assertThat(report.numbers().get("coldStart.sdkClassesAtInit")).isPositive();
        assertThat(report.numbers().get("coldStart.sdkClassesAfterDelta"))
                .isGreaterThan(report.numbers().get("coldStart.sdkClassesAtInit"));
        assertThat(report.numbers().get("unitTest.cold.sdkClasses")).isPositive();
        // Cold start with class data sharing: an archive written by a training run, then used by the timed runs.
        assertThat(report.rows()).filteredOn(r -> r.figure().equals("4 Cold start")).hasSize(2);
        if (report.rows().stream().noneMatch(r -> r.figure().equals("4 Cold start") && r.status().equals("not run"))) {
            assertThat(report.numbers()).containsKeys("coldStart.cds.wallMs", "coldStart.cds.baselineWallMs",
                    "coldStart.cds.sdkClassesAtInit", "coldStart.cds.deltaUptimeMs");
            assertThat(report.numbers().get("coldStart.cds.archivedClassesAtInit")).isPositive();
        }
        // The node and python baselines run where those interpreters are installed.
        if (installed("node")) {
            assertThat(report.numbers()).containsKey("stream.delta.node.linesPerSec");
        }
        if (installed("python3")) {
            assertThat(report.numbers()).containsKey("stream.delta.python.linesPerSec");
        }
        assertThat(report.markdown()).contains("| Figure |");
        assertThat(results.resolve("latest.md")).exists();
        // The numbers and targets land next to the table; a smoke run is never one Spread compares.
        RunFile run = RunFile.read(report.jsonFile());
        assertThat(run.smoke()).isTrue();
        assertThat(run.complete()).isFalse();
        assertThat(run.numbers()).containsEntry("unitTest.warm.p50Ms", report.numbers().get("unitTest.warm.p50Ms"));
        assertThat(run.targets()).extracting(Results.Target::id).contains("decode.mix", "decode.delta",
                "stream.delta.ofRaw", "roundTrip.p50", "coldStart", "unitTest.warm.p50", "unitTest.cold.firstCycle");
        assertThat(Spread.lastComplete(results, 3)).isEmpty();
    }
}

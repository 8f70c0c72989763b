package dev.codexclient.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.benchmarks.Results.Bound;
import dev.codexclient.benchmarks.Results.Target;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Spread table over run files: reading them, median and min–max per target, met in every run. */
class SpreadTest {

    private static Target ratio(String id, double value, Bound direction, double bound) {
        return new Target(id, "the " + id, value, direction, bound, "×");
    }

    private static RunFile run(String stamp, boolean complete, Target... targets) {
        return new RunFile(stamp, complete, false, complete ? Set.of() : Set.of(3), Map.of("n", 1.0),
                List.of(targets));
    }

    @Test
    void writesAndReadsARunFile(@TempDir Path dir) throws IOException {
        RunFile written = new RunFile("20261124-010000", true, false, Set.of(), Map.of("roundTrip.sdk.p50Micros",
                44.5), List.of(ratio("roundTrip.p50", 1.25, Bound.AT_MOST, 1.5),
                new Target("unitTest.warm.p50", "warm", 2.5, Bound.AT_MOST, 2, " ms")));
        Path file = dir.resolve("bench-20261124-010000.json");
        RunFile.write(file, written);

        RunFile read = RunFile.read(file);

        assertThat(read).isEqualTo(written);
        assertThat(read.targets().get(0).met()).isTrue();
        assertThat(read.targets().get(1).met()).isFalse();
    }

    @Test
    void aFileThatIsNoRunFileIsAnErrorNamingWhatIsMissing(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bench-x.json");
        Files.writeString(file, "{\"stamp\": \"x\", \"complete\": true, \"figures\": [], \"numbers\": {}}");

        assertThatThrownBy(() -> RunFile.read(file)).isInstanceOf(IOException.class).hasMessageContaining(
                "\"targets\"");
    }

    @Test
    void picksTheLastCompleteRunsOldestFirst(@TempDir Path dir) throws IOException {
        RunFile.write(dir.resolve("bench-20261124-010000.json"), run("20261124-010000", true));
        RunFile.write(dir.resolve("bench-20261124-020000.json"), run("20261124-020000", true));
        RunFile.write(dir.resolve("bench-20261124-030000.json"), run("20261124-030000", false));
        RunFile.write(dir.resolve("bench-20261124-040000.json"), run("20261124-040000", true));
        RunFile.write(dir.resolve("bench-20261124-050000.json"), new RunFile("20261124-050000", false, true,
                Set.of(), Map.of(), List.of()));
        Files.writeString(dir.resolve("bench-20261124-040000.md"), "| table |");

        assertThat(Spread.lastComplete(dir, 2)).extracting(RunFile::stamp)
                .containsExactly("20261124-020000", "20261124-040000");
        assertThat(Spread.lastComplete(dir, 5)).hasSize(3);
        assertThat(Spread.lastComplete(dir.resolve("absent"), 3)).isEmpty();
    }

    @Test
    void medianMinMaxAndMetInEveryRunPerTarget() {
        List<RunFile> runs = List.of(
                run("a", true, ratio("roundTrip.p50", 1.6, Bound.AT_MOST, 1.5),
                        ratio("decode.delta", 2.1, Bound.AT_LEAST, 2)),
                run("b", true, ratio("roundTrip.p50", 1.2, Bound.AT_MOST, 1.5),
                        ratio("decode.delta", 2.4, Bound.AT_LEAST, 2)),
                run("c", true, ratio("roundTrip.p50", 1.4, Bound.AT_MOST, 1.5),
                        ratio("decode.delta", 2.0, Bound.AT_LEAST, 2)));

        List<Spread.Line> lines = Spread.lines(runs);

        assertThat(lines).extracting(Spread.Line::id).containsExactly("roundTrip.p50", "decode.delta");
        Spread.Line roundTrip = lines.get(0);
        assertThat(roundTrip.values()).containsExactly(1.6, 1.2, 1.4);
        assertThat(roundTrip.median()).isEqualTo(1.4);
        assertThat(roundTrip.min()).isEqualTo(1.2);
        assertThat(roundTrip.max()).isEqualTo(1.6);
        assertThat(roundTrip.metInEveryRun()).isFalse();
        // A bound reached exactly is met.
        assertThat(lines.get(1).metInEveryRun()).isTrue();
        assertThat(lines.get(1).median()).isEqualTo(2.1);
    }

    @Test
    void aTargetMissingFromARunIsNotMetInEveryRunAndLeftOutOfTheMedian() {
        List<RunFile> runs = List.of(
                run("a", true, ratio("stream.delta.vsnode", 2.5, Bound.AT_LEAST, 2)),
                run("b", true),
                run("c", true, ratio("stream.delta.vsnode", 2.1, Bound.AT_LEAST, 2)));

        Spread.Line line = Spread.lines(runs).get(0);

        assertThat(line.values()[1]).isNaN();
        assertThat(line.median()).isEqualTo(2.1);
        assertThat(line.min()).isEqualTo(2.1);
        assertThat(line.max()).isEqualTo(2.5);
        assertThat(line.metInEveryRun()).isFalse();
    }

    @Test
    void printsOneMarkdownRowPerTarget() {
        List<RunFile> runs = List.of(
                run("20261124-010000", true, ratio("roundTrip.p50", 1.6, Bound.AT_MOST, 1.5)),
                run("20261124-020000", true, ratio("roundTrip.p50", 1.2, Bound.AT_MOST, 1.5)));

        String table = Spread.table(runs);

        assertThat(table.lines()).containsExactly(
                "| Target | Bound | 20261124-010000 | 20261124-020000 | Median | Min–max | Met in every run |",
                "|---|---|---|---|---|---|---|",
                "| the roundTrip.p50 | ≤ 1.5× | 1.60× (missed) | 1.20× | 1.20× | 1.20×–1.60× | no |");
    }

    @Test
    void benchOnlyAcceptsEveryFigureAndNothingElse() {
        assertThat(BenchmarkRunner.figures("7")).containsExactly(7);
        assertThat(BenchmarkRunner.figures(" 1, 7 ,3")).containsExactly(1, 3, 7);
        assertThat(BenchmarkRunner.figures("")).isEmpty();
        assertThat(BenchmarkRunner.figures("8")).containsExactly(8);
        assertThat(BenchmarkRunner.figures("9")).containsExactly(9);
        assertThat(BenchmarkRunner.figures("10")).containsExactly(10);
        assertThatThrownBy(() -> BenchmarkRunner.figures("11")).hasMessageContaining("1-10");
        assertThatThrownBy(() -> BenchmarkRunner.figures("0")).hasMessageContaining("1-10");
        assertThatThrownBy(() -> BenchmarkRunner.figures("x")).hasMessageContaining("1-10");
    }
}

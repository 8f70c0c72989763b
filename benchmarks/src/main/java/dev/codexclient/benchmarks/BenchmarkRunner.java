package dev.codexclient.benchmarks;

import static dev.codexclient.benchmarks.Results.rate;
import static dev.codexclient.benchmarks.Results.x;

import dev.codexclient.benchmarks.Results.Bound;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs every benchmark in one go and prints one table of ratios against baselines measured in the same run; writes
 * the table to {@code results/} (or the directory in {@code -Dbench.results}) as {@code bench-<stamp>.md}, and its
 * numbers and targets next to it as {@code bench-<stamp>.json} (read by {@link Spread}).
 *
 * <p>{@code -Dbench.smoke=true} runs everything with tiny sizes: it proves the benchmarks work, nothing more.
 * {@code -Dbench.only=3} (or {@code 1,3}) runs only the figures listed, for a quick look at one of them while working
 * on it; the table then holds only their rows.
 *
 * <p>Figure 8 (scaling, {@link ScalingFigure}) runs the real codex app-server for minutes, so a run of every figure
 * leaves it out: {@code -Dbench.only=8} runs it alone, {@code -Dbench.scaling=true} adds it to a run of every figure;
 * {@code -Dbench.scale=1,10} chooses its numbers of threads, {@code -Dbench.scale.turns} its turns per thread and
 * {@code -Dbench.scale.spawn} how many servers start at once.
 *
 * <p>Figure 9 (an agent run's overhead, {@link AgentRunFigure}) runs the real codex too, for a minute or two: it runs
 * with {@code -Dbench.only=9}, and a run of every figure leaves it out.
 *
 * <p>Figure 10 (the soak, {@link SoakFigure}) runs for half an hour by default and only alone: {@code -Dbench.only=10};
 * {@code -Dbench.soak.minutes=60} for the record, {@code -Dbench.soak.minutes=3} (or {@code -Dbench.smoke=true}) to
 * see that it works; {@code -Dbench.soak.killEverySeconds}, {@code -Dbench.soak.workers} and
 * {@code -Dbench.soak.spare=true} (a warm spare) change its load.
 *
 * <p>Figures 11 (time to ready, {@link StartupFigure}) and 12 (a restart whatever the history, {@link RestartFigure})
 * run the real codex too, for a minute and a few minutes; a full run includes them, a smoke run of every figure does
 * not (their tests, tagged real-codex, run them at smoke sizes).
 */
public final class BenchmarkRunner {
    /** The highest figure number. */
    static final int FIGURES = 12;

    /** The figure a run of every figure leaves out unless asked: it needs the real codex and takes minutes. */
    static final int SCALING = 8;

    /** The agent run's overhead: it needs the real codex, so a run of every figure leaves it out too. */
    static final int AGENT_RUN = 9;

    /** The soak ({@link SoakFigure}): half an hour or more of the real codex; it runs only when asked for. */
    static final int SOAK = 10;

    /** Figures on the real codex that a full run includes: time to ready, and a restart whatever the history. */
    static final int STARTUP = 11;
    static final int RESTART = 12;

    /**
     * Sizes of one run.
     *
     * @param streamRounds rounds of every side of figure 2
     * @param roundTrips measured round trips per side, over all {@code roundTripRounds}
     * @param unitTestWarmup unmeasured cycles of figure 7 before its {@code unitTestCycles} measured ones
     * @param unitTestColdJvms fresh JVMs of figure 7, each timing its first cycle
     * @param scaling sizes of figure 8, and whether a run of every figure includes it
     * @param startupWarmup unmeasured rounds of figure 11 before its {@code startupRounds} measured ones
     * @param restart sizes of figure 12
     */
    public record Config(boolean smoke, int deltaLines, int mixLines, int streamRounds, int roundTrips,
                         int roundTripWarmup, int roundTripRounds, int coldStarts, long floodBytes,
                         int isolationTurns, int isolationRounds, Duration isolationBlock, int unitTestWarmup,
                         int unitTestCycles, int unitTestColdJvms, ScalingSettings scaling, int startupWarmup,
                         int startupRounds, RestartFigure.Settings restart, Path results, Set<Integer> figures) {

        public Config {
            figures = Set.copyOf(figures);
        }

        /** The full run documented in BENCHMARKS.md. */
        public static Config full(Path results) {
            return new Config(false, 1_000_000, 200_000, 5, 20_000, 5_000, 5, 5, 100L * 1024 * 1024, 64, 400,
                    Duration.ofSeconds(1), 3_000, 1_000, 5, ScalingSettings.full(), 3, 15, RestartFigure.Settings.full(),
                    results, Set.of());
        }

        /** Tiny sizes: seconds, for CI. */
        public static Config smoke(Path results) {
            return new Config(true, 2_000, 500, 1, 200, 50, 2, 1, 1024 * 1024, 4, 5, Duration.ofMillis(50), 5, 10,
                    1, ScalingSettings.smoke(), 0, 2, RestartFigure.Settings.smoke(), results, Set.of());
        }

        /** The same sizes, running only the given figures (all of them when {@code figures} is empty). */
        public Config only(Set<Integer> figures) {
            return new Config(smoke, deltaLines, mixLines, streamRounds, roundTrips, roundTripWarmup,
                    roundTripRounds, coldStarts, floodBytes, isolationTurns, isolationRounds, isolationBlock,
                    unitTestWarmup, unitTestCycles, unitTestColdJvms, scaling, startupWarmup, startupRounds, restart,
                    results, figures);
        }

        /** The same sizes with figure 8's replaced. */
        public Config scaling(ScalingSettings scaling) {
            return new Config(smoke, deltaLines, mixLines, streamRounds, roundTrips, roundTripWarmup,
                    roundTripRounds, coldStarts, floodBytes, isolationTurns, isolationRounds, isolationBlock,
                    unitTestWarmup, unitTestCycles, unitTestColdJvms, scaling, startupWarmup, startupRounds, restart,
                    results, figures);
        }

        boolean runs(int figure) {
            if (!figures.isEmpty()) {
                return figures.contains(figure);
            }
            if (figure == SCALING) {
                return scaling.inFullRun();
            }
            if (figure == AGENT_RUN || figure == SOAK) {
                return false;
            }
            // A smoke run of every figure needs no codex: figures 11 and 12 have smoke tests of their own.
            return !smoke || figure != STARTUP && figure != RESTART;
        }

        /**
         * A full run of every figure at its own sizes: the runs {@link Spread} compares. Figure 12 changed by a
         * {@code bench.restart.*} property is an experiment, not a sample of the figure.
         */
        boolean complete() {
            return !smoke && figures.isEmpty() && restart.withProperties().equals(restart);
        }
    }

    /** One row of the table. */
    public record Row(String figure, String measurement, String sdk, String baseline, String ratio, String target,
                      String status) {
    }

    /**
     * The outcome of a run: the rows, the raw numbers behind them, the files it wrote, and the checks of correctness
     * it failed (the soak's: a hung or duplicated turn, a resource that grows); empty when it passed them.
     */
    public record Report(List<Row> rows, Map<String, Double> numbers, String markdown, Path markdownFile,
                         Path jsonFile, List<String> failures) {
    }

    private final Config config;
    private final Recording recording = Recording.load();
    private final Results out;
    private Path work;

    /** A runner of the figures {@code config} selects, with its sizes. */
    public BenchmarkRunner(Config config) {
        this.config = config;
        this.out = new Results(config.smoke());
    }

    /**
     * Runs the figures the system properties select ({@code bench.smoke}, {@code bench.only}, {@code bench.results});
     * with {@code bench.spread=N} runs nothing and prints the {@link Spread} of the last N full runs instead.
     */
    public static void main(String[] args) throws Exception {
        boolean smoke = Boolean.getBoolean("bench.smoke");
        Path results = Path.of(System.getProperty("bench.results", "results"));
        String spread = System.getProperty("bench.spread", "").strip();
        if (!spread.isEmpty()) {
            Spread.main(new String[] {spread, results.toString()});
            return;
        }
        Config base = smoke ? Config.smoke(results) : Config.full(results);
        Config config = base.scaling(base.scaling().withProperties()).only(figures(
                System.getProperty("bench.only", "")));
        Report report = new BenchmarkRunner(config).run();
        System.out.println();
        System.out.println(report.markdown());
        if (!report.failures().isEmpty()) {
            // A script's check: exit status 1 when a check of correctness failed (a missed performance target is not
            // one: it is read from the table, on a quiet machine).
            System.out.println("FAILED: " + String.join("; ", report.failures()));
            System.exit(1);
        }
    }

    /** The figure numbers in a comma-separated list such as {@code "1,3"}; none for an empty one. */
    static Set<Integer> figures(String list) {
        Set<Integer> figures = new TreeSet<>();
        for (String part : list.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int figure;
            try {
                figure = Integer.parseInt(part.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bench.only lists figure numbers 1-" + FIGURES + ", not \""
                        + part + "\"");
            }
            if (figure < 1 || figure > FIGURES) {
                throw new IllegalArgumentException("bench.only lists figure numbers 1-" + FIGURES + ", not "
                        + figure);
            }
            figures.add(figure);
        }
        return figures;
    }

    /** Runs every selected figure and writes the table and its numbers. */
    public Report run() throws Exception {
        work = Files.createTempDirectory("codex-bench");
        ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);
        try {
            if (config.runs(1)) {
                decode();
            }
            if (config.runs(2)) {
                new StreamFigure(out, work, config.streamRounds()).run(recording, config.deltaLines(),
                        config.mixLines());
            }
            if (config.runs(3)) {
                new RoundTripFigure(out).run(config.roundTripRounds(), config.roundTrips()
                        / config.roundTripRounds(), config.roundTripWarmup());
            }
            if (config.runs(4)) {
                new ColdStartFigure(out, work).run(config.coldStarts());
            }
            if (config.runs(5)) {
                memory();
            }
            if (config.runs(6)) {
                isolation();
            }
            if (config.runs(7)) {
                new UnitTestFigure(out).run(config.unitTestWarmup(), config.unitTestCycles(),
                        config.unitTestColdJvms());
            }
            if (config.runs(SCALING)) {
                new ScalingFigure(out, work, config.scaling()).run();
            }
            if (config.runs(AGENT_RUN)) {
                new AgentRunFigure(out).run(config.smoke() ? 1 : 5, config.smoke() ? 2 : 20);
            }
            if (config.runs(SOAK)) {
                new SoakFigure(out, work, config.results(),
                        (config.smoke() ? SoakSettings.smoke() : SoakSettings.full()).withProperties()).run();
            }
            if (config.runs(STARTUP)) {
                new StartupFigure(out, work, config.startupWarmup(), config.startupRounds()).run();
            }
            if (config.runs(RESTART)) {
                new RestartFigure(out, work, config.restart().withProperties()).run();
            }
        } finally {
            deleteTree(work);
        }
        String markdown = markdown();
        Files.createDirectories(config.results());
        String stamp = started.format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path markdownFile = config.results().resolve("bench-" + stamp + ".md");
        Files.writeString(markdownFile, markdown);
        Path jsonFile = config.results().resolve("bench-" + stamp + ".json");
        RunFile.write(jsonFile, new RunFile(stamp, config.complete(), config.smoke(),
                new TreeSet<>(config.figures()), out.numbers(), out.targets()));
        if (config.figures().isEmpty()) {
            // latest.md stays the latest complete table: a run of some figures only does not replace it.
            Files.writeString(config.results().resolve("latest.md"), markdown);
        }
        return new Report(out.rows(), out.numbers(), markdown, markdownFile, jsonFile, out.failures());
    }

    // ------------------------------------------------------------------------------------------------ 1 decode

    private void decode() throws IOException, RunnerException {
        log("1. decode (JMH)");
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(DecodeBenchmark.class.getName() + "\\.")
                .shouldFailOnError(true);
        if (config.smoke()) {
            options.forks(0).warmupIterations(0).measurementIterations(1)
                    .measurementTime(TimeValue.milliseconds(100));
        } else {
            options.forks(1).warmupIterations(6).warmupTime(TimeValue.seconds(3)).measurementIterations(5)
                    .measurementTime(TimeValue.seconds(2)).jvmArgsAppend("-Xmx1g");
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        for (String dataset : List.of("mix", "mix110", "delta")) {
            List<byte[]> messages = DecodeBenchmark.dataset(dataset);
            long bytes = messages.stream().mapToLong(m -> m.length + 1).sum();
            double decoder = 0;
            double perLine = 0;
            double bufferFloor = 0;
            double client = 0;
            double tree = 0;
            double tokens = 0;
            double values = 0;
            for (RunResult r : results) {
                if (!dataset.equals(r.getParams().getParam("dataset"))) {
                    continue;
                }
                double opsPerSecond = r.getPrimaryResult().getScore();
                String benchmark = r.getParams().getBenchmark();
                if (benchmark.endsWith("sdkDecoder")) {
                    decoder = opsPerSecond;
                } else if (benchmark.endsWith("sdkDecoderPerLine")) {
                    perLine = opsPerSecond;
                } else if (benchmark.endsWith("jacksonTokensAndValuesPerBuffer")) {
                    bufferFloor = opsPerSecond;
                } else if (benchmark.endsWith("sdkClient")) {
                    client = opsPerSecond;
                } else if (benchmark.endsWith("jacksonReadTree")) {
                    tree = opsPerSecond;
                } else if (benchmark.endsWith("jacksonTokensOnly")) {
                    tokens = opsPerSecond;
                } else if (benchmark.endsWith("jacksonTokensAndValues")) {
                    values = opsPerSecond;
                }
            }
            double n = messages.size();
            out.put("decode." + dataset + ".decoder.msgPerSec", decoder * n);
            out.put("decode." + dataset + ".client.msgPerSec", client * n);
            out.put("decode." + dataset + ".readTree.msgPerSec", tree * n);
            out.put("decode." + dataset + ".tokensOnly.msgPerSec", tokens * n);
            out.put("decode." + dataset + ".tokensAndValues.msgPerSec", values * n);
            out.put("decode." + dataset + ".decoderPerLine.msgPerSec", perLine * n);
            out.put("decode." + dataset + ".tokensAndValuesPerBuffer.msgPerSec", bufferFloor * n);
            String what = switch (dataset) {
                case "mix" -> "recorded real mix, every scenario (" + messages.size() + " notifications)";
                case "mix110" -> "earlier recorded mix (" + messages.size() + " notifications)";
                default -> "agentMessage deltas";
            };
            String baseline = "readTree " + rate(tree * n, tree * bytes);
            if (dataset.equals("mix110")) {
                out.add(new Row("1 Decode", what + ": typed decode", rate(decoder * n, decoder * bytes), baseline,
                        x(decoder / tree) + " readTree", "—", "info"));
            } else {
                double target = dataset.equals("mix") ? 1.5 : 2.0;
                String status = out.target("decode." + dataset, "typed decode of " + (dataset.equals("mix")
                        ? "the recorded mix" : "deltas") + " / readTree", decoder / tree, Bound.AT_LEAST, target,
                        "×");
                out.add(new Row("1 Decode", what + ": typed decode", rate(decoder * n, decoder * bytes), baseline,
                        x(decoder / tree) + " readTree", "≥ " + Results.number(target) + "×", status));
            }
            out.add(new Row("1 Decode", what + ": typed decode, a parser per line",
                    rate(perLine * n, perLine * bytes), baseline, x(perLine / tree) + " readTree", "—", "info"));
            out.add(new Row("1 Decode", what + ": whole client path (decode, lane, listener)",
                    rate(client * n, client * bytes), baseline, x(client / tree) + " readTree", "—", "info"));
            // What a parser per line costs before anything is built, and with the values every decode must read:
            // no decode on a parser per line can pass the second.
            out.add(new Row("1 Decode", what + ": Jackson tokenizing only, strings skipped, nothing built",
                    rate(tokens * n, tokens * bytes), baseline, x(tokens / tree) + " readTree", "—", "info"));
            out.add(new Row("1 Decode", what + ": Jackson reading every token and value, nothing built (the floor)",
                    rate(values * n, values * bytes), baseline, x(values / tree) + " readTree", "—", "info"));
            out.add(new Row("1 Decode", what + ": the same floor on one parser per read buffer",
                    rate(bufferFloor * n, bufferFloor * bytes), baseline, x(bufferFloor / tree) + " readTree", "—",
                    "info"));
        }
    }

    // ------------------------------------------------------------------------------------------------ 5 memory

    private void memory() throws Exception {
        log("5. memory: " + config.floodBytes() / 1024 / 1024 + " MB flood with -Xmx64m");
        Path flood = work.resolve("flood.jsonl");
        int lines = Streams.commandOutputFlood(recording, flood, config.floodBytes(), 4096);
        List<String> command = List.of(Children.JAVA, "-Xmx64m", "-cp", Children.CLASSPATH, MemoryFlood.class.getName(),
                flood.toString(), Integer.toString(lines), "240", Children.JAVA, Children.CLASSPATH);
        Map<String, String> result = Children.runForResult(command, Duration.ofMinutes(5));
        boolean completed = Boolean.parseBoolean(result.get("completed"));
        double peakMb = Long.parseLong(result.get("peakHeapBytes")) / 1048576.0;
        double seconds = Long.parseLong(result.get("nanos")) / 1e9;
        double floodMb = Streams.size(flood) / 1048576.0;
        out.put("memory.completed", completed ? 1.0 : 0.0);
        out.put("memory.peakHeapMb", peakMb);
        out.put("memory.floodMbPerSec", floodMb / seconds);
        out.add(new Row("5 Memory", String.format(Locale.ROOT, "%.0f MB command-output flood (%d × outputDelta), "
                        + "-Xmx64m", floodMb, lines),
                (completed ? "completed" : "DID NOT COMPLETE") + String.format(Locale.ROOT,
                        ", peak heap %.1f MB, %.0f MB/s", peakMb, floodMb / seconds),
                "heap cap 64 MB", "—", "completes", out.status(completed)));
    }

    // ------------------------------------------------------------------------------------------------ 6 isolation

    private void isolation() throws Exception {
        log("6. isolation");
        Isolation.Result control = Isolation.run(config.isolationTurns(), config.isolationRounds(),
                Duration.ofMillis(2), Duration.ZERO);
        Isolation.Result r = Isolation.run(config.isolationTurns(), config.isolationRounds(), Duration.ofMillis(2),
                config.isolationBlock());
        out.put("isolation.control.p99Ms", control.p99Nanos() / 1e6);
        out.put("isolation.p50Ms", r.p50Nanos() / 1e6);
        out.put("isolation.p99Ms", r.p99Nanos() / 1e6);
        out.put("isolation.blockedMaxMs", r.blockedMaxNanos() / 1e6);
        // Isolated: the blocked listener adds nothing near its own block time to the other threads' tail.
        boolean isolated = r.p99Nanos() < config.isolationBlock().toNanos() / 10
                || r.p99Nanos() <= 2 * control.p99Nanos();
        out.add(new Row("6 Isolation", r.turns() + " concurrent turns; thread A's listener sleeps "
                        + config.isolationBlock().toMillis() + " ms",
                String.format(Locale.ROOT, "other threads' delta latency p50 %.2f ms, p99 %.2f ms, max %.2f ms "
                        + "(%d deltas)", r.p50Nanos() / 1e6, r.p99Nanos() / 1e6, r.maxNanos() / 1e6, r.measured()),
                String.format(Locale.ROOT, "same run, no listener blocking: p50 %.2f ms, p99 %.2f ms; thread A's "
                        + "own deltas waited up to %.0f ms", control.p50Nanos() / 1e6, control.p99Nanos() / 1e6,
                        r.blockedMaxNanos() / 1e6),
                String.format(Locale.ROOT, "p99 %.2f× control", (double) r.p99Nanos() / control.p99Nanos()),
                "B not delayed", out.status(isolated)));
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private String markdown() {
        StringBuilder s = new StringBuilder();
        s.append(config.smoke() ? "Smoke run (tiny sizes: the numbers mean nothing)\n\n" : "");
        s.append(config.figures().isEmpty() ? "" : "Only figure(s) " + new TreeSet<>(config.figures()) + "\n\n");
        s.append("Machine: ").append(machine()).append("  \n");
        s.append("Date: ").append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_LOCAL_DATE))
                .append(" (UTC)\n\n");
        s.append("| Figure | Measurement | SDK | Baseline (same run) | Ratio | Target | Status |\n");
        s.append("|---|---|---|---|---|---|---|\n");
        for (Row r : out.rows()) {
            s.append("| ").append(String.join(" | ", r.figure(), r.measurement(), r.sdk(), r.baseline(), r.ratio(),
                    r.target(), r.status())).append(" |\n");
        }
        for (String section : out.sections()) {
            s.append('\n').append(section);
        }
        return s.toString();
    }

    private static String machine() {
        String cpu = "unknown CPU";
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            cpu = lines.filter(l -> l.startsWith("model name")).findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse(cpu);
        } catch (IOException | UncheckedIOException e) {
            // not Linux: keep the generic description
        }
        return cpu + ", " + Runtime.getRuntime().availableProcessors() + " cores, "
                + ManagementFactory.getOperatingSystemMXBean().getName() + " "
                + System.getProperty("os.version") + ", Java " + System.getProperty("java.runtime.version")
                + ", node " + Children.version("node", "--version") + ", "
                + Children.version("python3", "--version");
    }

    static void log(String what) {
        System.out.println("[bench] " + what);
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}

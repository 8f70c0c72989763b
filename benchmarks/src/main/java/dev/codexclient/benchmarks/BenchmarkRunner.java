package dev.codexclient.benchmarks;

import dev.codexclient.CodexClient;
import dev.codexclient.benchmarks.ColdStartJvms.Sample;
import dev.codexclient.benchmarks.ColdStartJvms.Side;
import dev.codexclient.events.CodexEventListener;
import dev.codexclient.protocol.ClientRequestMethods;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadSetNameParams;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs every benchmark in one go and prints one table of ratios against baselines measured in the same run; writes
 * the table to {@code results/} (or the directory in {@code -Dbench.results}).
 *
 * <p>{@code -Dbench.smoke=true} runs everything with tiny sizes: it proves the benchmarks work, nothing more.
 * {@code -Dbench.only=3} (or {@code 1,3}) runs only the figures listed, for a quick look at one of them while working
 * on it; the table then holds only their rows.
 */
public final class BenchmarkRunner {

    /** Sizes of one run. */
    public record Config(boolean smoke, int deltaLines, int mixLines, int roundTrips, int roundTripWarmup,
                         int coldStarts, long floodBytes, int isolationTurns, int isolationRounds,
                         Duration isolationBlock, Path results, Set<Integer> figures) {

        public Config {
            figures = Set.copyOf(figures);
        }

        /** The full run documented in BENCHMARKS.md. */
        public static Config full(Path results) {
            return new Config(false, 1_000_000, 200_000, 20_000, 5_000, 5, 100L * 1024 * 1024, 64, 400,
                    Duration.ofSeconds(1), results, Set.of());
        }

        /** The same sizes, running only the given figures (all of them when {@code figures} is empty). */
        public Config only(Set<Integer> figures) {
            return new Config(smoke, deltaLines, mixLines, roundTrips, roundTripWarmup, coldStarts, floodBytes,
                    isolationTurns, isolationRounds, isolationBlock, results, figures);
        }

        boolean runs(int figure) {
            return figures.isEmpty() || figures.contains(figure);
        }

        /** Tiny sizes: seconds, for CI. */
        public static Config smoke(Path results) {
            return new Config(true, 2_000, 500, 200, 50, 1, 1024 * 1024, 4, 5, Duration.ofMillis(50), results,
                    Set.of());
        }
    }

    /** One row of the table. */
    public record Row(String figure, String measurement, String sdk, String baseline, String ratio, String target,
                      String status) {
    }

    /** The outcome of a run: the rows and the raw numbers behind them. */
    public record Report(List<Row> rows, Map<String, Double> numbers, String markdown) {
    }

    private final Config config;
    private final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    private final String classpath = System.getProperty("java.class.path");
    private final Recording recording = Recording.load();
    private final List<Row> rows = new ArrayList<>();
    private final Map<String, Double> numbers = new LinkedHashMap<>();
    private Path work;

    public BenchmarkRunner(Config config) {
        this.config = config;
    }

    public static void main(String[] args) throws Exception {
        boolean smoke = Boolean.getBoolean("bench.smoke");
        Path results = Path.of(System.getProperty("bench.results", "results"));
        Config config = (smoke ? Config.smoke(results) : Config.full(results)).only(figures(
                System.getProperty("bench.only", "")));
        Report report = new BenchmarkRunner(config).run();
        System.out.println();
        System.out.println(report.markdown());
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
                throw new IllegalArgumentException("bench.only lists figure numbers 1-6, not \"" + part + "\"");
            }
            if (figure < 1 || figure > 6) {
                throw new IllegalArgumentException("bench.only lists figure numbers 1-6, not " + figure);
            }
            figures.add(figure);
        }
        return figures;
    }

    /** Runs every selected figure and writes the table. */
    public Report run() throws Exception {
        work = Files.createTempDirectory("codex-bench");
        try {
            if (config.runs(1)) {
                decode();
            }
            if (config.runs(2)) {
                streams();
            }
            if (config.runs(3)) {
                roundTrip();
            }
            if (config.runs(4)) {
                coldStart();
            }
            if (config.runs(5)) {
                memory();
            }
            if (config.runs(6)) {
                isolation();
            }
        } finally {
            deleteTree(work);
        }
        String markdown = markdown();
        Files.createDirectories(config.results());
        String stamp = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Files.writeString(config.results().resolve("bench-" + stamp + ".md"), markdown);
        if (config.figures().isEmpty()) {
            // latest.md stays the latest complete table: a run of some figures only does not replace it.
            Files.writeString(config.results().resolve("latest.md"), markdown);
        }
        return new Report(List.copyOf(rows), Map.copyOf(numbers), markdown);
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
        for (String dataset : List.of("mix", "delta")) {
            List<byte[]> messages = DecodeBenchmark.dataset(dataset);
            long bytes = messages.stream().mapToLong(m -> m.length + 1).sum();
            double decoder = 0;
            double client = 0;
            double tree = 0;
            for (RunResult r : results) {
                if (!dataset.equals(r.getParams().getParam("dataset"))) {
                    continue;
                }
                double opsPerSecond = r.getPrimaryResult().getScore();
                String benchmark = r.getParams().getBenchmark();
                if (benchmark.endsWith("sdkDecoder")) {
                    decoder = opsPerSecond;
                } else if (benchmark.endsWith("sdkClient")) {
                    client = opsPerSecond;
                } else if (benchmark.endsWith("jacksonReadTree")) {
                    tree = opsPerSecond;
                }
            }
            double n = messages.size();
            put("decode." + dataset + ".decoder.msgPerSec", decoder * n);
            put("decode." + dataset + ".client.msgPerSec", client * n);
            put("decode." + dataset + ".readTree.msgPerSec", tree * n);
            String what = dataset.equals("mix") ? "recorded real mix (" + messages.size() + " notifications)"
                    : "agentMessage deltas";
            String baseline = "readTree " + rate(tree * n, tree * bytes);
            rows.add(new Row("1 Decode", what + ": typed decode", rate(decoder * n, decoder * bytes), baseline,
                    x(decoder / tree) + " readTree", "≥ 1.0×", status(decoder / tree >= 1.0)));
            rows.add(new Row("1 Decode", what + ": whole client path (decode, lane, listener)",
                    rate(client * n, client * bytes), baseline, x(client / tree) + " readTree", "—", "info"));
        }
    }

    // ------------------------------------------------------------------------------------------------ 2 streams

    private void streams() throws Exception {
        Path deltas = work.resolve("deltas.jsonl");
        long deltaBytes = Streams.agentMessageDeltas(recording, deltas, config.deltaLines());
        stream("delta", deltas, config.deltaLines(), deltaBytes, true);
        Path mix = work.resolve("mix.jsonl");
        long mixBytes = Streams.recordedMix(recording, mix, config.mixLines());
        stream("mix", mix, config.mixLines(), mixBytes, false);
    }

    private void stream(String name, Path file, int lines, long bytes, boolean targets) throws Exception {
        log("2. stream " + name + ": " + lines + " lines, " + bytes / 1024 / 1024 + " MB");
        // Warm-up of the same code path on a shorter copy (stopping early would cut the child off mid-line).
        Path warmup = work.resolve("warmup-" + name + ".jsonl");
        int warmLines = Math.min(lines, 200_000);
        try (Stream<String> head = Files.lines(file).limit(warmLines)) {
            Files.write(warmup, (Iterable<String>) head::iterator);
        }
        if (!config.smoke()) {
            sdkStream(warmup, warmLines);
        }
        // Each side runs in turn, three times, and reports its median: the machine's load drifts over a run, and
        // interleaving lets every side see the same drift.
        int rounds = config.smoke() ? 1 : 3;
        List<String[]> scripts = new ArrayList<>();
        for (String[] b : new String[][] {{"node", "drain.js", "1.5"}, {"python3", "drain.py", "3"}}) {
            if (available(b[0])) {
                scripts.add(b);
            }
        }
        double[] sdkRuns = new double[rounds];
        // The delta stream also runs with an event listener that does nothing: a listener must not cost the
        // delta path anything (no event is built for a notification).
        double[] listenedRuns = new double[targets ? rounds : 0];
        double[] rawRuns = new double[rounds];
        double[][] scriptRuns = new double[scripts.size()][rounds];
        rawPipe(file, lines);
        for (int r = 0; r < rounds; r++) {
            sdkRuns[r] = perSecond(lines, sdkStream(file, lines, false));
            if (targets) {
                listenedRuns[r] = perSecond(lines, sdkStream(file, lines, true));
            }
            rawRuns[r] = perSecond(lines, rawPipe(file, lines));
            for (int k = 0; k < scripts.size(); k++) {
                scriptRuns[k][r] = perSecond(lines, script(scripts.get(k)[0], scripts.get(k)[1], file, lines));
            }
        }
        double sdk = median(sdkRuns);
        double raw = median(rawRuns);
        double mbPerLine = (double) bytes / lines;
        put("stream." + name + ".sdk.linesPerSec", sdk);
        put("stream." + name + ".raw.linesPerSec", raw);
        String what = name.equals("delta") ? lines + " × item/agentMessage/delta" : lines + " lines of the recorded mix";
        String sdkText = rate(sdk, sdk * mbPerLine);
        for (String[] b : new String[][] {{"node", "drain.js", "1.5"}, {"python3", "drain.py", "3"}}) {
            String label = b[0].equals("python3") ? "python" : b[0];
            double factor = Double.parseDouble(b[2]);
            String target = targets ? "≥ " + b[2] + "×" : "—";
            int k = indexOfCommand(scripts, b[0]);
            if (k < 0) {
                rows.add(new Row("2 Stream", what + " vs " + label, sdkText, b[0] + " not installed", "—", target,
                        "not run"));
                continue;
            }
            double other = median(scriptRuns[k]);
            put("stream." + name + "." + label + ".linesPerSec", other);
            rows.add(new Row("2 Stream", what + " vs " + label, sdkText, label + " " + rate(other, other * mbPerLine),
                    x(sdk / other), target, targets ? status(sdk / other >= factor) : "info"));
        }
        rows.add(new Row("2 Stream", what + " vs raw pipe", sdkText, "raw " + rate(raw, raw * mbPerLine),
                pct(sdk / raw) + " of raw", targets ? "≥ 25%" : "—", targets ? status(sdk / raw >= 0.25) : "info"));
        if (targets) {
            double listened = median(listenedRuns);
            put("stream." + name + ".sdkWithListener.linesPerSec", listened);
            rows.add(new Row("2 Stream", what + " with a no-op event listener vs without",
                    rate(listened, listened * mbPerLine), "without " + sdkText, x(listened / sdk)
                            + " (rounds " + spread(listenedRuns, sdkRuns) + ")", "—", "info"));
        }
    }

    /** The ratio of each round, {@code a[r] / b[r]}, for the spread of a ratio of medians. */
    private static String spread(double[] a, double[] b) {
        StringBuilder text = new StringBuilder();
        for (int r = 0; r < a.length; r++) {
            text.append(r == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f×", a[r] / b[r]));
        }
        return text.toString();
    }

    /** Nanoseconds from the first delivered notification to the last, without an event listener. */
    private long sdkStream(Path file, int lines) throws InterruptedException {
        return sdkStream(file, lines, false);
    }

    /**
     * Nanoseconds from the first delivered notification to the last.
     *
     * @param withListener whether the client has an event listener (one that does nothing)
     */
    @SuppressWarnings("try") // the client only has to stay open while the listener counts
    private long sdkStream(Path file, int lines, boolean withListener) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        AtomicLong count = new AtomicLong();
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        AtomicLong chars = new AtomicLong();
        try (CodexClient client = CodexClient.builder()
                .command(childCommand(file.toString()))
                .eventListener(withListener ? new CodexEventListener() { } : CodexEventListener.NONE)
                .onNotification(n -> {
                    long c = count.incrementAndGet();
                    if (c == 1) {
                        first.set(System.nanoTime());
                    }
                    if (n instanceof ServerNotification.ItemAgentMessageDelta d) {
                        chars.addAndGet(d.params().delta().length());
                    } else if (n instanceof ServerNotification.Unrecognized) {
                        throw new IllegalStateException("a recorded notification did not decode: " + n);
                    }
                    if (c == lines) {
                        last.set(System.nanoTime());
                        done.countDown();
                    }
                })
                .build()) {
            if (!done.await(300, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the SDK delivered " + count.get() + " of " + lines + " lines");
            }
        }
        return last.get() - first.get();
    }

    private static int indexOfCommand(List<String[]> scripts, String command) {
        for (int k = 0; k < scripts.size(); k++) {
            if (scripts.get(k)[0].equals(command)) {
                return k;
            }
        }
        return -1;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** The physical ceiling: bytes off the pipe, lines counted, nothing parsed. */
    private long rawPipe(Path file, int lines) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(childCommand("--immediate", file.toString()));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (InputStream in = p.getInputStream()) {
            byte[] buf = new byte[1 << 16];
            long count = 0;
            long first = 0;
            while (count < lines) {
                int n = in.read(buf);
                if (n < 0) {
                    throw new IllegalStateException("the child ended after " + count + " of " + lines + " lines");
                }
                if (first == 0) {
                    first = System.nanoTime();
                }
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        count++;
                    }
                }
            }
            return System.nanoTime() - first;
        } finally {
            p.getOutputStream().close();
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private long script(String interpreter, String script, Path file, int lines) throws IOException, InterruptedException {
        Path scriptFile = work.resolve(script);
        if (!Files.exists(scriptFile)) {
            try (InputStream in = BenchmarkRunner.class.getResourceAsStream("/baselines/" + script)) {
                Files.copy(in, scriptFile);
            }
        }
        List<String> command = new ArrayList<>(List.of(interpreter, scriptFile.toString(), Integer.toString(lines)));
        command.addAll(childCommand("--immediate", file.toString()));
        Map<String, String> result = runForResult(command, Duration.ofMinutes(10));
        long count = Long.parseLong(result.get("count"));
        if (count != lines) {
            throw new IllegalStateException(interpreter + " read " + count + " of " + lines + " lines");
        }
        return Long.parseLong(result.get("nanos"));
    }

    // ------------------------------------------------------------------------------------------------ 3 round trip

    private void roundTrip() throws Exception {
        log("3. round trip");
        ThreadSetNameParams params = ThreadSetNameParams.builder()
                .threadId("01a200f4-3e2d-7ad3-bee4-1dd83265070f")
                .name("benchmark round trip: a thread name of a realistic length")
                .build();
        long[] sdk = new long[config.roundTrips()];
        try (CodexClient client = CodexClient.builder().command(childCommand()).build()) {
            for (int i = 0; i < config.roundTripWarmup(); i++) {
                client.rpc().call(ClientRequestMethods.THREAD_NAME_SET, params).get(10, TimeUnit.SECONDS);
            }
            for (int i = 0; i < sdk.length; i++) {
                long t = System.nanoTime();
                client.rpc().call(ClientRequestMethods.THREAD_NAME_SET, params).get(10, TimeUnit.SECONDS);
                sdk[i] = System.nanoTime() - t;
            }
        }
        long[] raw = new long[config.roundTrips()];
        String paramsJson = ProtocolJson.mapper().writeValueAsString(params);
        Process p = new ProcessBuilder(childCommand()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (OutputStream out = p.getOutputStream(); InputStream in = p.getInputStream()) {
            byte[] buf = new byte[4096];
            for (int i = 0; i < config.roundTripWarmup() + raw.length; i++) {
                byte[] line = ("{\"id\":" + i + ",\"method\":\"thread/name/set\",\"params\":" + paramsJson + "}\n")
                        .getBytes(StandardCharsets.UTF_8);
                long t = System.nanoTime();
                out.write(line);
                out.flush();
                readLine(in, buf);
                if (i >= config.roundTripWarmup()) {
                    raw[i - config.roundTripWarmup()] = System.nanoTime() - t;
                }
            }
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        Arrays.sort(sdk);
        Arrays.sort(raw);
        long sdk50 = Isolation.percentile(sdk, 0.5);
        long sdk99 = Isolation.percentile(sdk, 0.99);
        long raw50 = Isolation.percentile(raw, 0.5);
        long raw99 = Isolation.percentile(raw, 0.99);
        put("roundTrip.sdk.p50Micros", sdk50 / 1e3);
        put("roundTrip.sdk.p99Micros", sdk99 / 1e3);
        put("roundTrip.raw.p50Micros", raw50 / 1e3);
        put("roundTrip.raw.p99Micros", raw99 / 1e3);
        double ratio = (double) sdk50 / raw50;
        rows.add(new Row("3 Round trip", "thread/name/set → {} against the bench app-server child",
                "p50 " + micros(sdk50) + ", p99 " + micros(sdk99),
                "raw pipe ping-pong p50 " + micros(raw50) + ", p99 " + micros(raw99),
                "p50 " + x(ratio) + " raw", "p50 ≤ 2×", status(ratio <= 2)));
    }

    private static void readLine(InputStream in, byte[] buf) throws IOException {
        int n = 0;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the child ended");
            }
            if (b == '\n') {
                return;
            }
            if (n < buf.length) {
                buf[n++] = (byte) b;
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ 4 cold start

    private void coldStart() throws Exception {
        log("4. cold start");
        ColdStartJvms jvms = ColdStartJvms.create(java, work.resolve("cold-start"));
        // Each side gets its own archive from a training run of itself, as an application would build one.
        Optional<Path> sdkArchive = jvms.train(Side.SDK);
        Optional<Path> baselineArchive = jvms.train(Side.BASELINE);
        String noCds = sdkArchive.isPresent() && baselineArchive.isPresent() ? ""
                : "this JVM wrote no CDS archive (see the [bench] lines of the run)";
        int n = config.coldStarts();
        List<Sample> sdk = new ArrayList<>();
        List<Sample> baseline = new ArrayList<>();
        List<Sample> sdkCds = new ArrayList<>();
        List<Sample> baselineCds = new ArrayList<>();
        // Interleaved, so that load from other processes on the machine hits every variant alike.
        for (int i = 0; i < n; i++) {
            baseline.add(jvms.sample(Side.BASELINE, Optional.empty()));
            sdk.add(jvms.sample(Side.SDK, Optional.empty()));
            if (noCds.isEmpty()) {
                baselineCds.add(jvms.sample(Side.BASELINE, baselineArchive));
                sdkCds.add(jvms.sample(Side.SDK, sdkArchive));
            }
        }
        // One more run with class-load logging on stdout, where it interleaves with the phase lines: counts the
        // protocol classes (and below, with CDS, shows that the archives were used).
        ColdStartJvms.Loading loading = jvms.loading(Side.SDK, Optional.empty());
        int protocolTotal = ColdStartJvms.protocolClassCount();
        long wallMs = medianWallMs(sdk);
        long baselineMs = medianWallMs(baseline);
        long uptimeMs = median(sdk, Sample::uptimeMs);
        long deltaMs = median(sdk, Sample::deltaUptimeMs);
        long classes = median(sdk, Sample::classes);
        long baselineClasses = median(baseline, Sample::classes);
        put("coldStart.baselineWallMs", (double) baselineMs);
        put("coldStart.wallMs", (double) wallMs);
        put("coldStart.uptimeMs", (double) uptimeMs);
        put("coldStart.deltaUptimeMs", (double) deltaMs);
        put("coldStart.classes", (double) classes);
        put("coldStart.baselineClasses", (double) baselineClasses);
        put("coldStart.protocolClassesAtInit", (double) loading.protocolAtInit());
        put("coldStart.protocolClassesAfterDelta", (double) loading.protocolAfterDelta());
        put("coldStart.protocolClassesTotal", (double) protocolTotal);
        String target = "≤ 400 ms; not all protocol types";
        rows.add(new Row("4 Cold start", "JVM launch → client initialized (median of " + n + ")",
                wallMs + " ms (JVM uptime " + uptimeMs + " ms; first typed delta at " + deltaMs + " ms), "
                        + classes + " classes loaded; protocol classes: " + loading.protocolAtInit() + " at init, "
                        + loading.protocolAfterDelta() + " after one typed delta, of " + protocolTotal,
                "JVM + Jackson readTree of the same response: " + baselineMs + " ms, " + baselineClasses
                        + " classes", x((double) wallMs / baselineMs) + " baseline", target,
                status(wallMs <= 400 && loading.protocolAfterDelta() < protocolTotal)));
        String cdsMeasurement = "the same with an AppCDS archive of a training run (-XX:SharedArchiveFile)";
        if (noCds.isEmpty()) {
            ColdStartJvms.Loading sdkShared = jvms.loading(Side.SDK, sdkArchive);
            ColdStartJvms.Loading baselineShared = jvms.loading(Side.BASELINE, baselineArchive);
            if (sdkShared.fromArchiveAtInit() == 0 || baselineShared.fromArchiveAtInit() == 0) {
                noCds = "the JVM did not use the archives it wrote (-Xlog:class+path=info on a run tells why)";
            } else {
                long cdsMs = medianWallMs(sdkCds);
                long cdsBaselineMs = medianWallMs(baselineCds);
                long cdsUptimeMs = median(sdkCds, Sample::uptimeMs);
                long cdsDeltaMs = median(sdkCds, Sample::deltaUptimeMs);
                put("coldStart.cds.wallMs", (double) cdsMs);
                put("coldStart.cds.baselineWallMs", (double) cdsBaselineMs);
                put("coldStart.cds.uptimeMs", (double) cdsUptimeMs);
                put("coldStart.cds.deltaUptimeMs", (double) cdsDeltaMs);
                put("coldStart.cds.classes", (double) median(sdkCds, Sample::classes));
                put("coldStart.cds.archivedClassesAtInit", (double) sdkShared.fromArchiveAtInit());
                put("coldStart.cds.baselineArchivedClassesAtInit", (double) baselineShared.fromArchiveAtInit());
                rows.add(new Row("4 Cold start", cdsMeasurement + " (median of " + n + ")",
                        cdsMs + " ms (JVM uptime " + cdsUptimeMs + " ms; first typed delta at " + cdsDeltaMs
                                + " ms), " + archived(sdkShared),
                        "JVM + Jackson readTree with its own archive: " + cdsBaselineMs + " ms, "
                                + archived(baselineShared),
                        x((double) cdsMs / cdsBaselineMs) + " baseline", target,
                        status(cdsMs <= 400 && sdkShared.protocolAfterDelta() < protocolTotal)));
            }
        }
        if (!noCds.isEmpty()) {
            rows.add(new Row("4 Cold start", cdsMeasurement, noCds, "—", "—", target, "not run"));
        }
    }

    private static String archived(ColdStartJvms.Loading l) {
        return l.classesAtInit() + " classes loaded (" + l.fromArchiveAtInit() + " from the app's archive, "
                + l.fromJdkArchiveAtInit() + " from the JDK's)";
    }

    private static long medianWallMs(List<Sample> samples) {
        return median(samples, Sample::wallNanos) / 1_000_000;
    }

    private static long median(List<Sample> samples, ToLongFunction<Sample> value) {
        long[] v = samples.stream().mapToLong(value).sorted().toArray();
        return v[v.length / 2];
    }

    // ------------------------------------------------------------------------------------------------ 5 memory

    private void memory() throws Exception {
        log("5. memory: " + config.floodBytes() / 1024 / 1024 + " MB flood with -Xmx64m");
        Path flood = work.resolve("flood.jsonl");
        int lines = Streams.commandOutputFlood(recording, flood, config.floodBytes(), 4096);
        List<String> command = List.of(java, "-Xmx64m", "-cp", classpath, MemoryFlood.class.getName(),
                flood.toString(), Integer.toString(lines), "240", java, classpath);
        Map<String, String> result = runForResult(command, Duration.ofMinutes(5));
        boolean completed = Boolean.parseBoolean(result.get("completed"));
        double peakMb = Long.parseLong(result.get("peakHeapBytes")) / 1048576.0;
        double seconds = Long.parseLong(result.get("nanos")) / 1e9;
        double floodMb = Streams.size(flood) / 1048576.0;
        put("memory.completed", completed ? 1.0 : 0.0);
        put("memory.peakHeapMb", peakMb);
        put("memory.floodMbPerSec", floodMb / seconds);
        rows.add(new Row("5 Memory", String.format(Locale.ROOT, "%.0f MB command-output flood (%d × outputDelta), "
                        + "-Xmx64m", floodMb, lines),
                (completed ? "completed" : "DID NOT COMPLETE") + String.format(Locale.ROOT,
                        ", peak heap %.1f MB, %.0f MB/s", peakMb, floodMb / seconds),
                "heap cap 64 MB", "—", "completes", status(completed)));
    }

    // ------------------------------------------------------------------------------------------------ 6 isolation

    private void isolation() throws Exception {
        log("6. isolation");
        Isolation.Result control = Isolation.run(config.isolationTurns(), config.isolationRounds(),
                Duration.ofMillis(2), Duration.ZERO);
        Isolation.Result r = Isolation.run(config.isolationTurns(), config.isolationRounds(), Duration.ofMillis(2),
                config.isolationBlock());
        put("isolation.control.p99Ms", control.p99Nanos() / 1e6);
        put("isolation.p50Ms", r.p50Nanos() / 1e6);
        put("isolation.p99Ms", r.p99Nanos() / 1e6);
        put("isolation.blockedMaxMs", r.blockedMaxNanos() / 1e6);
        // Isolated: the blocked listener adds nothing near its own block time to the other threads' tail.
        boolean isolated = r.p99Nanos() < config.isolationBlock().toNanos() / 10
                || r.p99Nanos() <= 2 * control.p99Nanos();
        rows.add(new Row("6 Isolation", r.turns() + " concurrent turns; thread A's listener sleeps "
                        + config.isolationBlock().toMillis() + " ms",
                String.format(Locale.ROOT, "other threads' delta latency p50 %.2f ms, p99 %.2f ms, max %.2f ms "
                        + "(%d deltas)", r.p50Nanos() / 1e6, r.p99Nanos() / 1e6, r.maxNanos() / 1e6, r.measured()),
                String.format(Locale.ROOT, "same run, no listener blocking: p50 %.2f ms, p99 %.2f ms; thread A's "
                        + "own deltas waited up to %.0f ms", control.p50Nanos() / 1e6, control.p99Nanos() / 1e6,
                        r.blockedMaxNanos() / 1e6),
                String.format(Locale.ROOT, "p99 %.2f× control", (double) r.p99Nanos() / control.p99Nanos()),
                "B not delayed", status(isolated)));
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private List<String> childCommand(String... args) {
        List<String> command = new ArrayList<>(List.of(java, "-cp", classpath, BenchServer.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    private static Map<String, String> runForResult(List<String> command, Duration timeout)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String resultLine = null;
        try (BufferedReader r = p.inputReader(StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith("RESULT ")) {
                    resultLine = line;
                }
            }
        }
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(command.get(0) + " did not finish within " + timeout);
        }
        if (resultLine == null) {
            throw new IllegalStateException(String.join(" ", command.subList(0, 2)) + " printed no result (exit "
                    + p.exitValue() + ")");
        }
        return parseResult(resultLine);
    }

    private static Map<String, String> parseResult(String line) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String part : line.substring("RESULT ".length()).trim().split(" ")) {
            int eq = part.indexOf('=');
            out.put(part.substring(0, eq), part.substring(eq + 1));
        }
        return out;
    }

    private void put(String key, double value) {
        numbers.put(key, value);
    }

    private static double perSecond(long lines, long nanos) {
        // First line to last line spans lines - 1 intervals.
        return (lines - 1) / (nanos / 1e9);
    }

    private static String rate(double msgsPerSec, double bytesPerSec) {
        return String.format(Locale.ROOT, "%,.0f msg/s (%.1f MB/s)", msgsPerSec, bytesPerSec / 1048576.0);
    }

    private static String x(double ratio) {
        return String.format(Locale.ROOT, "%.2f×", ratio);
    }

    private static String pct(double ratio) {
        return String.format(Locale.ROOT, "%.0f%%", ratio * 100);
    }

    private static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.0f µs", nanos / 1e3);
    }

    private String status(boolean met) {
        return config.smoke() ? "smoke" : met ? "met" : "MISSED";
    }

    private String markdown() {
        StringBuilder s = new StringBuilder();
        s.append(config.smoke() ? "Smoke run (tiny sizes: the numbers mean nothing)\n\n" : "");
        s.append(config.figures().isEmpty() ? "" : "Only figure(s) " + new TreeSet<>(config.figures()) + "\n\n");
        s.append("Machine: ").append(machine()).append("  \n");
        s.append("Date: ").append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_LOCAL_DATE))
                .append(" (UTC)\n\n");
        s.append("| Figure | Measurement | SDK | Baseline (same run) | Ratio | Target | Status |\n");
        s.append("|---|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            s.append("| ").append(String.join(" | ", r.figure(), r.measurement(), r.sdk(), r.baseline(), r.ratio(),
                    r.target(), r.status())).append(" |\n");
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
                + ", node " + version("node", "--version") + ", " + version("python3", "--version");
    }

    private static boolean available(String interpreter) {
        return !version(interpreter, "--version").equals("unavailable");
    }

    private static String version(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return "unavailable";
            }
            return out;
        } catch (IOException | InterruptedException e) {
            return "unavailable";
        }
    }

    private static void log(String what) {
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

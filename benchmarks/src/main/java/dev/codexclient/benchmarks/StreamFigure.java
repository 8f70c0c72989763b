package dev.codexclient.benchmarks;

import static dev.codexclient.benchmarks.Results.median;
import static dev.codexclient.benchmarks.Results.pct;
import static dev.codexclient.benchmarks.Results.range;
import static dev.codexclient.benchmarks.Results.rate;
import static dev.codexclient.benchmarks.Results.x;

import dev.codexclient.CodexClient;
import dev.codexclient.benchmarks.BenchmarkRunner.Row;
import dev.codexclient.benchmarks.Results.Bound;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.protocol.ServerNotification;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Figure 2: a stream of notifications from a child process through the SDK, next to a raw pipe reader, a Node loop
 * and a Python loop reading the same child. Every side runs the same number of rounds, in turn, and every row gives
 * each side's median and its spread (min–max over the rounds).
 */
final class StreamFigure {
    /** The interpreted baselines: command, script, and the delta stream's target against it. */
    private record Script(String interpreter, String file, String label, double target) {
    }

    private static final List<Script> SCRIPTS = List.of(
            new Script("node", "drain.js", "node", 2.0),
            new Script("python3", "drain.py", "python", 4.0));
    private static final double RAW_TARGET = 0.35;

    private final Results out;
    private final Path work;
    private final int rounds;

    StreamFigure(Results out, Path work, int rounds) {
        this.out = out;
        this.work = work;
        this.rounds = rounds;
    }

    void run(Recording recording, int deltaLines, int mixLines) throws Exception {
        Path deltas = work.resolve("deltas.jsonl");
        long deltaBytes = Streams.agentMessageDeltas(recording, deltas, deltaLines);
        stream("delta", deltas, deltaLines, deltaBytes, true);
        Path mix = work.resolve("mix.jsonl");
        long mixBytes = Streams.recordedMix(recording, mix, mixLines);
        stream("mix", mix, mixLines, mixBytes, false);
    }

    private void stream(String name, Path file, int lines, long bytes, boolean targets) throws Exception {
        BenchmarkRunner.log("2. stream " + name + ": " + lines + " lines, " + bytes / 1024 / 1024 + " MB, "
                + rounds + " rounds");
        // Warm-up of the same code path on a shorter copy (stopping early would cut the child off mid-line).
        Path warmup = work.resolve("warmup-" + name + ".jsonl");
        int warmLines = Math.min(lines, 200_000);
        try (Stream<String> head = Files.lines(file).limit(warmLines)) {
            Files.write(warmup, (Iterable<String>) head::iterator);
        }
        if (!out.smoke()) {
            sdkStream(warmup, warmLines, false);
        }
        List<Script> scripts = SCRIPTS.stream().filter(s -> Children.available(s.interpreter())).toList();
        // Each side runs in turn, once per round: the machine's load drifts over a run, and interleaving lets every
        // side see the same drift. Each row gives the median and the spread over the rounds.
        double[] sdkRuns = new double[rounds];
        // The delta stream also runs with a telemetry listener that does nothing: a listener must not cost the
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
                scriptRuns[k][r] = perSecond(lines, script(scripts.get(k), file, lines));
            }
        }
        double sdk = median(sdkRuns);
        double raw = median(rawRuns);
        double mbPerLine = (double) bytes / lines;
        out.put("stream." + name + ".sdk.linesPerSec", sdk);
        out.put("stream." + name + ".sdk.minLinesPerSec", min(sdkRuns));
        out.put("stream." + name + ".sdk.maxLinesPerSec", max(sdkRuns));
        out.put("stream." + name + ".raw.linesPerSec", raw);
        out.put("stream." + name + ".raw.minLinesPerSec", min(rawRuns));
        out.put("stream." + name + ".raw.maxLinesPerSec", max(rawRuns));
        out.put("stream." + name + ".rounds", rounds);
        String what = name.equals("delta") ? lines + " × item/agentMessage/delta"
                : lines + " lines of the recorded mix";
        String sdkText = rate(sdk, sdk * mbPerLine) + spread(sdkRuns);
        for (Script s : SCRIPTS) {
            String target = targets ? "≥ " + Results.number(s.target()) + "×" : "—";
            int k = scripts.indexOf(s);
            if (k < 0) {
                out.add(new Row("2 Stream", what + " vs " + s.label(), sdkText, s.interpreter() + " not installed",
                        "—", target, "not run"));
                continue;
            }
            double other = median(scriptRuns[k]);
            out.put("stream." + name + "." + s.label() + ".linesPerSec", other);
            out.put("stream." + name + "." + s.label() + ".minLinesPerSec", min(scriptRuns[k]));
            out.put("stream." + name + "." + s.label() + ".maxLinesPerSec", max(scriptRuns[k]));
            String status = targets ? out.target("stream.delta.vs" + s.label(), "delta stream, SDK / " + s.label(),
                    sdk / other, Bound.AT_LEAST, s.target(), "×") : "info";
            out.add(new Row("2 Stream", what + " vs " + s.label(), sdkText,
                    s.label() + " " + rate(other, other * mbPerLine) + spread(scriptRuns[k]),
                    x(sdk / other) + " (rounds " + Results.perRound(sdkRuns, scriptRuns[k]) + ")", target, status));
        }
        String rawStatus = targets ? out.target("stream.delta.ofRaw", "delta stream, SDK / raw pipe", sdk / raw,
                Bound.AT_LEAST, RAW_TARGET, "×") : "info";
        out.add(new Row("2 Stream", what + " vs raw pipe", sdkText, "raw " + rate(raw, raw * mbPerLine)
                + spread(rawRuns), pct(sdk / raw) + " of raw (rounds " + rounds(sdkRuns, rawRuns) + ")",
                targets ? "≥ " + pct(RAW_TARGET) : "—", rawStatus));
        if (targets) {
            double listened = median(listenedRuns);
            out.put("stream." + name + ".sdkWithListener.linesPerSec", listened);
            out.add(new Row("2 Stream", what + " with a no-op telemetry listener vs without",
                    rate(listened, listened * mbPerLine) + spread(listenedRuns), "without " + sdkText,
                    x(listened / sdk) + " (rounds " + Results.perRound(listenedRuns, sdkRuns) + ")", "—", "info"));
        }
    }

    /** {@code ", rounds 401k–566k"}: the spread of one side. */
    private static String spread(double[] runs) {
        return "; " + runs.length + (runs.length == 1 ? " round " : " rounds ") + range(runs, Results::kilo);
    }

    private static String rounds(double[] a, double[] b) {
        StringBuilder text = new StringBuilder();
        for (int r = 0; r < a.length; r++) {
            text.append(r == 0 ? "" : ", ").append(pct(a[r] / b[r]));
        }
        return text.toString();
    }

    private static double min(double[] v) {
        return java.util.Arrays.stream(v).min().orElse(Double.NaN);
    }

    private static double max(double[] v) {
        return java.util.Arrays.stream(v).max().orElse(Double.NaN);
    }

    private static double perSecond(long lines, long nanos) {
        // First line to last line spans lines - 1 intervals.
        return (lines - 1) / (nanos / 1e9);
    }

    /**
     * Nanoseconds from the first delivered notification to the last.
     *
     * @param withListener whether the client has a telemetry listener (one that does nothing)
     */
    @SuppressWarnings("try") // the client only has to stay open while the listener counts
    static long sdkStream(Path file, int lines, boolean withListener) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        AtomicLong count = new AtomicLong();
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        AtomicLong chars = new AtomicLong();
        try (CodexClient client = CodexClient.builder()
                .command(Children.benchServer(file.toString()))
                .telemetryListener(withListener ? new CodexTelemetryListener() { } : CodexTelemetryListener.NONE)
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

    /** The physical ceiling: bytes off the pipe, lines counted, nothing parsed. */
    static long rawPipe(Path file, int lines) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Children.benchServer("--immediate", file.toString()))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
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

    private long script(Script s, Path file, int lines) throws IOException, InterruptedException {
        Path scriptFile = work.resolve(s.file());
        if (!Files.exists(scriptFile)) {
            try (InputStream in = StreamFigure.class.getResourceAsStream("/baselines/" + s.file())) {
                Files.copy(in, scriptFile);
            }
        }
        List<String> command = new ArrayList<>(List.of(s.interpreter(), scriptFile.toString(),
                Integer.toString(lines)));
        command.addAll(Children.benchServer("--immediate", file.toString()));
        Map<String, String> result = Children.runForResult(command, Duration.ofMinutes(10));
        long count = Long.parseLong(result.get("count"));
        if (count != lines) {
            throw new IllegalStateException(s.interpreter() + " read " + count + " of " + lines + " lines");
        }
        return Long.parseLong(result.get("nanos"));
    }
}

package dev.codexclient.benchmarks;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.RestartPolicy;
import dev.codexclient.Subscription;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.benchmarks.BenchmarkRunner.Row;
import dev.codexclient.benchmarks.Results.Bound;
import dev.codexclient.internal.transport.NpmLauncher;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ConnectionReplaced;
import dev.codexclient.telemetry.RestartCompleted;
import dev.codexclient.testkit.IsolatedHome;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Figure 12, a restart that costs the same whatever the history: on the real codex with the scripted model, a client
 * under a restart policy holds a few threads of L turns each (one of them with a turn running), and its server is
 * SIGKILLed again and again. Per kill: the time from the kill until every held thread is resumed
 * ({@link RestartCompleted}), and the part of it after the new server's handshake ({@link ConnectionReplaced}), which
 * is the resumes alone. For L = 1, 100 and 1,000. The history is built first, as fast as the model can answer
 * (instantly); how long that took is in the table.
 *
 * <p>Also, once per L, what one thread costs a restart with its turns and without them: after the client is closed,
 * a new server (the native codex, spoken to with JSON lines) resumes one of the threads cold, as a restart does,
 * alternately with its turns and with {@code excludeTurns}. Codex replays the thread's stored history on a new server
 * either way; the turns are what the answer carries on top.
 *
 * <p>Each length runs twice: with the threads as codex stores them (paginated, the default of codex 0.160.0 and
 * later, and never compacted in turns this short), and with each thread compacted ({@code thread/compact/start})
 * every {@link Settings#compactEvery()} turns while its history is built. A paginated thread resumes from its last
 * compaction checkpoint, reading its stored history backwards until it finds one; without one it reads the whole
 * history. The table gives each thread's stored history as codex left it: its size, its checkpoints, and how many
 * items the last checkpoint carries (codex keeps the thread's user messages in it, up to a token budget).
 */
final class RestartFigure {
    /** The target: the resumes at every history length within this factor of each other. */
    static final double TARGET = 1.2;
    /** The text of the turn kept running at each kill: the model never answers it. */
    static final String HOLD = "hold on";
    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Sizes of figure 12.
     *
     * @param lengths the turns each held thread has behind it, one layout each
     * @param threads threads held, one of which has a turn running at each kill
     * @param kills   SIGKILLs per layout
     * @param resumes {@code thread/resume} calls per side for the info row
     * @param compactEvery the turns between two compactions in the compacted layouts; 0 runs none of them
     * @param stored  whether the layout as codex stores the threads (never compacted) is measured
     * @param promptBytes each turn's prompt padded to this many bytes (0: "turn N" alone)
     * @param codexConfig TOML appended to the {@code config.toml} of each layout's codex (empty: none)
     */
    record Settings(List<Integer> lengths, int threads, int kills, int resumes, int compactEvery,
                    boolean stored, int promptBytes, String codexConfig) {
        Settings {
            lengths = List.copyOf(lengths);
        }

        static Settings full() {
            return new Settings(List.of(1, 100, 1000), 3, 7, 5, 64, true, 0, "");
        }

        static Settings smoke() {
            return new Settings(List.of(1, 3), 2, 2, 1, 2, true, 0, "");
        }

        /**
         * These sizes with the {@code bench.restart.*} properties applied: {@code compactEvery} (0 leaves the
         * compacted layouts out), {@code lengths} (comma-separated), {@code layouts} ({@code compacted} leaves the
         * stored layout out, {@code stored} the compacted one), {@code promptBytes} (each turn's prompt padded to
         * that many bytes, so a compaction's budget of user messages fills sooner) and {@code codexConfig} (TOML,
         * {@code \n} a new line). Equal to these sizes when none is set: the run is then a sample of the figure.
         */
        Settings withProperties() {
            String every = property("compactEvery");
            String only = property("lengths");
            String layouts = property("layouts");
            String prompt = property("promptBytes");
            String config = property("codexConfig");
            if (!List.of("", "stored", "compacted").contains(layouts)) {
                throw new IllegalArgumentException("bench.restart.layouts is stored or compacted (both when unset), "
                        + "not " + layouts);
            }
            int compact = every.isBlank() ? compactEvery : Integer.parseInt(every);
            if (layouts.equals("stored")) {
                compact = 0;
            }
            return new Settings(only.isBlank() ? lengths
                    : Arrays.stream(only.split(",")).map(String::trim).map(Integer::valueOf).toList(),
                    threads, kills, resumes, compact, !layouts.equals("compacted") && stored,
                    prompt.isBlank() ? promptBytes : Integer.parseInt(prompt),
                    config.isEmpty() ? codexConfig : config.replace("\\n", "\n"));
        }

        private static String property(String name) {
            return System.getProperty("bench.restart." + name, "").trim();
        }

        /** {@return the compaction intervals measured: 0 (never compacted) unless left out, then {@link #compactEvery()}} */
        List<Integer> compactions() {
            List<Integer> intervals = new ArrayList<>();
            if (stored || compactEvery <= 0) {
                intervals.add(0);
            }
            if (compactEvery > 0) {
                intervals.add(compactEvery);
            }
            return List.copyOf(intervals);
        }

        /** {@return the prompt of turn {@code turn}: "turn N", padded with words to {@link #promptBytes()}} */
        String prompt(int turn) {
            StringBuilder text = new StringBuilder("turn ").append(turn);
            while (text.length() < promptBytes) {
                text.append(" history");
            }
            return text.toString();
        }
    }

    /** One layout measured. */
    record Measured(int length, int compactEvery, double setupSeconds, double[] totalMs, double[] resumeMs,
                    double fullResumeMs, double leanResumeMs, long fullResumeBytes, long leanResumeBytes,
                    StoredHistory stored) {
        String key() {
            return compactEvery == 0 ? "restart.n" + length : "restart.c" + compactEvery + ".n" + length;
        }
    }

    /**
     * One held thread's history as codex stored it: the size of its rollout file, its compaction checkpoints, the
     * items the last one carries and the turns after it.
     */
    record StoredHistory(long bytes, int checkpoints, int lastCheckpointItems, long lastCheckpointBytes) {
        static final StoredHistory NONE = new StoredHistory(0, 0, 0, 0);
    }

    private final Results out;
    private final Path root;
    private final Settings settings;
    /** How many times the model was asked to hold on. */
    private final AtomicInteger holds = new AtomicInteger();

    RestartFigure(Results out, Path work, Settings settings) {
        this.out = out;
        this.root = work.resolve("restart");
        this.settings = settings;
    }

    void run() throws Exception {
        BenchmarkRunner.log("12. restart: threads of " + settings.lengths() + " turns, " + settings.threads()
                + " held, " + settings.kills() + " SIGKILLs each");
        Path launcher = ScalingFigure.binary();
        Path workspace = Files.createDirectories(root.resolve("workspace"));
        List<Measured> measured = new ArrayList<>();
        // Keeping the requests would keep every conversation so far, once per turn: the square of the history.
        try (ScriptedModelServer model = ScriptedModelServer.start().recordRequests(false)) {
            model.whenAlways(r -> {
                if (r.lastUserText().equals(HOLD)) {
                    holds.incrementAndGet();
                    return true;
                }
                return false;
            }, ModelStep.stall(Duration.ofMinutes(30)));
            model.whenAlways(r -> true, ModelStep.reply("ok"));
            for (int compactEvery : settings.compactions()) {
                for (int length : settings.lengths()) {
                    measured.add(layout(launcher, model, workspace, length, compactEvery));
                }
            }
        }
        report(measured);
    }

    private Measured layout(Path launcher, ScriptedModelServer model, Path workspace, int length, int compactEvery)
            throws Exception {
        Restarts restarts = new Restarts();
        try (IsolatedHome home = IsolatedHome.in(root.resolve("home-" + length + "-c" + compactEvery))) {
            model.writeCodexHome(home.codexHome());
            if (!settings.codexConfig().isEmpty()) {
                // An experiment's codex settings (-Dbench.restart.codexConfig).
                Files.writeString(home.codexHome().resolve("config.toml"), "\n" + settings.codexConfig() + "\n",
                        StandardOpenOption.APPEND);
            }
            try (CodexClient client = CodexClient.builder()
                    .codexBinary(launcher)
                    .workingDirectory(workspace)
                    .clientInfo("codex-client-benchmarks", "codex-client restart benchmark", "0")
                    .requestTimeout(TIMEOUT)
                    .initializeTimeout(TIMEOUT)
                    .stdio(home::applyEnvironment)
                    .restartPolicy(RestartPolicy.builder().maxAttempts(3).backoff(Duration.ZERO,
                            Duration.ofMillis(10)).budget(1000, Duration.ofMinutes(10)).build())
                    .telemetryListener(restarts)
                    .build()) {
                long setupStarted = System.nanoTime();
                List<CodexThread> threads = history(client, workspace, length, compactEvery);
                double setupSeconds = (System.nanoTime() - setupStarted) / 1e9;
                BenchmarkRunner.log(String.format(Locale.ROOT, "12. restart: %d threads of %d turns built in %.0f s%s",
                        threads.size(), length, setupSeconds,
                        compactEvery == 0 ? "" : ", compacted every " + compactEvery + " turns"));
                List<Subscription> listening = new ArrayList<>();
                threads.forEach(t -> listening.add(t.onEvent(n -> { })));
                CodexThread busy = threads.get(0);
                double[] total = new double[settings.kills()];
                double[] resume = new double[settings.kills()];
                for (int k = 0; k < settings.kills(); k++) {
                    int asked = holds.get();
                    busy.startTurnAsync(HOLD);
                    awaitHold(asked + 1);
                    restarts.clear();
                    long killed = System.nanoTime();
                    client.serverProcessTree().forEach(ProcessHandle::destroyForcibly);
                    long replaced = next(restarts.replaced, "the new server's handshake");
                    long doneAt = next(restarts.completedAt, "the end of the restart");
                    RestartCompleted done = next(restarts.completed, "the end of the restart");
                    if (done.threadsResumed() != threads.size()) {
                        throw new IllegalStateException("the restart after kill " + (k + 1) + " resumed "
                                + done.threadsResumed() + " of " + threads.size() + " threads");
                    }
                    total[k] = (doneAt - killed) / 1e6;
                    resume[k] = (doneAt - replaced) / 1e6;
                }
                listening.forEach(Subscription::close);
                client.close();
                String last = threads.get(threads.size() - 1).id();
                double[] cold = coldResumes(launcher, home, workspace, last);
                return new Measured(length, compactEvery, setupSeconds, total, resume, cold[0], cold[1],
                        (long) cold[2], (long) cold[3], stored(home.codexHome(), last));
            }
        }
    }

    /**
     * {@code threads} threads of {@code length} turns each, the threads built in parallel; each compacted after every
     * {@code compactEvery} turns (none when 0), the next turn started once the compaction has ended (a turn started
     * while codex compacts is refused).
     */
    private List<CodexThread> history(CodexClient client, Path workspace, int length, int compactEvery)
            throws Exception {
        ExecutorService builders = Executors.newFixedThreadPool(settings.threads());
        try {
            List<Future<CodexThread>> building = new ArrayList<>();
            for (int i = 0; i < settings.threads(); i++) {
                building.add(builders.submit(() -> {
                    CodexThread t = client.startThread(ThreadStartParams.builder().cwd(workspace.toString())
                            .approvalPolicy(AskForApproval.Simple.NEVER).sandbox(SandboxMode.DANGER_FULL_ACCESS)
                            .build());
                    BlockingQueue<Boolean> ended = new LinkedBlockingQueue<>();
                    Subscription ends = t.onEvent(n -> {
                        if (n instanceof ServerNotification.TurnCompleted) {
                            ended.add(Boolean.TRUE);
                        }
                    });
                    try {
                        for (int turn = 0; turn < length; turn++) {
                            t.startTurn(settings.prompt(turn)).await(TIMEOUT);
                            next(ended, "the end of turn " + turn);
                            if (compactEvery > 0 && (turn + 1) % compactEvery == 0) {
                                t.compact();
                                next(ended, "the end of the compaction after turn " + turn);
                            }
                        }
                    } finally {
                        ends.close();
                    }
                    return t;
                }));
            }
            List<CodexThread> threads = new ArrayList<>();
            for (Future<CodexThread> f : building) {
                threads.add(f.get());
            }
            return threads;
        } finally {
            builders.shutdownNow();
        }
    }

    /**
     * A new server per {@code thread/resume} of {@code threadId}, cold, alternately with its turns and without:
     * the median time of each, and the size of each answer.
     */
    private double[] coldResumes(Path launcher, IsolatedHome home, Path workspace, String threadId) throws Exception {
        Map<String, String> environment = new HashMap<>(System.getenv());
        home.applyEnvironment(environment);
        List<String> command = List.of(launcher.toString(), "app-server");
        if (NpmLauncher.resolve(launcher, environment) instanceof NpmLauncher.Native nativeCodex) {
            nativeCodex.applyTo(environment);
            command = List.of(nativeCodex.binary().toString(), "app-server");
        }
        double[] full = new double[settings.resumes()];
        double[] lean = new double[settings.resumes()];
        long[] bytes = new long[2];
        for (int i = 0; i < settings.resumes(); i++) {
            for (int side = 0; side < 2; side++) {
                try (RawCodex codex = RawCodex.start(command, environment, workspace, TIMEOUT)) {
                    codex.initialize();
                    long started = System.nanoTime();
                    bytes[side] = codex.resume(threadId, side == 1);
                    (side == 0 ? full : lean)[i] = (System.nanoTime() - started) / 1e6;
                }
            }
        }
        return new double[] {Results.median(full), Results.median(lean), bytes[0], bytes[1]};
    }

    /** The stored history of {@code threadId} under {@code codexHome}: its rollout file, read once. */
    static StoredHistory stored(Path codexHome, String threadId) throws IOException {
        Path sessions = codexHome.resolve("sessions");
        if (!Files.isDirectory(sessions)) {
            return StoredHistory.NONE;
        }
        Optional<Path> rollout;
        try (Stream<Path> files = Files.walk(sessions)) {
            rollout = files.filter(f -> f.getFileName().toString().endsWith(threadId + ".jsonl")).findFirst();
        }
        if (rollout.isEmpty()) {
            return StoredHistory.NONE;
        }
        int checkpoints = 0;
        int lastItems = 0;
        long lastBytes = 0;
        try (BufferedReader lines = Files.newBufferedReader(rollout.get(), StandardCharsets.UTF_8)) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (!line.contains("\"type\":\"compacted\"")) {
                    continue;
                }
                JsonNode checkpoint = JSON.readTree(line);
                if (!"compacted".equals(checkpoint.path("type").asText())) {
                    continue;
                }
                checkpoints++;
                lastItems = checkpoint.path("payload").path("replacement_history").size();
                lastBytes = line.length();
            }
        }
        return new StoredHistory(Files.size(rollout.get()), checkpoints, lastItems, lastBytes);
    }

    private static <T> T next(BlockingQueue<T> queue, String what) throws InterruptedException {
        T value = queue.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        if (value == null) {
            throw new IllegalStateException("no " + what + " within " + TIMEOUT);
        }
        return value;
    }

    /** Waits, boundedly, until the model was asked {@code count} times to hold on: the turn runs then. */
    private void awaitHold(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (holds.get() < count) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the held turn never reached the model");
            }
            Thread.sleep(5);
        }
    }

    private void report(List<Measured> measured) {
        for (int compactEvery : settings.compactions()) {
            report(measured.stream().filter(m -> m.compactEvery() == compactEvery).toList(), compactEvery);
        }
    }

    private void report(List<Measured> measured, int compactEvery) {
        String variant = (compactEvery == 0 ? "" : ", compacted every " + compactEvery + " turns")
                + (settings.promptBytes() > 0 ? ", prompts of " + settings.promptBytes() + " bytes" : "");
        String targetId = compactEvery == 0 ? "restart.flat" : "restart.flat.compacted";
        StringBuilder table = new StringBuilder("### 12 Restart: SIGKILL with threads of growing history"
                + variant + "\n\n")
                .append(settings.threads()).append(" threads held (one with a turn running), ")
                .append(settings.kills()).append(" SIGKILLs per history length; resume: handshake done → every held "
                        + "thread resumed; whole: kill → every held thread resumed. Cold thread/resume: one thread "
                        + "on a new server, with its turns / without (excludeTurns), median of ")
                .append(settings.resumes()).append(", and the size of the answer.\n\n")
                .append(" Stored: the last held thread's rollout as codex left it, its compaction checkpoints and the "
                        + "items the last one carries.\n\n")
                .append("| Turns per thread | History built in | Resume p50 | Resume min–max | Whole p50 | "
                        + "Whole min–max | Cold thread/resume with turns | without | Stored |\n"
                        + "|---|---|---|---|---|---|---|---|---|\n");
        double lowest = Double.MAX_VALUE;
        double highest = 0;
        Measured first = measured.get(0);
        for (Measured m : measured) {
            String key = m.key();
            double resume = Results.median(m.resumeMs());
            double whole = Results.median(m.totalMs());
            lowest = Math.min(lowest, resume);
            highest = Math.max(highest, resume);
            out.put(key + ".resumeMs", resume);
            out.put(key + ".wholeMs", whole);
            out.put(key + ".setupSeconds", m.setupSeconds());
            out.put(key + ".fullResumeMs", m.fullResumeMs());
            out.put(key + ".leanResumeMs", m.leanResumeMs());
            table.append(String.format(Locale.ROOT,
                    "| %d | %.0f s | %.0f ms | %s | %.0f ms | %s | %.0f ms, %s | %.0f ms, %s | %s |%n", m.length(),
                    m.setupSeconds(), resume, spread(m.resumeMs()), whole, spread(m.totalMs()), m.fullResumeMs(),
                    kb(m.fullResumeBytes()), m.leanResumeMs(), kb(m.leanResumeBytes()), stored(m.stored())));
            out.put(key + ".storedBytes", m.stored().bytes());
            out.put(key + ".checkpoints", m.stored().checkpoints());
            out.put(key + ".lastCheckpointItems", m.stored().lastCheckpointItems());
            if (m != first) {
                out.add(new Row("12 Restart", m.length() + " turns per thread × " + settings.threads() + " held"
                        + variant + ", SIGKILL, median of " + settings.kills(),
                        String.format(Locale.ROOT, "resume %.0f ms (%s); whole %.0f ms (%s)", resume,
                                spread(m.resumeMs()), whole, spread(m.totalMs())),
                        String.format(Locale.ROOT, "1 turn per thread: resume %.0f ms; whole %.0f ms",
                                Results.median(first.resumeMs()), Results.median(first.totalMs())),
                        Results.x(resume / Results.median(first.resumeMs())) + " resume, "
                                + Results.x(whole / Results.median(first.totalMs())) + " whole",
                        "—", "info"));
            }
            out.add(new Row("12 Restart", "cold thread/resume of a thread of " + m.length() + " turns" + variant
                    + " on a new server, with its turns (as before) against without (median of " + settings.resumes()
                    + ")",
                    String.format(Locale.ROOT, "without %.0f ms, %s", m.leanResumeMs(), kb(m.leanResumeBytes())),
                    String.format(Locale.ROOT, "with %.0f ms, %s", m.fullResumeMs(), kb(m.fullResumeBytes())),
                    Results.x(m.leanResumeMs() / m.fullResumeMs()), "—", "info"));
            out.put(key + ".fullResumeBytes", m.fullResumeBytes());
            out.put(key + ".leanResumeBytes", m.leanResumeBytes());
        }
        double ratio = highest / lowest;
        out.put(targetId + ".ratio", ratio);
        String status = out.target(targetId, "resume of held threads after a SIGKILL" + variant
                + ", slowest / fastest history length", ratio, Bound.AT_MOST, TARGET, "×");
        out.add(new Row("12 Restart", "resume of held threads after a SIGKILL across " + settings.lengths()
                + " turns per thread" + variant, String.format(Locale.ROOT, "slowest median %.0f ms", highest),
                String.format(Locale.ROOT, "fastest median %.0f ms", lowest), Results.x(ratio),
                "≤ " + Results.number(TARGET) + "×", status));
        out.section(table.toString());
    }

    private static String stored(StoredHistory h) {
        if (h.bytes() == 0) {
            return "—";
        }
        return String.format(Locale.ROOT, "%.1f MB, %d checkpoint%s", h.bytes() / 1e6, h.checkpoints(),
                h.checkpoints() == 1 ? "" : "s")
                + (h.checkpoints() == 0 ? "" : String.format(Locale.ROOT, ", the last %d items (%.0f KB)",
                h.lastCheckpointItems(), h.lastCheckpointBytes() / 1024.0));
    }

    private static String kb(long bytes) {
        return String.format(Locale.ROOT, "%.1f KB", bytes / 1024.0);
    }

    private static String spread(double[] values) {
        return Results.range(values, v -> String.format(Locale.ROOT, "%.0f", v)) + " ms";
    }

    /** When the restarts of the client's connection reach their steps. */
    private static final class Restarts implements CodexTelemetryListener {
        final BlockingQueue<Long> replaced = new LinkedBlockingQueue<>();
        final BlockingQueue<RestartCompleted> completed = new LinkedBlockingQueue<>();
        final BlockingQueue<Long> completedAt = new LinkedBlockingQueue<>();

        void clear() {
            replaced.clear();
            completed.clear();
            completedAt.clear();
        }

        @Override
        public void connectionReplaced(ConnectionReplaced event) {
            replaced.add(System.nanoTime());
        }

        @Override
        public void restartCompleted(RestartCompleted event) {
            completedAt.add(System.nanoTime());
            completed.add(event);
        }
    }
}

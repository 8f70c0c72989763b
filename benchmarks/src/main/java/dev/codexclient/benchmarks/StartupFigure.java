package dev.codexclient.benchmarks;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.benchmarks.BenchmarkRunner.Row;
import dev.codexclient.benchmarks.Results.Bound;
import dev.codexclient.internal.transport.NpmLauncher;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.IsolatedHome;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Figure 11, time to ready, on the real codex (the pinned version, or {@code -Dcodex.binary}) with the scripted model:
 * how long a user waits from {@code build()} to the first event of the first turn, and how much of it is
 * {@code build()} (spawn and handshake). Four ways, each once per round, in an order that turns with the rounds, with
 * one {@code CODEX_HOME} for all:
 * <ul>
 *   <li><b>floor</b>: the native codex spawned bare and spoken to with hand-written JSON lines ({@link RawCodex}):
 *       spawn + {@code initialize} answered, then on through {@code thread/start} and {@code turn/start} to the
 *       turn's first notification;</li>
 *   <li><b>bare launcher</b>: the same through the npm launcher (node, then the native codex);</li>
 *   <li><b>SDK</b>: {@code CodexClient.builder()...build()} as a user writes it, which runs the native codex in place
 *       of the launcher, then {@code startThread}, {@code startTurn} and the turn's first event;</li>
 *   <li><b>SDK, launcher kept</b>: the same with {@code bypassNpmLauncher(false)}.</li>
 * </ul>
 * Each server is closed before the next is started. The target compares the SDK's {@code build()} with the floor's
 * spawn + {@code initialize}: the ratio of the medians, with the rounds' own ratios as its spread.
 */
final class StartupFigure {
    /** The target: {@code build()} at most this many times the bare native spawn + {@code initialize}. */
    static final double TARGET = 1.25;

    enum Way {
        FLOOR("floor", "bare native codex"),
        BARE_LAUNCHER("bareLauncher", "bare npm launcher"),
        SDK("sdk", "SDK"),
        SDK_LAUNCHER("sdkLauncher", "SDK, launcher kept");

        final String key;
        final String text;

        Way(String key, String text) {
            this.key = key;
            this.text = text;
        }
    }

    /** One sample: to the handshake ({@code build()}, or spawn + {@code initialize}), and to the first event. */
    record Sample(long readyNanos, long firstEventNanos) {
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final Results out;
    private final Path root;
    private final int warmup;
    private final int rounds;

    StartupFigure(Results out, Path work, int warmup, int rounds) {
        this.out = out;
        this.root = work.resolve("startup");
        this.warmup = warmup;
        this.rounds = rounds;
    }

    void run() throws Exception {
        BenchmarkRunner.log("11. time to ready: " + warmup + " warm-up and " + rounds + " measured rounds");
        Path launcher = ScalingFigure.binary();
        Path workspace = Files.createDirectories(root.resolve("workspace"));
        try (ScriptedModelServer model = ScriptedModelServer.start();
             IsolatedHome home = IsolatedHome.in(root.resolve("home"))) {
            model.whenAlways(r -> true, ModelStep.reply("ready"));
            model.writeCodexHome(home.codexHome());
            Map<String, String> environment = new HashMap<>(System.getenv());
            home.applyEnvironment(environment);
            NpmLauncher.Resolution resolved = NpmLauncher.resolve(launcher, environment);
            if (!(resolved instanceof NpmLauncher.Native nativeCodex)) {
                out.add(new Row("11 Time to ready", "build() and the first event of the first turn", "not run",
                        launcher + " is not the npm launcher of codex, whose native binary is the floor", "—",
                        "≤ " + Results.number(TARGET) + "×", "not run"));
                return;
            }
            Map<String, String> nativeEnvironment = new HashMap<>(environment);
            nativeCodex.applyTo(nativeEnvironment);
            Map<Way, List<Sample>> samples = new EnumMap<>(Way.class);
            Way[] ways = Way.values();
            for (int round = 0; round < warmup + rounds; round++) {
                for (int i = 0; i < ways.length; i++) {
                    Way way = ways[(i + round) % ways.length];
                    Sample s = switch (way) {
                        case FLOOR -> raw(List.of(nativeCodex.binary().toString(), "app-server"), nativeEnvironment,
                                workspace);
                        case BARE_LAUNCHER -> raw(List.of(launcher.toString(), "app-server"), environment, workspace);
                        case SDK -> sdk(launcher, home, workspace, true);
                        case SDK_LAUNCHER -> sdk(launcher, home, workspace, false);
                    };
                    if (round >= warmup) {
                        samples.computeIfAbsent(way, w -> new ArrayList<>()).add(s);
                    }
                }
            }
            report(samples);
        }
    }

    private static Sample raw(List<String> command, Map<String, String> environment, Path workspace)
            throws Exception {
        long started = System.nanoTime();
        try (RawCodex codex = RawCodex.start(command, environment, workspace, TIMEOUT)) {
            codex.initialize();
            long ready = System.nanoTime();
            codex.firstTurnEvent(workspace, "hello");
            return new Sample(ready - started, System.nanoTime() - started);
        }
    }

    private static Sample sdk(Path launcher, IsolatedHome home, Path workspace, boolean bypass) throws Exception {
        CompletableFuture<Long> firstEvent = new CompletableFuture<>();
        long started = System.nanoTime();
        try (CodexClient client = CodexClient.builder()
                .codexBinary(launcher)
                .workingDirectory(workspace)
                .clientInfo("codex-client-benchmarks", "codex-client startup benchmark", "0")
                .requestTimeout(TIMEOUT)
                .initializeTimeout(TIMEOUT)
                .stdio(home::applyEnvironment)
                .stdio(s -> s.bypassNpmLauncher(bypass))
                .build()) {
            long ready = System.nanoTime();
            CodexThread thread = client.startThread(ThreadStartParams.builder().cwd(workspace.toString())
                    .approvalPolicy(AskForApproval.Simple.NEVER).sandbox(SandboxMode.DANGER_FULL_ACCESS).build());
            // Before the turn starts: the turn's first event is the thread's first event of a turn.
            thread.onEvent(n -> {
                if (n.method().startsWith("turn/")) {
                    firstEvent.complete(System.nanoTime());
                }
            });
            thread.startTurn("hello");
            long event = firstEvent.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            return new Sample(ready - started, event - started);
        }
    }

    private void report(Map<Way, List<Sample>> samples) {
        Map<Way, double[]> ready = new EnumMap<>(Way.class);
        Map<Way, double[]> event = new EnumMap<>(Way.class);
        for (Way w : Way.values()) {
            ready.put(w, samples.get(w).stream().mapToDouble(s -> s.readyNanos() / 1e6).toArray());
            event.put(w, samples.get(w).stream().mapToDouble(s -> s.firstEventNanos() / 1e6).toArray());
            out.put("startup." + w.key + ".readyMs", Results.median(ready.get(w)));
            out.put("startup." + w.key + ".firstEventMs", Results.median(event.get(w)));
        }
        double floor = Results.median(ready.get(Way.FLOOR));
        double build = Results.median(ready.get(Way.SDK));
        double ratio = build / floor;
        double[] perRound = ratios(ready.get(Way.SDK), ready.get(Way.FLOOR));
        out.put("startup.build.ratio", ratio);
        out.put("startup.build.ratioMin", min(perRound));
        out.put("startup.build.ratioMax", max(perRound));
        String status = out.target("startup.build", "build() on the real codex / bare native spawn + initialize",
                ratio, Bound.AT_MOST, TARGET, "×");
        String floorText = "bare native spawn + initialize " + ms(floor) + " (" + spread(ready.get(Way.FLOOR)) + ")";
        out.add(new Row("11 Time to ready", "build() (spawn + handshake), median of " + rounds,
                ms(build) + " (" + spread(ready.get(Way.SDK)) + ")", floorText,
                Results.x(ratio) + " (rounds " + Results.x(min(perRound)) + "–" + Results.x(max(perRound)) + ")",
                "≤ " + Results.number(TARGET) + "×", status));
        for (Way w : List.of(Way.SDK_LAUNCHER, Way.BARE_LAUNCHER)) {
            double[] r = ratios(ready.get(w), ready.get(Way.FLOOR));
            double median = Results.median(ready.get(w));
            out.put("startup." + w.key + ".ratio", median / floor);
            out.add(new Row("11 Time to ready", (w == Way.SDK_LAUNCHER ? "build() with the npm launcher kept"
                    : "bare npm launcher spawn + initialize") + ", median of " + rounds,
                    ms(median) + " (" + spread(ready.get(w)) + ")", floorText,
                    Results.x(median / floor) + " (rounds " + Results.x(min(r)) + "–" + Results.x(max(r)) + ")",
                    "—", "info"));
        }
        double eventFloor = Results.median(event.get(Way.FLOOR));
        String eventFloorText = "bare native codex, the same requests as JSON lines " + ms(eventFloor) + " ("
                + spread(event.get(Way.FLOOR)) + ")";
        for (Way w : List.of(Way.SDK, Way.SDK_LAUNCHER, Way.BARE_LAUNCHER)) {
            double[] r = ratios(event.get(w), event.get(Way.FLOOR));
            double median = Results.median(event.get(w));
            out.put("startup." + w.key + ".firstEventRatio", median / eventFloor);
            out.add(new Row("11 Time to ready", "start → thread/start → turn/start → the turn's first event, "
                    + w.text + ", median of " + rounds, ms(median) + " (" + spread(event.get(w)) + ")",
                    eventFloorText,
                    Results.x(median / eventFloor) + " (rounds " + Results.x(min(r)) + "–" + Results.x(max(r)) + ")",
                    "—", "info"));
        }
    }

    private static double[] ratios(double[] a, double[] b) {
        double[] r = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[i] / b[i];
        }
        return r;
    }

    private static double min(double[] v) {
        return java.util.Arrays.stream(v).min().orElse(Double.NaN);
    }

    private static double max(double[] v) {
        return java.util.Arrays.stream(v).max().orElse(Double.NaN);
    }

    private static String spread(double[] values) {
        return Results.range(values, v -> String.format(Locale.ROOT, "%.0f", v)) + " ms";
    }

    private static String ms(double millis) {
        return String.format(Locale.ROOT, "%.0f ms", millis);
    }
}

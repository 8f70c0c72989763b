package dev.codexclient.benchmarks;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.pool.CodexPool;
import dev.codexclient.pool.PooledThread;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.IsolatedHome;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Figure 8: many threads on the real codex app-server (the pinned version) driven by the testkit's scripted model.
 * For each number of threads N: one app-server carrying N threads, one app-server per thread, and a pool of three
 * app-servers carrying N threads, each under the same load ({@link TurnLoad}); its turn latency, its throughput, and
 * the memory of its servers ({@link ServerMemory}) with the N threads idle, at the peak of the load and at its end;
 * and, as the base of "per server", one app-server with no thread, the native codex alone (as the client runs it)
 * and under its npm launcher. {@link ScalingTable} writes the rows.
 *
 * <p>Each server gets its own {@code HOME} and {@code CODEX_HOME} under the run's directory; servers are started at
 * most {@link ScalingSettings#spawnParallelism()} at a time, and every process they ran is ended when the figure
 * ends, also when it fails ({@link ServerProcesses}); the processes closing left behind are counted.
 */
final class ScalingFigure {
    /** The streamed reply of every turn without a command: 68 agent-message deltas of 8 characters. */
    static final String PROSE = ("The module builds in three steps: it resolves its dependencies, compiles the "
            + "sources and runs the tests; each step reports what it did. ").repeat(4);

    /** The layouts, in the order of the table. */
    enum Layout {
        IDLE_SERVER("baseline", "one app-server, no thread (after initialize)"),
        IDLE_SERVER_LAUNCHER("baselineLauncher", "one app-server through the npm launcher, no thread"),
        ONE_SERVER("one", "one app-server"),
        SERVER_PER_THREAD("perThread", "one app-server per thread"),
        POOL_OF_3("pool3", "a pool of 3 app-servers");

        final String key;
        final String text;

        Layout(String key, String text) {
            this.key = key;
            this.text = text;
        }
    }

    /**
     * One measured (N, layout).
     *
     * @param processes server processes alive at the end of the load (launchers, native codex, commands)
     * @param load      null for the idle baseline
     * @param turns     turns per thread
     * @param seconds   how long the layout took, servers' start and close included
     */
    record Measured(Layout layout, int threads, int servers, int processes, TurnLoad.Result load, int turns,
                    double seconds,
                    ServerMemory.Sample idle, ServerMemory.Sample peak, ServerMemory.Sample end) {
    }

    /** Samples of which the idle memory is the floor ({@link ServerMemory#settled}). */
    private static final int IDLE_SAMPLES = 5;

    private final Results out;
    private final Path root;
    private final ScalingSettings settings;
    private final ServerProcesses processes;
    private final AtomicInteger homes = new AtomicInteger();
    private Path codex;
    private Path workspace;
    private ScriptedModelServer model;
    private ExecutorService driver;

    ScalingFigure(Results out, Path work, ScalingSettings settings) {
        this.out = out;
        this.root = work.resolve("scaling");
        this.settings = settings;
        this.processes = new ServerProcesses(root);
    }

    /** Runs every (N, layout) and adds the rows; ends every server process, also when it fails. */
    void run() throws Exception {
        BenchmarkRunner.log("8. scaling: N = " + settings.sizes() + ", " + settings.turns() + " turns per thread, "
                + settings.minTurns() + " in all at the least");
        codex = binary();
        workspace = Files.createDirectories(root.resolve("workspace"));
        List<Measured> measured = new ArrayList<>();
        int left = 0;
        model = ScriptedModelServer.start();
        driver = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "bench-scaling-driver");
            t.setDaemon(true);
            return t;
        });
        try {
            script(model);
            measured.add(idleServer(Layout.IDLE_SERVER));
            left += processes.sweep();
            measured.add(idleServer(Layout.IDLE_SERVER_LAUNCHER));
            left += processes.sweep();
            for (int n : settings.sizes()) {
                for (Layout layout : List.of(Layout.ONE_SERVER, Layout.SERVER_PER_THREAD, Layout.POOL_OF_3)) {
                    long started = System.nanoTime();
                    Measured m = switch (layout) {
                        case ONE_SERVER -> oneServer(n);
                        case SERVER_PER_THREAD -> serverPerThread(n);
                        default -> pool(n);
                    };
                    left += processes.sweep();
                    double seconds = (System.nanoTime() - started) / 1e9;
                    BenchmarkRunner.log(String.format(java.util.Locale.ROOT, "8. scaling: N = %d, %s: %.0f s", n,
                            layout.text, seconds));
                    measured.add(new Measured(m.layout(), m.threads(), m.servers(), m.processes(), m.load(),
                            m.turns(), seconds, m.idle(), m.peak(), m.end()));
                }
            }
        } finally {
            driver.shutdownNow();
            try {
                left += processes.sweep();
            } finally {
                model.close();
            }
        }
        out.put("scaling.leftProcesses", left);
        new ScalingTable(out).add(measured, left);
    }

    /** The codex of {@code -Dcodex.binary} or {@code $CODEX_BINARY}, else the pinned one (installed if missing). */
    static Path binary() {
        String configured = System.getProperty("codex.binary", System.getenv("CODEX_BINARY"));
        return configured != null && !configured.isBlank() ? Path.of(configured) : CodexBinary.pinned();
    }

    /**
     * The scripted model, the same for every thread: a command turn calls {@code exec_command}, and once the
     * command's output is back, replies; any other turn streams {@link #PROSE}.
     */
    private static void script(ScriptedModelServer model) {
        model.whenAlways(ScalingFigure::afterToolCall, ModelStep.reply("The check passed: all good."));
        model.whenAlways(r -> r.lastUserText().startsWith(TurnLoad.COMMAND), ModelStep.callTool("exec_command",
                Map.of("cmd", "echo check; ls -1 | head -5", "login", false)));
        model.whenAlways(r -> true, ModelStep.reply(PROSE));
    }

    private static boolean afterToolCall(dev.codexclient.testkit.ModelRequest r) {
        var input = r.input();
        return !input.isEmpty() && input.get(input.size() - 1).path("type").asText().endsWith("_output");
    }

    /** Threads that run commands without asking and without a sandbox helper: the turn is the server's work. */
    private ThreadStartParams params() {
        return ThreadStartParams.builder()
                .cwd(workspace.toString())
                .approvalPolicy(AskForApproval.Simple.NEVER)
                .sandbox(SandboxMode.DANGER_FULL_ACCESS)
                .build();
    }

    /** A client builder for a server of its own: a fresh HOME and CODEX_HOME under the figure's directory. */
    private CodexClientBuilder server() {
        return server(true);
    }

    /** The same, running the npm launcher in any case when {@code bypassLauncher} is false. */
    private CodexClientBuilder server(boolean bypassLauncher) {
        IsolatedHome home = IsolatedHome.in(root.resolve("home-" + homes.incrementAndGet()));
        model.writeCodexHome(home.codexHome());
        return CodexClient.builder()
                .codexBinary(codex)
                .workingDirectory(workspace)
                .clientInfo("codex-client-benchmarks", "codex-client scaling benchmark", "0")
                .requestTimeout(Duration.ofSeconds(120))
                .initializeTimeout(Duration.ofSeconds(120))
                .stdio(home::applyEnvironment)
                .stdio(stdio -> stdio.bypassNpmLauncher(bypassLauncher));
    }

    private CodexClient spawn() {
        return spawn(true);
    }

    private CodexClient spawn(boolean bypassLauncher) {
        CodexClient client = server(bypassLauncher).build();
        processes.track(client);
        return client;
    }

    // ------------------------------------------------------------------------------------------------ layouts

    /** One app-server with no thread, the native codex alone or under its npm launcher. */
    private Measured idleServer(Layout layout) throws Exception {
        BenchmarkRunner.log("8. scaling: " + layout.text);
        try (CodexClient client = spawn(layout == Layout.IDLE_SERVER)) {
            ServerMemory.Sample idle = ServerMemory.settled(client::serverProcessTree, IDLE_SAMPLES,
                    settings.sampleEvery());
            return new Measured(layout, 0, 1, idle.processes(), null, 0, 0, idle, idle, idle);
        }
    }

    private Measured oneServer(int n) throws Exception {
        BenchmarkRunner.log("8. scaling: N = " + n + ", one app-server");
        try (CodexClient client = spawn()) {
            List<CompletableFuture<CodexThread>> starting = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                starting.add(client.startThreadAsync(params()));
            }
            List<Function<String, CompletableFuture<CodexTurn>>> lanes = new ArrayList<>();
            for (CompletableFuture<CodexThread> t : starting) {
                CodexThread thread = t.get();
                lanes.add(thread::startTurnAsync);
            }
            return measure(Layout.ONE_SERVER, n, 1, lanes, client::serverProcessTree);
        }
    }

    private Measured serverPerThread(int n) throws Exception {
        BenchmarkRunner.log("8. scaling: N = " + n + ", one app-server per thread");
        List<CodexClient> clients = Collections.synchronizedList(new ArrayList<>());
        ExecutorService starter = Executors.newFixedThreadPool(settings.spawnParallelism());
        try {
            List<Future<CodexThread>> starting = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                starting.add(starter.submit(() -> {
                    CodexClient client = spawn();
                    clients.add(client);
                    return client.startThread(params());
                }));
            }
            List<Function<String, CompletableFuture<CodexTurn>>> lanes = new ArrayList<>();
            for (Future<CodexThread> t : starting) {
                CodexThread thread = get(t);
                lanes.add(thread::startTurnAsync);
            }
            return measure(Layout.SERVER_PER_THREAD, n, n, lanes, () -> trees(clients));
        } finally {
            closeAll(clients, starter);
        }
    }

    private Measured pool(int n) throws Exception {
        BenchmarkRunner.log("8. scaling: N = " + n + ", a pool of 3 app-servers");
        // No cap below N and room for every turn: the pool only places threads, as the other layouts do not queue.
        try (CodexPool pool = CodexPool.builder()
                .spawned(3, this::server)
                .maxTurnsPerMember(n)
                .maxQueuedTurnsPerMember(n)
                .build()) {
            List<CodexClient> members = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                CodexClient member = pool.memberClient("spawned-" + i).orElseThrow();
                processes.track(member);
                members.add(member);
            }
            List<Function<String, CompletableFuture<CodexTurn>>> lanes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                PooledThread thread = pool.startThread(params());
                lanes.add(thread::startTurnAsync);
            }
            return measure(Layout.POOL_OF_3, n, 3, lanes, () -> trees(members));
        }
    }

    /** The memory with the threads idle, the load with its peak, and the memory at its end. */
    private Measured measure(Layout layout, int n, int servers,
                             List<Function<String, CompletableFuture<CodexTurn>>> lanes,
                             Supplier<List<ProcessHandle>> trees) throws Exception {
        ServerMemory.Sample idle = ServerMemory.settled(trees, IDLE_SAMPLES, settings.sampleEvery());
        int turns = settings.turnsPerThread(n);
        TurnLoad.Result load;
        ServerMemory.Sample peak;
        ServerMemory.Peak sampler = new ServerMemory.Peak(trees, processes::seen, settings.sampleEvery());
        try {
            load = TurnLoad.run(lanes, turns, settings.loadTimeout(), driver);
        } finally {
            sampler.close();
        }
        peak = sampler.peak();
        List<ProcessHandle> atEnd = trees.get();
        ServerMemory.Sample end = ServerMemory.of(atEnd);
        return new Measured(layout, n, servers, peak.processes(), load, turns, 0, idle, peak, end);
    }

    private static List<ProcessHandle> trees(List<CodexClient> clients) {
        List<ProcessHandle> all = new ArrayList<>();
        synchronized (clients) {
            for (CodexClient c : clients) {
                all.addAll(c.serverProcessTree());
            }
        }
        return all;
    }

    /** Closes the clients, {@code starter}'s threads at a time, after every start has ended. */
    private static void closeAll(List<CodexClient> clients, ExecutorService starter) throws InterruptedException {
        starter.shutdown();
        starter.awaitTermination(5, java.util.concurrent.TimeUnit.MINUTES);
        ExecutorService closer = Executors.newFixedThreadPool(4);
        try {
            synchronized (clients) {
                for (CodexClient c : clients) {
                    closer.execute(c::close);
                }
            }
        } finally {
            closer.shutdown();
            closer.awaitTermination(5, java.util.concurrent.TimeUnit.MINUTES);
        }
    }

    private static <T> T get(Future<T> future) throws Exception {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }
}

package dev.codexclient.benchmarks;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexTurn;
import dev.codexclient.DynamicTool;
import dev.codexclient.RestartPolicy;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.benchmarks.SoakLedger.Outcome;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.pool.CodexPool;
import dev.codexclient.pool.MemberStats;
import dev.codexclient.pool.PooledThread;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadLoadedListParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.IsolatedHome;
import java.io.BufferedReader;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The soak: a pool of real app-servers (the pinned codex, {@link SoakSettings#members()} of them on one
 * {@code CODEX_HOME}) under a steady stream of turns from {@link SoakSettings#workers()} conversations, a third of
 * them asking for a command's approval and a third calling a dynamic tool, while a random member's server is
 * SIGKILLed every {@link SoakSettings#killEvery()}. Each minute it counts the turns completed, failed typed, failed
 * untyped and hung, and the duplicates, and samples the client's heap after a GC, its live threads, its open file
 * descriptors and its child processes; at the end it closes everything and counts what is left. The scripted model
 * runs in a JVM of its own ({@link SoakModel}), so the client's JVM holds only the client and its load.
 * {@link SoakReport} writes the rows, the per-minute table and the plot.
 */
final class SoakFigure {
    private static final String[] KINDS = {SoakModel.CHAT, SoakModel.APPROVE, SoakModel.CALL};
    /** How long a killed member may take to serve again before the kill counts as one it did not come back from. */
    private static final Duration SERVING_AGAIN_WAIT = Duration.ofSeconds(60);
    /** No kill closer to the end than this. */
    private static final Duration LAST_KILL_BEFORE_END = Duration.ofSeconds(15);
    /** How long one probe of a killed member's new server may take. */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    private final Results out;
    private final Path root;
    private final Path results;
    private final SoakSettings settings;
    private final ServerProcesses processes;
    /**
     * The ledger the handlers and the model's reader count in: the load's own once the pool is built (its clock
     * starts with the load); before that, one that nothing reads (the clients' handshakes answer no request).
     */
    private final AtomicReference<SoakLedger> ledgerHolder = new AtomicReference<>(new SoakLedger(System.nanoTime(), 1));
    private volatile boolean stopping;

    SoakFigure(Results out, Path work, Path results, SoakSettings settings) {
        this.out = out;
        this.root = work.resolve("soak");
        this.results = results;
        this.settings = settings;
        this.processes = new ServerProcesses(root);
    }

    void run() throws Exception {
        BenchmarkRunner.log("soak: " + settings.minutes() + " min, " + settings.members() + " members, "
                + settings.workers() + " conversations, a SIGKILL every " + settings.killEvery().toSeconds() + " s"
                + (settings.warmSpare() ? ", a warm spare" : ""));
        Path workspace = Files.createDirectories(root.resolve("workspace"));
        IsolatedHome home = IsolatedHome.in(root.resolve("home"));
        // What the JVM holds before the soak touches anything: the end is compared with it.
        long fdsBefore = SoakLedger.openFds();
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        Process model = startModel(home.codexHome());
        SoakLedger ledger = null;
        int left;
        long fdsAfter;
        int threadsAfter;
        long codexThreadsAfter;
        try {
            awaitPort(model, ledgerHolder);
            Path codex = binary();
            ThreadStartParams params = ThreadStartParams.builder().cwd(workspace.toString())
                    .approvalPolicy(AskForApproval.Simple.UNTRUSTED).sandbox(SandboxMode.WORKSPACE_WRITE).build();
            CodexPool.Builder builder = CodexPool.builder()
                    .spawned(settings.members(), () -> client(codex, workspace, home))
                    .sharedStorage(true)
                    .healthCheckEvery(Duration.ofSeconds(5), Duration.ofSeconds(5))
                    .maxTurnsPerMember(8).maxQueuedTurnsPerMember(64);
            if (settings.warmSpare()) {
                builder.warmSpare(() -> track(client(codex, workspace, home).build()));
            }
            CodexPool pool = builder.build();
            pool.stats().forEach(s -> s.serverPid().flatMap(ProcessHandle::of).ifPresent(processes::seen));
            ledger = new SoakLedger(System.nanoTime(), settings.minutes());
            ledgerHolder.set(ledger);
            try {
                load(pool, params, ledger);
            } finally {
                pool.close();
            }
        } finally {
            model.getOutputStream().close();
            if (!model.waitFor(30, TimeUnit.SECONDS)) {
                model.destroyForcibly();
            }
            left = processes.sweep();
        }
        codexThreadsAfter = awaitCodexThreadsGone();
        System.gc();
        fdsAfter = SoakLedger.openFds();
        threadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
        new SoakReport(out, results, settings).add(ledger, new SoakReport.End(left,
                ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count(), codexThreadsAfter,
                fdsBefore, fdsAfter, threadsBefore, threadsAfter));
    }

    // ------------------------------------------------------------------------------------------------ the load

    /** Runs the workers, the killer and the sampler for the soak's duration, then waits for the workers' last turn. */
    private void load(CodexPool pool, ThreadStartParams params, SoakLedger ledger) throws Exception {
        long end = System.nanoTime() + settings.duration().toNanos();
        ledger.sample(0);
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "soak-timer");
            t.setDaemon(true);
            return t;
        });
        AtomicInteger minute = new AtomicInteger();
        timers.scheduleAtFixedRate(() -> ledger.sample(minute.incrementAndGet()), 1, 1, TimeUnit.MINUTES);
        Random random = new Random(settings.seed());
        timers.scheduleAtFixedRate(() -> {
            // A kill right at the end would be cut off by the close: the member's return could not be seen.
            if (end - System.nanoTime() > LAST_KILL_BEFORE_END.toNanos()) {
                kill(pool, random, ledger);
            }
        }, settings.killEvery().toMillis(), settings.killEvery().toMillis(), TimeUnit.MILLISECONDS);
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < settings.workers(); w++) {
            int worker = w;
            Thread t = new Thread(() -> converse(pool, params, ledger, worker, end), "soak-worker-" + w);
            t.setDaemon(true);
            t.start();
            workers.add(t);
        }
        try {
            for (Thread t : workers) {
                t.join(settings.duration().plus(settings.turnTimeout()).plusMinutes(1).toMillis());
            }
        } finally {
            stopping = true;
            timers.shutdownNow();
            timers.awaitTermination(SERVING_AGAIN_WAIT.toSeconds() + 10, TimeUnit.SECONDS);
        }
        if (minute.get() < settings.minutes()) {
            ledger.sample(settings.minutes());
        }
    }

    /** One conversation: turns back to back until the end, a new thread every so many turns. */
    private void converse(CodexPool pool, ThreadStartParams params, SoakLedger ledger, int worker, long end) {
        PooledThread thread = null;
        int onThread = 0;
        for (int n = 0; System.nanoTime() < end; n++) {
            if (thread == null || onThread >= settings.turnsPerThread()) {
                try {
                    thread = pool.startThread(params);
                    onThread = 0;
                } catch (CodexException e) {
                    ledger.ended(Outcome.FAILED_TYPED, "thread/start", e);
                    pause(Duration.ofMillis(200)); // no member serves right now: not a busy loop
                    continue;
                }
            }
            String token = "w" + worker + "-" + n;
            boolean refused = turn(thread, KINDS[n % KINDS.length] + " " + token, ledger, token);
            onThread++;
            if (refused) {
                thread = null; // the server refused the thread (it lost it): a new conversation starts
            }
        }
    }

    /** One turn, bounded by the turn timeout, its outcome recorded; true when the server refused it. */
    private boolean turn(PooledThread thread, String text, SoakLedger ledger, String token) {
        long deadline = System.nanoTime() + settings.turnTimeout().toNanos();
        CompletableFuture<CodexTurn> started = thread.startTurnAsync(text);
        CodexTurn turn = null;
        Outcome outcome;
        Throwable failure = null;
        try {
            turn = started.get(remaining(deadline), TimeUnit.NANOSECONDS);
            TurnResult r = turn.result().get(remaining(deadline), TimeUnit.NANOSECONDS);
            outcome = r.status() == TurnStatus.COMPLETED ? Outcome.COMPLETED : Outcome.FAILED_TYPED;
        } catch (TimeoutException e) {
            outcome = Outcome.HUNG;
            // What the report says of it: where it stopped, on which thread, member and turn.
            token = token + " (" + (turn == null ? "never started" : "turn " + turn.id() + " never ended")
                    + ", thread " + thread.id() + " on " + thread.memberName() + ")";
            started.cancel(true);
            if (turn != null) {
                turn.interruptAsync();
            }
        } catch (ExecutionException e) {
            failure = e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
            outcome = failure instanceof CodexException ? Outcome.FAILED_TYPED : Outcome.UNTYPED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        if (turn != null) {
            ledger.turnEnded(thread.id() + " " + turn.id());
        }
        ledger.ended(outcome, token, failure);
        return failure instanceof CodexRpcException;
    }

    private static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    /**
     * SIGKILLs a random member's server and waits until the member serves on a new one: its server's pid changed and
     * a cheap call ({@code thread/loaded/list}) is answered there. The time covers the pool or the client noticing
     * the loss, the new server's start (none with a warm spare) and its handshake.
     */
    private void kill(CodexPool pool, Random random, SoakLedger ledger) {
        if (stopping) {
            return;
        }
        List<MemberStats> members = pool.stats();
        MemberStats victim = members.get(random.nextInt(members.size()));
        Optional<CodexClient> client = pool.memberClient(victim.name());
        if (client.isEmpty() || victim.serverPid().isEmpty()) {
            return;
        }
        long pid = victim.serverPid().get();
        double at = ledger.secondsNow();
        long killed = System.nanoTime();
        client.get().serverProcessTree().forEach(p -> {
            processes.seen(p);
            p.destroyForcibly();
        });
        long servingAgainMs = -1;
        while (System.nanoTime() - killed < SERVING_AGAIN_WAIT.toNanos() && !stopping) {
            Optional<MemberStats> now = pool.stats().stream().filter(s -> s.name().equals(victim.name()))
                    .findFirst();
            Optional<CodexClient> current = pool.memberClient(victim.name());
            if (now.isPresent() && current.isPresent() && now.get().serverPid().filter(p -> p != pid).isPresent()
                    && serves(current.get())) {
                servingAgainMs = (System.nanoTime() - killed) / 1_000_000;
                now.get().serverPid().flatMap(ProcessHandle::of).ifPresent(processes::seen);
                break;
            }
            pause(Duration.ofMillis(20));
        }
        ledger.killed(new SoakLedger.Kill(at, victim.name(), servingAgainMs));
    }

    /** Whether the client's server answers a cheap call now: an answer, even an error, is a server that serves. */
    private static boolean serves(CodexClient client) {
        try {
            client.rpc().threadLoadedList(new ThreadLoadedListParams(null, 1L))
                    .get(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
            return cause instanceof CodexRpcException;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    // ------------------------------------------------------------------------------------------------ setup

    /** A member's client: the pinned codex on the shared home, a restart policy, the approval and the tool. */
    private CodexClientBuilder client(Path codex, Path workspace, IsolatedHome home) {
        ObjectNode schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        schema.putObject("properties").putObject("id").put("type", "string");
        return CodexClient.builder()
                .codexBinary(codex)
                .workingDirectory(workspace)
                .clientInfo("codex-client-benchmarks", "codex-client soak", "0")
                .requestTimeout(Duration.ofSeconds(60))
                .initializeTimeout(Duration.ofSeconds(60))
                .stdio(home::applyEnvironment)
                .restartPolicy(RestartPolicy.builder().backoff(Duration.ofMillis(100), Duration.ofSeconds(2))
                        .build())
                .experimentalApi(true)
                .commandApprovals(ApprovalPolicy.sync(c -> {
                    ledgerHolder.get().answered(c.params().threadId() + " " + c.params().turnId(),
                            "approval " + c.params().itemId());
                    return ApprovalDecision.ACCEPT;
                }))
                .tool(DynamicTool.ofAsync(SoakModel.TOOL, "Looks up a record by id", schema, (args, call, m) -> {
                    ledgerHolder.get().answered(call.threadId() + " " + call.turnId(), "tool " + call.callId());
                    return CompletableFuture.completedFuture(ToolResult.text("record " + args.path("id").asText()
                            + " is current"));
                }));
    }

    private CodexClient track(CodexClient client) {
        client.serverProcessTree().forEach(processes::seen);
        return client;
    }

    private static Process startModel(Path codexHome) throws IOException {
        return new ProcessBuilder(Children.JAVA, "-Xmx256m", "-cp", Children.CLASSPATH, SoakModel.class.getName(),
                codexHome.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** Reads the model's {@code PORT} line, then hands its {@code DUPLICATE} lines to the ledger of the moment. */
    private static void awaitPort(Process model, AtomicReference<SoakLedger> ledger)
            throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = model.inputReader(StandardCharsets.UTF_8)) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    if (line.startsWith("PORT ")) {
                        ready.countDown();
                    } else if (line.startsWith("DUPLICATE ")) {
                        ledger.get().duplicate();
                    }
                }
            } catch (IOException e) {
                // the model ended
            }
        }, "soak-model-reader");
        reader.setDaemon(true);
        reader.start();
        if (!ready.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the soak's model did not start within 60 s");
        }
    }

    /** Waits a little for the client's own threads to end after the close; returns how many are left. */
    private static long awaitCodexThreadsGone() throws InterruptedException {
        long left = 0;
        for (int i = 0; i < 100; i++) {
            left = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                    .filter(t -> t.getName().startsWith("codex-") && !t.getName().startsWith("codex-shared-"))
                    .count();
            if (left == 0) {
                return 0;
            }
            Thread.sleep(100);
        }
        return left;
    }

    private static Path binary() {
        String configured = System.getProperty("codex.binary", System.getenv("CODEX_BINARY"));
        return configured != null && !configured.isBlank() ? Path.of(configured) : CodexBinary.pinned();
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package dev.codexclient.internal.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.PublisherOverflow;
import dev.codexclient.RestartPolicy;
import dev.codexclient.RetryPolicy;
import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.requests.RequestHandlers;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.telemetry.CodexTelemetryListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A client's runtime on scripted connections, a manual clock and an executor that runs each task at once, on the
 * thread that hands it over: whatever a step of a test sets off has happened when the step returns, and time moves
 * only when the test moves it. The parts are the runtime's own; only the server and the clock are played.
 */
final class SessionHarness implements AutoCloseable {
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** The restart policy's only wait, so that one advance of the clock starts the next attempt. */
    static final Duration BACKOFF = Duration.ofMillis(100);

    final ManualScheduler clock = new ManualScheduler();
    final List<ScriptedPeer> peers = new ArrayList<>();
    final ClientRuntime runtime;
    private final java.util.concurrent.ExecutorService executor;

    /** An executor that runs every task on the calling thread, until it is shut down. */
    static final class InlineExecutor extends AbstractExecutorService {
        private volatile boolean shutdown;

        @Override
        public void execute(Runnable task) {
            if (shutdown) {
                throw new RejectedExecutionException("shut down");
            }
            task.run();
        }

        @Override
        public void shutdown() {
            shutdown = true;
        }

        @Override
        public List<Runnable> shutdownNow() {
            shutdown = true;
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return shutdown;
        }

        @Override
        public boolean isTerminated() {
            return shutdown;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }

    /**
     * An executor that runs every task on the calling thread until {@link #step()} is called; from then on it keeps
     * the tasks it is given until the test runs them ({@link #runQueued()}), so that a test sees the client's state
     * between what the reader thread does and what the lanes do.
     */
    static final class SteppedExecutor extends AbstractExecutorService {
        private final java.util.concurrent.LinkedBlockingDeque<Runnable> queued =
                new java.util.concurrent.LinkedBlockingDeque<>();
        private volatile boolean stepping;
        private volatile boolean shutdown;

        /** From now on tasks wait for the test. */
        void step() {
            stepping = true;
        }

        /** Runs the tasks queued, and those they queue, until none is left; returns how many ran. */
        int runQueued() {
            int ran = 0;
            Runnable t;
            while ((t = queued.poll()) != null) {
                t.run();
                ran++;
            }
            return ran;
        }

        /** Runs what waits, and every task from now on, on the calling thread again. */
        void release() {
            stepping = false;
            runQueued();
        }

        /** {@return how many tasks wait} */
        int waiting() {
            return queued.size();
        }

        @Override
        public void execute(Runnable task) {
            if (shutdown) {
                throw new RejectedExecutionException("shut down");
            }
            if (stepping) {
                queued.add(task);
            } else {
                task.run();
            }
        }

        @Override
        public void shutdown() {
            shutdown = true;
        }

        @Override
        public List<Runnable> shutdownNow() {
            shutdown = true;
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return shutdown;
        }

        @Override
        public boolean isTerminated() {
            return shutdown;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }

    /** @param restarts whether the client restarts a lost connection (at most {@code 3} attempts per restart) */
    SessionHarness(boolean restarts) {
        this(restarts, new InlineExecutor());
    }

    /**
     * @param restarts whether the client restarts a lost connection
     * @param executor the client's callback executor
     */
    SessionHarness(boolean restarts, java.util.concurrent.ExecutorService executor) {
        Optional<RestartPolicy> policy = restarts ? Optional.of(RestartPolicy.builder().maxAttempts(3)
                .backoff(BACKOFF, BACKOFF).build()) : Optional.empty();
        ClientSettings settings = new ClientSettings(this::nextPeer, policy, Optional.empty(),
                new ClientSettings.Introduction("test", "Test", "0", false, Set.of(), Optional.empty(),
                        "experimentalApi(true)"),
                REQUEST_TIMEOUT, REQUEST_TIMEOUT, Duration.ofSeconds(5), Optional.empty(), RetryPolicy.none(),
                Optional.empty(), 1_000, 1 << 20, 64, PublisherOverflow.FAIL, Duration.ZERO, new Redactor(), Optional.of(clock),
                CodexTelemetryListener.NONE, List.of(), new RequestHandlers(null, Map.of(), Map.of(), Map.of(),
                List.of()));
        this.executor = executor;
        this.runtime = new ClientRuntime(settings, nextPeer(), executor, true);
        runtime.start();
    }

    /** Whether the servers of the connections made from now on answer {@code initialize}. */
    volatile boolean serversAnswerInitialize = true;

    private synchronized ScriptedPeer nextPeer() {
        ScriptedPeer p = new ScriptedPeer("#" + peers.size(), serversAnswerInitialize);
        peers.add(p);
        return p;
    }

    /** {@return the server of connection {@code n} (0 is the first)} */
    synchronized ScriptedPeer peer(int n) {
        return peers.get(n);
    }

    /** {@return the server of the latest connection} */
    synchronized ScriptedPeer latest() {
        return peers.get(peers.size() - 1);
    }

    /** Starts a thread, the latest server answering with {@code threadId}. */
    ThreadLink startThread(String threadId) throws Exception {
        CompletableFuture<ThreadLink> started = runtime.startThread(ThreadStartParams.builder().build(),
                List.of()).async();
        latest().respond(latest().take("thread/start"), threadResult(threadId, "idle"));
        return started.get(1, TimeUnit.SECONDS);
    }

    /** Starts a turn on {@code link}'s thread, the latest server naming it {@code turnId}. */
    TurnState startTurn(ThreadLink link, String turnId) throws Exception {
        CompletableFuture<TurnState> started = link.startTurn(turnParams(link.id())).async();
        latest().respond(latest().take("turn/start"), turnResult(turnId));
        return started.get(1, TimeUnit.SECONDS);
    }

    static TurnStartParams turnParams(String threadId) {
        return TurnStartParams.builder().threadId(threadId).input(List.of(dev.codexclient.Inputs.text("go"))).build();
    }

    /** The result of a request that describes a thread ({@code thread/start}, {@code thread/resume}). */
    static ObjectNode threadResult(String threadId, String status, JsonNode... turns) {
        ObjectNode result = ScriptedPeer.JSON.createObjectNode();
        result.set("thread", thread(threadId, status, turns));
        return result;
    }

    static ObjectNode thread(String threadId, String status, JsonNode... turns) {
        ObjectNode t = ScriptedPeer.JSON.createObjectNode().put("id", threadId).put("preview", "")
                .put("modelProvider", "openai").put("createdAt", 1).put("updatedAt", 1).put("cwd", "/w")
                .put("cliVersion", "0").put("ephemeral", false);
        t.putObject("status").put("type", status);
        t.put("source", "appServer");
        t.putArray("turns").addAll(List.of(turns));
        return t;
    }

    static ObjectNode turn(String turnId, String status) {
        ObjectNode t = ScriptedPeer.JSON.createObjectNode().put("id", turnId).put("status", status);
        t.putArray("items");
        return t;
    }

    static ObjectNode turnResult(String turnId) {
        ObjectNode result = ScriptedPeer.JSON.createObjectNode();
        result.set("turn", turn(turnId, "inProgress"));
        return result;
    }

    /** The params of a notification of a turn: the thread and turn ids. */
    static ObjectNode ofTurn(String threadId, String turnId) {
        return ScriptedPeer.JSON.createObjectNode().put("threadId", threadId).put("turnId", turnId);
    }

    /** The params of {@code turn/started}. */
    static ObjectNode started(String threadId, String turnId) {
        ObjectNode p = ScriptedPeer.JSON.createObjectNode().put("threadId", threadId);
        p.set("turn", turn(turnId, "inProgress"));
        return p;
    }

    /** An agent message delta of a turn. */
    static ObjectNode delta(String threadId, String turnId, String text) {
        return ofTurn(threadId, turnId).put("itemId", "m").put("delta", text);
    }

    /** The params of {@code turn/completed}. */
    static ObjectNode completed(String threadId, String turnId) {
        ObjectNode p = ScriptedPeer.JSON.createObjectNode().put("threadId", threadId);
        p.set("turn", turn(turnId, "completed"));
        return p;
    }

    @Override
    public void close() {
        if (executor instanceof SteppedExecutor stepped) {
            // What the close queues on the lanes runs at once, as on a client's own executor.
            stepped.release();
        }
        runtime.close(Duration.ZERO);
    }
}

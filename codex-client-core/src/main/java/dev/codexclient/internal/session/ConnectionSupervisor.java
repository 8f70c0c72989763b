package dev.codexclient.internal.session;

import dev.codexclient.RestartPolicy;
import dev.codexclient.ServerInfo;
import dev.codexclient.ServerRequestWithdrawnException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.telemetry.ConnectionReplaced;
import dev.codexclient.telemetry.Disconnected;
import dev.codexclient.telemetry.RestartCompleted;
import dev.codexclient.telemetry.RestartGaveUp;
import dev.codexclient.internal.telemetry.TelemetryEmitter;
import dev.codexclient.internal.requests.ServerRequestCarryOver;
import dev.codexclient.internal.rpc.Callbacks;
import dev.codexclient.internal.rpc.ResponseLane;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadResumeResponse;
import dev.codexclient.protocol.ThreadTurnsListResponse;
import dev.codexclient.transport.Transport;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's connection to its server, replaceable: it owns the connection of the moment (a generation), and,
 * with a {@link RestartPolicy}, the loop that replaces a lost one and the wait of the calls made meanwhile.
 *
 * <p>Without a policy a lost connection ends the client, as it always did. With one, the loss of the current
 * connection (noticed after the events it had delivered reached their listeners) starts a restart: the policy's
 * attempts follow, each after its backoff on the client's scheduler. An attempt opens a new transport from the
 * factory, redoes the handshake and resumes ({@code thread/resume}) the threads the user holds; only then does the
 * new connection become current, so a call made during the restart (which waits, within its timeout) never reaches
 * a server that does not know its thread yet. The turns that were running are settled by their thread's resume: a
 * server reached again may still run them (they go on), may have finished them (they complete from its report);
 * otherwise they fail with {@link dev.codexclient.errors.CodexServerRestartedException}. Handlers of server requests
 * still deciding at the loss are carried over to the requests' replay ({@link ServerRequestCarryOver}). A restart the
 * policy gives up on ends the client.
 *
 * <p>The supervisor runs the restart: the attempts, their backoff and their end. The resume rounds of an attempt are
 * {@link ResumeRounds}'s; the policy's budget of attempts over every restart is {@link RestartBudget}'s.
 *
 * <p>Threading: losses are reported on the lost connection's delivery lane; attempts run on the callback executor.
 * The current generation is read without locks; each generation's loss is handled once.
 */
public final class ConnectionSupervisor {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(ConnectionSupervisor.class);
    }

    /** What the runtime does at the edges of a connection's life. */
    interface Edges {
        /** Starts {@code connection} and performs the handshake on it, without blocking. */
        CompletableFuture<ServerInfo> handshake(RpcConnection connection);

        /** The server of a new connection described itself. */
        void replaced(ServerInfo info);

        /** What the server that described itself so can leave out of a thread's history. */
        TurnPaging paging(ServerInfo info);

        /** The connection ended for good (no policy, the policy gave up, or the user closed the client). */
        void ended(CodexTransportException cause);
    }

    /** One connection: the transport, the dispatcher over it, and the connection that replaced it, once one has. */
    static final class Generation {
        final long number;
        final Transport transport;
        final RpcConnection connection;
        /** Completes with the replacing generation; fails when there will be none. */
        final CompletableFuture<Generation> next = new CompletableFuture<>();
        private final AtomicBoolean lossHandled = new AtomicBoolean();
        /** Set when the connection ended; read by the publication of a connection lost while being set up. */
        private volatile CodexTransportException lostCause;
        /** What its server can leave out of a thread's history; known once its handshake is done. */
        volatile TurnPaging paging = TurnPaging.NONE;

        Generation(long number, Transport transport, BiFunction<Transport, RpcConnection.Handler, RpcConnection> open,
                   RpcConnection.Handler handler) {
            this.number = number;
            this.transport = transport;
            this.connection = open.apply(transport, handler);
        }
    }

    private final RestartPolicy policy;
    private final Supplier<? extends Transport> transports;
    private final BiFunction<Transport, RpcConnection.Handler, RpcConnection> open;
    private final Function<Link, RpcConnection.Handler> sessions;
    private final Scheduler scheduler;
    private final Duration requestTimeout;
    private final HeldThreads held;
    private final TelemetryEmitter telemetry;
    private final Edges client;
    private final Callbacks callbacks;
    private final boolean ownsCallbacks;
    /** Set once the first handshake succeeded: a server that fails its first handshake is not restarted. */
    private volatile boolean established;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The server's requests whose handling outlives a lost connection, for their replay on the new one. */
    private final ServerRequestCarryOver carried;
    /** The policy's budget of attempts, over every restart; null without a policy. */
    private final RestartBudget budget;

    private volatile Generation current;
    /** The generation before the current one: its lanes may still deliver what it had read. */
    private volatile Generation retired;
    /** The generation an attempt is setting up, to end it if the client closes meanwhile. */
    private volatile Generation attempting;
    private volatile CodexTransportException terminal;

    /**
     * What a connection's handler tells the supervisor about its own connection, and asks of it.
     */
    interface Link {
        /**
         * Whether the connection was lost and a restart may follow: a server request's handling still deciding
         * then is carried over to the request's replay on the new connection, not cancelled.
         */
        boolean restarting();

        /** The connection ended; called once, on its lane, after the events it had read were delivered. */
        void closed(CodexTransportException cause);
    }

    /**
     * @param policy     the restart policy, or null for none
     * @param transports opens the transport of each connection after the first
     * @param open       builds the dispatcher of a connection over its transport
     * @param sessions   makes the runtime's handling of what one connection receives, given that connection's link
     * @param carried    the server requests' handlings carried over a restart; null without a policy
     */
    ConnectionSupervisor(Transport first, RestartPolicy policy, Supplier<? extends Transport> transports,
                         BiFunction<Transport, RpcConnection.Handler, RpcConnection> open,
                         Function<Link, RpcConnection.Handler> sessions, Scheduler scheduler, Duration requestTimeout,
                         HeldThreads held, ServerRequestCarryOver carried, TelemetryEmitter telemetry, Edges client,
                         Callbacks callbacks, boolean ownsCallbacks) {
        this.policy = policy;
        this.transports = transports;
        this.open = open;
        this.sessions = sessions;
        this.scheduler = scheduler;
        this.requestTimeout = requestTimeout;
        this.held = held;
        this.carried = carried;
        this.telemetry = telemetry;
        this.client = client;
        this.callbacks = callbacks;
        this.ownsCallbacks = ownsCallbacks;
        this.budget = policy == null ? null : new RestartBudget(policy, scheduler);
        this.current = newGeneration(0, first);
    }

    private Generation newGeneration(long number, Transport transport) {
        Generation[] self = new Generation[1];
        Link link = new Link() {
            @Override
            public boolean restarting() {
                return policy != null && self[0].connection.isClosed() && !closed.get() && terminal == null;
            }

            @Override
            public void closed(CodexTransportException cause) {
                lost(self[0], cause);
            }
        };
        self[0] = new Generation(number, transport, open, sessions.apply(link));
        return self[0];
    }

    /**
     * The first handshake succeeded: from now on a lost connection is restarted under the policy.
     *
     * @param info what the server said of itself
     */
    void established(ServerInfo info) {
        current.paging = client.paging(info);
        established = true;
    }

    /** What the server of the moment can leave out of a thread's history. */
    TurnPaging paging() {
        return current.paging;
    }

    /** The connection of the moment (closed during a restart). */
    public RpcConnection connection() {
        return current.connection;
    }

    /** The transport of the moment. */
    public Transport transport() {
        return current.transport;
    }

    /** How many connections replaced the first one. */
    public long generation() {
        return current.number;
    }

    boolean restarts() {
        return policy != null;
    }

    /** True once the client was closed or its connection ended for good. */
    public boolean isClosed() {
        return closed.get() || terminal != null || policy == null && current.connection.isClosed();
    }

    // ------------------------------------------------------------------------------------------------ calls

    /**
     * Sends a request on the current connection. During a restart the request waits for the new connection,
     * the wait counted against {@code timeout}; it fails when the policy gives up or the client closes.
     */
    public <R> CompletableFuture<R> call(String method, Object params, Class<R> resultType, Duration timeout) {
        return call(method, params, resultType, timeout, null);
    }

    /**
     * {@link #call(String, Object, Class, Duration)} that tells {@code onAttempt} the id of each attempt before it
     * is sent (a streamed request's notifications carry it); null when nobody asks.
     */
    public <R> CompletableFuture<R> call(String method, Object params, Class<R> resultType, Duration timeout,
                                         Consumer<RequestId> onAttempt) {
        return call(method, params, resultType, timeout, onAttempt, null);
    }

    /**
     * {@link #call(String, Object, Class, Duration, Consumer)} whose result is handed over on a delivery lane (see
     * {@link ResponseLane}), on whichever connection the call goes out.
     *
     * @param lane where the result is handed over; null for where it is read
     */
    <R> CompletableFuture<R> call(String method, Object params, Class<R> resultType, Duration timeout,
                                  Consumer<RequestId> onAttempt, ResponseLane<? super R> lane) {
        Generation g = current;
        if (policy == null || !g.connection.isClosed() || closed.get()) {
            return g.connection.call(method, params, resultType, timeout, onAttempt, lane);
        }
        Duration bound = timeout != null ? timeout : requestTimeout;
        long deadline = scheduler.nanoTime() + Scheduler.saturatedNanos(bound);
        return callAfter(g, method, params, resultType, bound, deadline, onAttempt, lane);
    }

    private <R> CompletableFuture<R> callAfter(Generation lost, String method, Object params, Class<R> resultType,
                                               Duration bound, long deadline, Consumer<RequestId> onAttempt,
                                               ResponseLane<? super R> lane) {
        return replacementOf(lost, method, bound, deadline).thenCompose(n -> {
            long left = deadline - scheduler.nanoTime();
            return n.connection.call(method, params, resultType, Duration.ofNanos(Math.max(left, 1_000_000)),
                    onAttempt, lane);
        });
    }

    /**
     * The connection that replaces {@code lost} once it is usable (skipping any lost in turn while being waited
     * for); fails when the wait outlasts {@code deadline}, the policy gives up or the client closes.
     */
    private CompletableFuture<Generation> replacementOf(Generation lost, String method, Duration bound,
                                                        long deadline) {
        CompletableFuture<Generation> replaced = new CompletableFuture<>();
        lost.next.whenComplete((n, e) -> {
            if (e != null) {
                replaced.completeExceptionally(e);
            } else {
                replaced.complete(n);
            }
        });
        if (!replaced.isDone()) {
            try {
                Scheduler.Task t = scheduler.schedule(() -> callbacks.callback(() -> replaced.completeExceptionally(
                        CodexTimeoutException.waitingFor(method + " (waiting for the connection to be restarted)",
                                bound))), deadline - scheduler.nanoTime());
                replaced.whenComplete((v, e) -> t.cancel());
            } catch (RejectedExecutionException shutDown) {
                // The client is closing: the restart's end fails the wait.
            }
        }
        return replaced.thenCompose(n -> n.connection.isClosed() && !closed.get()
                ? replacementOf(n, method, bound, deadline) : CompletableFuture.completedFuture(n));
    }

    /** Sends a notification on the current connection. */
    void notify(String method, Object params) {
        current.connection.notify(method, params);
    }

    /** Whether the current thread reads the current connection or the one it replaced. */
    boolean isReaderThread() {
        Generation r = retired;
        return current.connection.isReaderThread() || r != null && r.connection.isReaderThread();
    }

    /**
     * Makes sure the thread of {@code link} is loaded on the server its next call reaches: a handle made before a
     * restart, of a thread nobody held when the connection was lost, is resumed first (once per thread and
     * connection). During a restart that server is the one of the new connection, not the lost one: the check
     * waits for the restart, whose resumes cover the threads held until it ends, so a thread first used during the
     * restart is resumed either by the restart or here, never left unknown to the new server.
     */
    CompletableFuture<Void> ensureLoaded(ThreadLink link) {
        Generation g = current;
        if (g.connection.isClosed() && !closed.get()) {
            long deadline = scheduler.nanoTime() + Scheduler.saturatedNanos(requestTimeout);
            return replacementOf(g, "thread/resume", requestTimeout, deadline).thenCompose(n -> loadOn(n, link));
        }
        return loadOn(g, link);
    }

    private CompletableFuture<Void> loadOn(Generation g, ThreadLink link) {
        if (link.loadedOn() >= g.number) {
            return CompletableFuture.completedFuture(null);
        }
        // Only loaded: the thread's history is not needed.
        return g.paging.resume(link.id(), p -> resume(g, p, null)).thenAccept(r -> link.loadedOn(g.number));
    }

    /**
     * Sends {@code thread/resume}: the one place it is sent from, for a user's resume, a thread first used after a
     * restart, and the restart itself.
     *
     * @param on      the connection to send it on (a restart's, not current yet, or the one a check found); null
     *                for the current one, waiting out a restart
     * @param params  the params
     * @param timeout the call's bound; null for the request timeout
     */
    CompletableFuture<ThreadResumeResponse> resume(Generation on, ThreadResumeParams params, Duration timeout) {
        return on == null ? call("thread/resume", params, ThreadResumeResponse.class, timeout)
                : on.connection.call("thread/resume", params, ThreadResumeResponse.class, timeout);
    }

    // ------------------------------------------------------------------------------------------------ restarts

    /** A connection ended; called once per generation, on its lane, after the events it had read were delivered. */
    private void lost(Generation g, CodexTransportException cause) {
        // Set before current is read; publish() sets current before it reads this: one of the two sees the other.
        g.lostCause = cause;
        if (g != current) {
            // A connection being set up failed: its attempt sees that, or its publication handles the loss.
            return;
        }
        if (!g.lossHandled.compareAndSet(false, true)) {
            return;
        }
        if (policy == null || closed.get() || !established) {
            cancelCarried();
            g.next.completeExceptionally(cause);
            client.ended(cause);
            return;
        }
        Set<String> threads = new LinkedHashSet<>(held.ids());
        Log.LOG.warn("{}; restarting the connection ({} threads held)",
                cause.getMessage().lines().findFirst().orElse("the connection ended"), threads.size());
        if (telemetry.enabled()) {
            telemetry.emit(l -> l.disconnected(new Disconnected(cause, threads.size())));
        }
        // What the lost connection still holds (a dead child's pipes, a dropped socket) is released now, not at
        // the client's close: a client restarted a thousand times must not keep a thousand sets of descriptors.
        try {
            g.transport.close(Duration.ZERO);
        } catch (RuntimeException e) {
            Log.LOG.debug("closing the lost transport failed: {}", e.toString());
        }
        // The turns that were running wait for the resume of their thread, which tells whether they go on.
        Restart restart = new Restart(g, threads, scheduler.nanoTime(), cause);
        restart.next(cause);
    }

    /** One loss and the attempts that try to end it. */
    private final class Restart {
        final Generation lost;
        final Set<String> threadsAtLoss;
        final long since;
        final CodexTransportException cause;
        int attempts;

        Restart(Generation lost, Set<String> threadsAtLoss, long since, CodexTransportException cause) {
            this.lost = lost;
            this.threadsAtLoss = threadsAtLoss;
            this.since = since;
            this.cause = cause;
        }

        /** Schedules the next attempt, or gives up when the policy says so. */
        void next(CodexException lastFailure) {
            if (closed.get()) {
                lost.next.completeExceptionally(closedException());
                return;
            }
            if (attempts >= policy.maxAttempts()) {
                giveUp(lastFailure, "after " + attempts + " attempts");
                return;
            }
            int attempt = ++attempts;
            Duration wait = policy.backoff(attempt);
            try {
                scheduler.schedule(() -> callbacks.callback(() -> attempt(attempt, lastFailure)), wait);
            } catch (RejectedExecutionException shutDown) {
                lost.next.completeExceptionally(closedException());
            }
        }

        private void attempt(int attempt, CodexException lastFailure) {
            if (closed.get()) {
                lost.next.completeExceptionally(closedException());
                return;
            }
            if (!budget.take()) {
                // This attempt was refused, not made: the count given up with is of the attempts that ran.
                attempts = attempt - 1;
                giveUp(lastFailure, "its budget of " + budget.describe() + " is spent");
                return;
            }
            Generation g;
            try {
                g = newGeneration(lost.number + 1, transports.get());
            } catch (RuntimeException e) {
                failed(attempt, e);
                return;
            }
            attempting = g;
            ResumeRounds rounds = new ResumeRounds(held, carried, telemetry, (on, params) -> resume(on, params, null),
                    (on, params) -> on.connection.call("thread/turns/list", params, ThreadTurnsListResponse.class,
                            null), cause);
            if (closed.get()) {
                // close() may have looked for an attempt before this one was set: end it here.
                attempting = null;
                g.connection.closing();
                g.transport.close(Duration.ZERO);
                g.connection.close();
                lost.next.completeExceptionally(closedException());
                return;
            }
            client.handshake(g.connection)
                    .thenCompose(info -> {
                        client.replaced(info);
                        g.paging = client.paging(info);
                        if (telemetry.enabled()) {
                            Duration downtime = Duration.ofNanos(scheduler.nanoTime() - since);
                            telemetry.emit(l -> l.connectionReplaced(new ConnectionReplaced(attempt, info, downtime)));
                        }
                        return rounds.run(g, threadsAtLoss);
                    })
                    .whenComplete((v, e) -> {
                        if (e != null) {
                            attempting = null;
                            g.transport.close(Duration.ZERO);
                            g.connection.close();
                            failed(attempt, RpcConnection.unwrap(e));
                        } else {
                            publish(g, rounds);
                        }
                    });
        }

        private void failed(int attempt, Throwable e) {
            CodexException failure = e instanceof CodexException ce ? ce
                    : new CodexTransportException("could not open a new connection", e);
            Log.LOG.warn("attempt {} to restart the connection failed: {}", attempt, failure.getMessage());
            next(failure);
        }

        private void publish(Generation g, ResumeRounds rounds) {
            retired = lost;
            current = g;
            attempting = null;
            // After current is set: close() sets closed before it reads current, so one of the two ends g.
            if (closed.get()) {
                g.connection.closing();
                g.transport.close(Duration.ZERO);
                g.connection.close();
                lost.next.completeExceptionally(closedException());
                return;
            }
            Log.LOG.info("restarted the connection to {} after {} attempt(s)", g.transport.describe(), attempts);
            if (telemetry.enabled()) {
                // Before the waiting calls go out: their events follow the end of the restart.
                RestartCompleted done = new RestartCompleted(attempts, rounds.resumed(), rounds.notResumed(),
                        Duration.ofNanos(scheduler.nanoTime() - since));
                telemetry.emit(l -> l.restartCompleted(done));
            }
            lost.next.complete(g);
            carried.cancelThreadless();
            // Lost while it was being set up: its loss was not handled then, being no current connection yet.
            CodexTransportException end = g.lostCause;
            if (end != null) {
                lost(g, end);
            }
        }

        private void giveUp(CodexException lastFailure, String why) {
            CodexTransportException cause = new CodexTransportException("gave up restarting the connection (" + why
                    + "); the last failure: " + lastFailure.getMessage(), lastFailure);
            Log.LOG.error("{}", cause.getMessage());
            terminal = cause;
            if (telemetry.enabled()) {
                int made = attempts;
                telemetry.emit(l -> l.restartGaveUp(new RestartGaveUp(cause, made)));
            }
            lost.next.completeExceptionally(cause);
            carried.cancelAll(ended(lost));
            client.ended(cause);
        }
    }

    /** Nothing parked can come back (the client ends, or never restarts): cancels every parked handling. */
    private void cancelCarried() {
        if (carried != null) {
            carried.cancelAll(ended(current));
        }
    }

    /**
     * What the end of the client (or of its restarts) means for the requests parked: a child process is gone with
     * it; a server of its own may live on and send them again to another client.
     */
    private static ServerRequestWithdrawnException.Reason ended(Generation g) {
        return g.transport.process().isPresent() ? ServerRequestWithdrawnException.Reason.GONE
                : ServerRequestWithdrawnException.Reason.DISCONNECTED;
    }

    private static CodexTransportException closedException() {
        return new CodexTransportException("the client was closed");
    }

    // ------------------------------------------------------------------------------------------------ closing

    /**
     * Ends the connection for good: a restart in progress is abandoned, calls waiting for one fail.
     *
     * @param transportTimeout bounds the end of the server, null for the transport's own
     */
    void close(Duration transportTimeout) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        Generation g = current;
        // A restart under way: the turns that were running wait for their thread's resume, which will not come now,
        // and nothing else will end the client (the restart's next step only fails the calls that wait).
        boolean restarting = policy != null && g.lossHandled.get() && terminal == null;
        Generation a = attempting;
        if (a != null) {
            a.connection.closing();
            a.transport.close(Duration.ZERO);
            a.connection.close();
        }
        // Before the transport's end reaches the connection: that end is the user's close, not a loss.
        g.connection.closing();
        try {
            if (transportTimeout != null) {
                g.transport.close(transportTimeout);
            }
        } finally {
            try {
                g.connection.close();
                cancelCarried();
                g.next.completeExceptionally(closedException());
                if (restarting) {
                    client.ended(closedException());
                }
            } finally {
                shutDownCallbacks();
            }
        }
    }

    /**
     * With a policy the connections leave the executor alone (it outlives each of them): it is shut down here, as
     * a connection would (without waiting from inside one of its own callbacks).
     */
    private void shutDownCallbacks() {
        if (policy == null || !ownsCallbacks) {
            return;
        }
        callbacks.shutDown(!Callbacks.inAnyCallback());
    }

    /** The generation's transport, when it runs a process (for {@code CodexClient#serverProcess()}). */
    Optional<ProcessHandle> process() {
        return current.transport.process();
    }
}

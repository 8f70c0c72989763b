package dev.codexclient.pool.internal;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.Subscription;
import dev.codexclient.ThreadOptions;
import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexPoolRejectedException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.pool.MemberStats;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.telemetry.ExtensionTelemetry;
import dev.codexclient.telemetry.PoolMemberAdded;
import dev.codexclient.telemetry.PooledThreadMoved;
import dev.codexclient.transport.ReadinessProbe;
import java.lang.ref.WeakReference;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine of one pool: its members, its timers, and the placement of threads and turns on them. Asynchronous
 * only: a start, a resume or a turn never blocks its caller (a member's new client is built on the pool's thread);
 * the public {@code CodexPool} and {@code PooledThread} are its facade and views, whose blocking methods join these
 * futures ({@link Joins}). This class never names either.
 */
public final class PoolRuntime {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(PoolRuntime.class);
    }

    /**
     * A member given to the builder.
     *
     * @param name      its name
     * @param readiness the {@code ws://} or {@code wss://} URI whose {@code /readyz} its checks ask, if any
     * @param factory   builds its client
     */
    public record GivenMember(String name, Optional<URI> readiness, Supplier<CodexClient> factory) {
    }

    private final PoolMembers members;
    private final PoolSettings settings;
    private final PoolTelemetry events;
    private final PoolNotifications notifications;
    private final PoolMaintenance maintenance;
    private final Optional<WarmSpare> spare;
    private final PlacedThread.Context threads;
    /** The threads whose subscribers may wait for a handle, told when the pool closes; weakly, as the user's are. */
    private final Set<WeakReference<PlacedThread>> subscribed = ConcurrentHashMap.newKeySet();
    private volatile boolean draining;
    private volatile boolean closed;

    private PoolRuntime(List<PoolMember> fixed, PoolSettings settings, Optional<WarmSpare> spare,
                        PoolTelemetry events, PoolNotifications notifications) {
        this.settings = settings;
        this.spare = spare;
        this.events = events;
        this.notifications = notifications;
        this.members = new PoolMembers(fixed);
        this.maintenance = new PoolMaintenance(members, settings, events, notifications::attach);
        this.threads = new PlacedThread.Context(events, settings.timer(), () -> !closed, settings.sharedStorage());
        for (PoolMember m : fixed) {
            events.emit(l -> l.poolMemberAdded(new PoolMemberAdded(m.name(), m.address())));
        }
    }

    /**
     * Builds every given member's client, one after another, then asks the resolver once and starts the timers. When
     * a given member's client fails, closes those built and rethrows.
     */
    public static PoolRuntime start(List<GivenMember> given, PoolSettings settings) {
        List<PoolMember> built = new ArrayList<>();
        Optional<WarmSpare> spare = settings.warmSpare();
        PoolTelemetry events = new PoolTelemetry(settings.listener());
        PoolNotifications notifications = new PoolNotifications();
        try {
            for (GivenMember g : given) {
                ReadinessProbe probe = g.readiness().map(ReadinessProbe::of).orElse(null);
                built.add(settings.member(g.name(), g.readiness(), false, g.factory(), probe,
                        g.readiness().isEmpty() ? spare.orElse(null) : null, notifications::attach));
            }
        } catch (RuntimeException e) {
            for (PoolMember m : built) {
                try {
                    m.close();
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            settings.shutdown();
            throw e;
        }
        Log.LOG.debug("pool of {} members built", built.size());
        PoolRuntime pool = new PoolRuntime(built, settings, spare, events, notifications);
        pool.maintenance.start();
        spare.ifPresent(WarmSpare::refill);
        return pool;
    }

    // ------------------------------------------------------------------------------------------------ threads

    /** Starts a thread on the least loaded healthy member. */
    public CompletableFuture<PlacedThread> startThread(ThreadStartParams params, ThreadOptions options) {
        return place("thread/start", (m, now) -> now.client().startThreadAsync(params, options)
                .thenApply(t -> new PlacedThread(m, now, t, params, null, options, threads)));
    }

    /**
     * Resumes a stored thread, with its turns, on the member that has it placed when it may take it, else on a
     * healthy member (see {@link #resuming}).
     */
    public CompletableFuture<PlacedThread> resumeThread(String threadId) {
        return resuming(threadId, (m, now) -> now.client().resumeThreadAsync(threadId)
                .thenApply(t -> new PlacedThread(m, now, t, null, null, ThreadOptions.none(), threads)));
    }

    /** Resumes a stored thread with overrides and its options, as {@link #resumeThread(String)} places it. */
    public CompletableFuture<PlacedThread> resumeThread(ThreadResumeParams params, ThreadOptions options) {
        return resuming(params.threadId(), (m, now) -> now.client().resumeThreadAsync(params, options)
                .thenApply(t -> new PlacedThread(m, now, t, null, params, options, threads)));
    }

    /**
     * Places a resume: first on the member the thread is placed on, if it may take it (a server that has the thread
     * loaded is its writer, and codex lets one server at a time write a thread of a storage several share); then on
     * the least loaded healthy member. A member that refuses because another server writes the thread ("already has
     * an active writer") is left for the others, one of which holds it.
     */
    private CompletableFuture<PlacedThread> resuming(
            String threadId, BiFunction<PoolMember, PoolMember.Current, CompletableFuture<PlacedThread>> call) {
        return place("thread/resume " + threadId, call, members.holding(threadId).orElse(null));
    }

    /** A thread forked from one on {@code source}'s member: it stays there, as codex made it there. */
    public CompletableFuture<PlacedThread> fork(PlacedThread source) {
        return handle(source).thenCompose(t -> {
            PoolMember m = source.member();
            PoolMember.Current now = m.now();
            return t.forkAsync().thenApply(f -> new PlacedThread(m, now, f, null, null, ThreadOptions.none(),
                    threads));
        });
    }

    /**
     * Runs {@code call} on the least loaded healthy member, whose client is replaced first (on the pool's thread)
     * when it gave up; when the member's connection is lost under the call (its server died a moment ago and the
     * pool could not know yet), or its replacement fails, runs it again on another healthy member, or, with none, on
     * the same one, whose client then waits for its restarted server within its request timeout (or is replaced). A
     * lost connection is the only failure of the call tried again: a server that answers with an error answered.
     * Sending {@code thread/start} again is safe: a thread started on a server that died before the answer had no
     * turn, so nothing of it was stored.
     */
    private CompletableFuture<PlacedThread> place(
            String what, BiFunction<PoolMember, PoolMember.Current, CompletableFuture<PlacedThread>> call) {
        return place(what, call, null);
    }

    /** {@link #place(String, BiFunction)}, on {@code preferred} first when it is given. */
    private CompletableFuture<PlacedThread> place(
            String what, BiFunction<PoolMember, PoolMember.Current, CompletableFuture<PlacedThread>> call,
            PoolMember preferred) {
        if (closed || draining) {
            return CompletableFuture.failedFuture(new CodexPoolRejectedException("the pool is "
                    + (closed ? "closed" : "draining") + ": it accepts no new threads"));
        }
        return attempt(what, call, new HashSet<>(), 1, members.size() + 1, preferred);
    }

    private CompletableFuture<PlacedThread> attempt(
            String what, BiFunction<PoolMember, PoolMember.Current, CompletableFuture<PlacedThread>> call,
            Set<PoolMember> lost, int attempt, int attempts, PoolMember preferred) {
        PoolMember m;
        try {
            m = preferred != null && !lost.contains(preferred) ? preferred : members.place(lost);
        } catch (CodexPoolRejectedException e) {
            return CompletableFuture.failedFuture(e);
        }
        Runnable arrived = m.arriving();
        return m.clientAsync().handle((now, replacing) -> {
            if (replacing != null) {
                arrived.run();
                Log.LOG.warn("pool member {} could not be replaced: {}", m.name(),
                        Joins.unwrap(replacing).getMessage());
                return again(what, call, lost, m, attempt, attempts, Joins.unwrap(replacing));
            }
            CompletableFuture<PlacedThread> placed;
            try {
                placed = call.apply(m, now);
            } catch (RuntimeException e) {
                placed = CompletableFuture.failedFuture(e);
            }
            // Counted as placed until the thread is (PlacedThread adds it) or the call failed.
            placed.whenComplete((t, e) -> arrived.run());
            return placed.exceptionallyCompose(e -> {
                Throwable cause = Joins.unwrap(e);
                if (PlacedThread.writerHeld(cause)) {
                    Log.LOG.info("pool member {} refused {}: another member's server writes the thread; trying"
                            + " the others", m.name(), what);
                    return again(what, call, lost, m, attempt, attempts, cause);
                }
                if (!(cause instanceof CodexTransportException)) {
                    return CompletableFuture.failedFuture(cause);
                }
                Log.LOG.info("pool member {} lost its connection during {}; placing it again: {}", m.name(), what,
                        cause.getMessage());
                return again(what, call, lost, m, attempt, attempts, cause);
            });
        }).thenCompose(Function.identity());
    }

    private CompletableFuture<PlacedThread> again(
            String what, BiFunction<PoolMember, PoolMember.Current, CompletableFuture<PlacedThread>> call,
            Set<PoolMember> lost, PoolMember m, int attempt, int attempts, Throwable cause) {
        if (closed || draining || attempt >= attempts) {
            return CompletableFuture.failedFuture(cause);
        }
        lost.add(m);
        return attempt(what, call, lost, attempt + 1, attempts, null);
    }

    // ------------------------------------------------------------------------------------------------ turns

    /**
     * Starts a turn on {@code thread}'s member, now or when a place frees up.
     *
     * @param start  starts the turn on the thread's handle of the moment (a plain turn, or one with an output type)
     * @param turnOf the turn of what {@code start} gives, whose end gives its place back
     */
    public <T> CompletableFuture<T> startTurn(PlacedThread thread, TurnStartParams params,
                                              BiFunction<CodexThread, TurnStartParams, CompletableFuture<T>> start,
                                              Function<T, CodexTurn> turnOf) {
        if (draining || closed) {
            return CompletableFuture.failedFuture(new CodexPoolRejectedException(
                    "the pool is " + (closed ? "closed" : "draining") + ": it accepts no new turns"));
        }
        relocate(thread);
        return thread.member().submit(thread.id(), () -> thread.launch(params, start), turnOf);
    }

    /**
     * Refuses a blocking wait for a turn's start where it could never end: while delivering an event of a codex
     * thread whose own running turn holds a place on the member, when the member has no free place (that turn ends
     * on the very thread that would wait); and on the pool's own thread, where a member's new client is built.
     */
    public void checkMayWaitForPlace(PlacedThread thread) {
        checkMayBlock("startTurn");
        relocate(thread);
        PoolMember m = thread.member();
        String lane = CodexThread.deliveringThreadId().orElse(null);
        if (lane != null && m.places().full() && m.places().heldBy(lane)) {
            throw new CodexDeadlockException("startTurn was called while delivering an event of thread " + lane
                    + ", whose running turn holds a place on pool member " + m.name() + ", which has no free place:"
                    + " that turn ends on this very thread, so the wait for a place could never end. Use"
                    + " startTurnAsync(…) there");
        }
    }

    /**
     * Refuses a blocking call on the pool's own thread (from a member's factory, the resolver, or the pool's
     * telemetry listener): what it waits for may be queued there, behind itself.
     */
    public void checkMayBlock(String what) {
        if (settings.onPoolThread()) {
            throw new CodexDeadlockException(what + " was called on the pool's own thread (in a member's factory,"
                    + " the resolver or the pool's telemetry listener), which builds the members' new clients: the"
                    + " wait could be for work queued behind itself. Use the …Async methods there");
        }
    }

    /** {@return the thread's handle on its member's client of the moment, moved first off a member lost for good} */
    public CompletableFuture<CodexThread> handle(PlacedThread thread) {
        relocate(thread);
        return thread.handle();
    }

    /** Remembers a thread whose subscribers must complete when the pool closes. */
    public void subscribed(PlacedThread thread) {
        subscribed.add(new WeakReference<>(thread));
        subscribed.removeIf(r -> r.get() == null);
    }

    /**
     * With storage the members share, moves a thread off a member it lost for good (closed, ejected, or drained
     * away by its resolver, and no turn of the thread running there) to the least loaded healthy member, where its
     * next use resumes it from that storage. Without a healthy member to go to, it stays, and its turn fails as it
     * would have. Never blocks.
     */
    private void relocate(PlacedThread thread) {
        if (!settings.sharedStorage()) {
            return;
        }
        PoolMember from = thread.member();
        if (!from.lostFor(thread.id())) {
            return;
        }
        PoolMember to;
        try {
            to = members.place(Set.of(from));
        } catch (CodexPoolRejectedException e) {
            return;
        }
        if (to != from && thread.moveTo(from, to)) {
            String id = thread.id();
            Log.LOG.info("thread {} leaves pool member {}, lost for good, for {}", id, from.name(), to.name());
            events.emit(l -> l.pooledThreadMoved(new PooledThreadMoved(id, from.name(), to.name())));
        }
    }

    // ------------------------------------------------------------------------------------------------ the pool

    /** Adds a listener of every member's notifications, the members added later included. */
    public Subscription onNotification(java.util.function.Consumer<? super ServerNotification> listener) {
        return notifications.subscribe(listener);
    }

    /** {@return {@code text} with every secret masked that any member's client of the moment masks} */
    public String mask(CharSequence text) {
        String masked = text == null ? "" : text.toString();
        for (PoolMember m : members) {
            masked = m.now().client().mask(masked);
        }
        return masked;
    }

    /** Hands an integration's telemetry to the pool's listener. */
    public void publish(ExtensionTelemetry telemetry) {
        events.emit(l -> l.extensionTelemetry(telemetry));
    }

    /** Checks every member's health now, one after another; returns how many are healthy after it. */
    public int checkHealth() {
        return members.checkHealth(maintenance::check);
    }

    /** The counts of each member, in the order the members were added. */
    public List<MemberStats> stats() {
        return members.stats();
    }

    /** {@return whether a warm spare is started and waits} */
    public boolean spareReady() {
        return spare.map(WarmSpare::isReady).orElse(false);
    }

    /** The client of the member of that name at this moment. */
    public Optional<CodexClient> memberClient(String memberName) {
        return members.client(memberName);
    }

    /** Stops accepting turns and waits, at most {@code timeout}, for the running and queued ones to end. */
    public boolean drain(Duration timeout) {
        draining = true;
        try {
            members.idle().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            throw new CodexException("draining the pool failed", e.getCause());
        }
    }

    /** Closes every member; queued turns fail; the subscribers of the pool's threads complete. Idempotent. */
    public void close() {
        if (!maintenance.stop()) {
            return;
        }
        closed = true;
        draining = true;
        spare.ifPresent(WarmSpare::close);
        settings.shutdown();
        try {
            members.closeAll(events);
        } finally {
            for (WeakReference<PlacedThread> r : subscribed) {
                PlacedThread t = r.get();
                if (t != null) {
                    t.poolClosed();
                }
            }
            subscribed.clear();
        }
    }
}

package dev.codexclient.internal.pool;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexPoolRejectedException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.session.Waits;
import dev.codexclient.pool.MemberStats;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.telemetry.PoolMemberAdded;
import dev.codexclient.telemetry.PooledThreadMoved;
import dev.codexclient.transport.ReadinessProbe;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine of one pool: its members, its timers, and the placement of threads and turns on them. The public
 * {@code CodexPool} is its facade and {@code PooledThread} a view over a {@link PlacedThread}; this class never
 * names either.
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
    private final PoolMaintenance maintenance;
    private final Optional<WarmSpare> spare;
    private volatile boolean draining;
    private volatile boolean closed;

    private PoolRuntime(List<PoolMember> fixed, PoolSettings settings, Optional<WarmSpare> spare) {
        this.settings = settings;
        this.spare = spare;
        this.events = new PoolTelemetry(settings.listener());
        this.members = new PoolMembers(fixed);
        this.maintenance = new PoolMaintenance(members, settings, events);
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
        try {
            for (GivenMember g : given) {
                ReadinessProbe probe = g.readiness().map(ReadinessProbe::of).orElse(null);
                built.add(settings.member(g.name(), g.readiness(), false, g.factory(), probe,
                        g.readiness().isEmpty() ? spare.orElse(null) : null));
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
        PoolRuntime pool = new PoolRuntime(built, settings, spare);
        pool.maintenance.start();
        spare.ifPresent(WarmSpare::refill);
        return pool;
    }

    /** Starts a thread on the least loaded healthy member. */
    public PlacedThread startThread(ThreadStartParams params) {
        return place("thread/start",
                m -> new PlacedThread(m, events, settings.scheduler(), m.client().startThread(params), params));
    }

    /** Resumes a stored thread on the least loaded healthy member. */
    public PlacedThread resumeThread(String threadId) {
        return place("thread/resume " + threadId,
                m -> new PlacedThread(m, events, settings.scheduler(), m.client().resumeThread(threadId), null));
    }

    /**
     * Runs {@code call} on the least loaded healthy member; when the member's connection is lost under the call (its
     * server died a moment ago and the pool could not know yet), runs it again on another healthy member, or, with
     * none, on the same one, whose client then waits for its restarted server within its request timeout (or is
     * replaced, when it gave up). A lost connection is the only failure tried again: a server that answers with an
     * error answered. Sending {@code thread/start} again is safe: a thread started on a server that died before the
     * answer had no turn, so nothing of it was stored.
     */
    private PlacedThread place(String what, Function<PoolMember, PlacedThread> call) {
        checkOpen();
        Set<PoolMember> lost = new HashSet<>();
        int attempts = members.size() + 1;
        for (int attempt = 1; ; attempt++) {
            PoolMember m = members.place(lost);
            try {
                return call.apply(m);
            } catch (CodexTransportException e) {
                if (closed || draining || attempt >= attempts) {
                    throw e;
                }
                lost.add(m);
                Log.LOG.info("pool member {} lost its connection during {}; placing it again: {}", m.name(), what,
                        e.getMessage());
            }
        }
    }

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
     * {@link #startTurn} for a caller that blocks until the turn started: bounded by the queue's wait and the
     * member's request timeout for {@code turn/start}. Refused at once where the wait for a place could never end:
     * while delivering an event of a codex thread whose own running turn holds a place on the member, when the
     * member has no free place (that turn ends on the very thread that would wait).
     */
    public <T> T startTurnAndWait(PlacedThread thread, TurnStartParams params,
                                  BiFunction<CodexThread, TurnStartParams, CompletableFuture<T>> start,
                                  Function<T, CodexTurn> turnOf) {
        relocate(thread);
        PoolMember m = thread.member();
        String lane = CodexThread.deliveringThreadId().orElse(null);
        if (lane != null && m.places().full() && m.places().heldBy(lane)) {
            throw new CodexDeadlockException("startTurn was called while delivering an event of thread " + lane
                    + ", whose running turn holds a place on pool member " + m.name() + ", which has no free place:"
                    + " that turn ends on this very thread, so the wait for a place could never end. Use"
                    + " startTurnAsync(…) there");
        }
        CompletableFuture<T> started = startTurn(thread, params, start, turnOf);
        try {
            return started.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            started.cancel(true);
            throw new CodexException("interrupted while waiting for a turn of thread " + thread.id() + " to start", e);
        } catch (ExecutionException e) {
            throw Waits.rethrow(e.getCause());
        }
    }

    /** {@return the thread's handle on its member's client of the moment, moved first off a member lost for good} */
    public CodexThread thread(PlacedThread thread) {
        relocate(thread);
        return thread.thread();
    }

    /**
     * With storage the members share, moves a thread off a member it lost for good (closed, ejected, or drained
     * away by its resolver, and no turn of the thread running there) to the least loaded healthy member, where its
     * next use resumes it from that storage. Without a healthy member to go to, it stays, and its turn fails as it
     * would have.
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

    /** Closes every member; queued turns fail. Idempotent. */
    public void close() {
        if (!maintenance.stop()) {
            return;
        }
        closed = true;
        draining = true;
        spare.ifPresent(WarmSpare::close);
        settings.shutdown();
        members.closeAll(events);
    }

    private void checkOpen() {
        if (closed || draining) {
            throw new CodexPoolRejectedException("the pool is " + (closed ? "closed" : "draining")
                    + ": it accepts no new threads");
        }
    }
}

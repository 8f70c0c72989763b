package dev.codexclient.internal.pool;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexPoolRejectedException;
import dev.codexclient.telemetry.PoolMemberAdded;
import dev.codexclient.pool.MemberStats;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.transport.ReadinessProbe;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
    private volatile boolean draining;
    private volatile boolean closed;

    private PoolRuntime(List<PoolMember> fixed, PoolSettings settings) {
        this.settings = settings;
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
        try {
            for (GivenMember g : given) {
                ReadinessProbe probe = g.readiness().map(ReadinessProbe::of).orElse(null);
                built.add(settings.member(g.name(), g.readiness(), false, g.factory(), probe));
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
        PoolRuntime pool = new PoolRuntime(built, settings);
        pool.maintenance.start();
        return pool;
    }

    /** Starts a thread on the least loaded healthy member. */
    public PlacedThread startThread(ThreadStartParams params) {
        checkOpen();
        PoolMember m = members.place();
        return new PlacedThread(m, events, m.client().startThread(params), params);
    }

    /** Resumes a stored thread on the least loaded healthy member. */
    public PlacedThread resumeThread(String threadId) {
        checkOpen();
        PoolMember m = members.place();
        return new PlacedThread(m, events, m.client().resumeThread(threadId), null);
    }

    /** Starts a turn on {@code thread}'s member, now or when a place frees up. */
    public CompletableFuture<CodexTurn> startTurn(PlacedThread thread, TurnStartParams params) {
        if (draining || closed) {
            return CompletableFuture.failedFuture(new CodexPoolRejectedException(
                    "the pool is " + (closed ? "closed" : "draining") + ": it accepts no new turns"));
        }
        return thread.member().submit(() -> thread.launch(params));
    }

    /** Checks every member's health now, one after another; returns how many are healthy after it. */
    public int checkHealth() {
        return members.checkHealth(maintenance::check);
    }

    /** The counts of each member, in the order the members were added. */
    public List<MemberStats> stats() {
        return members.stats();
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

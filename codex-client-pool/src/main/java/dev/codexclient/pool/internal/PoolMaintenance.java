package dev.codexclient.pool.internal;

import dev.codexclient.CodexClient;
import dev.codexclient.pool.MemberStats;
import dev.codexclient.pool.PoolEndpoint;
import dev.codexclient.telemetry.PoolMemberAdded;
import dev.codexclient.telemetry.PoolMemberEjected;
import dev.codexclient.telemetry.PoolMemberReadmitted;
import dev.codexclient.telemetry.PoolMemberRemoved;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a pool does on its own, on its timers: follows its resolver's answer (members added, drained,
 * closed) and checks its members' health (ejection, re-admission), reporting each change to the pool's listener.
 * The jobs run on the pool's thread, one at a time; each timer's next run is timed from the end of the previous one.
 */
final class PoolMaintenance {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(PoolMaintenance.class);
    }


    private final PoolMembers members;
    private final PoolSettings settings;
    private final PoolTelemetry events;
    /** Told of each client a member takes: the pool's notification listeners follow it. */
    private final Consumer<CodexClient> onClient;
    /** Guards the list's changes against each other and against the pool's close. */
    private final Object membership = new Object();
    private volatile boolean closed;

    PoolMaintenance(PoolMembers members, PoolSettings settings, PoolTelemetry events,
                    Consumer<CodexClient> onClient) {
        this.members = members;
        this.settings = settings;
        this.events = events;
        this.onClient = onClient;
    }

    /** Stops following the resolver and checking; false when it was stopped already. */
    boolean stop() {
        synchronized (membership) {
            if (closed) {
                return false;
            }
            closed = true;
            return true;
        }
    }

    /** The first resolution (on the building thread), then the timers. */
    void start() {
        if (settings.resolver() != null) {
            resolveNow();
            every(settings.resolveEvery(), this::resolveNow);
        }
        if (!settings.healthCheckEvery().isZero()) {
            every(settings.healthCheckEvery(), this::checkOnTimer);
        }
    }

    /**
     * Runs {@code job} on the pool's executor every {@code interval}, the next run timed from the end of the
     * previous one, so runs never overlap.
     */
    private void every(Duration interval, Runnable job) {
        if (closed) {
            return;
        }
        try {
            settings.timer().schedule(() -> onPoolThread(() -> {
                try {
                    if (!closed) {
                        job.run();
                    }
                } catch (RuntimeException e) {
                    Log.LOG.warn("a pool task failed", e);
                } finally {
                    every(interval, job);
                }
            }), interval);
        } catch (RejectedExecutionException e) {
            // The pool's timer was shut down by close(); nothing more runs.
        }
    }

    /**
     * Asks the resolver and follows its answer: endpoints not yet members are built (a factory that throws is
     * logged and tried again at the next resolution), members no longer named drain and then close, a draining
     * member named again takes threads again. A failed answer changes nothing.
     */
    private void resolveNow() {
        List<PoolEndpoint> answer;
        try {
            answer = settings.resolver().resolve();
        } catch (RuntimeException e) {
            Log.LOG.warn("the pool's resolver failed; its members stay as they are: {}", e.getMessage());
            return;
        }
        synchronized (membership) {
            if (closed) {
                return;
            }
            Map<String, PoolEndpoint> named = new LinkedHashMap<>();
            for (PoolEndpoint e : answer) {
                named.putIfAbsent(e.name(), e);
            }
            for (PoolMember m : members) {
                if (!m.resolved()) {
                    continue;
                }
                if (!named.containsKey(m.name()) && !m.draining()) {
                    retire(m);
                }
            }
            for (PoolEndpoint e : named.values()) {
                Optional<PoolMember> existing = members.stream().filter(m -> m.name().equals(e.name()))
                        .filter(m -> !m.closed()).findFirst();
                if (existing.isPresent()) {
                    PoolMember m = existing.get();
                    if (m.draining() && m.resolved() && m.undrain()) {
                        Log.LOG.info("pool member {} is named again: it takes threads again", m.name());
                        events.emit(l -> l.poolMemberAdded(new PoolMemberAdded(m.name(), m.address())));
                    }
                    continue;
                }
                PoolMember m;
                try {
                    m = settings.member(e, onClient);
                } catch (RuntimeException failure) {
                    Log.LOG.warn("could not build a client for pool member {}: {}", e.name(), failure.getMessage());
                    continue;
                }
                members.add(m);
                Log.LOG.info("pool member {} added at {}", m.name(), e.uri());
                events.emit(l -> l.poolMemberAdded(new PoolMemberAdded(m.name(), m.address())));
            }
        }
    }

    /**
     * Drains a member its resolver no longer names, then closes it once idle, at the latest after the drain timeout.
     * Both closers belong to this retirement: a member named again and then dropped again is retired afresh, and the
     * first retirement's timer, still due, must not cut the second one's drain short.
     */
    private void retire(PoolMember m) {
        long retirement = m.drain();
        MemberStats s = m.stats();
        Log.LOG.info("pool member {} is no longer named: it drains ({} turns)", m.name(),
                s.runningTurns() + s.queuedTurns());
        events.emit(l -> l.poolMemberRemoved(new PoolMemberRemoved(m.name(), s.threads(),
                s.runningTurns() + s.queuedTurns())));
        Runnable closeIfStillDraining = () -> onPoolThread(() -> {
            synchronized (membership) {
                if (!m.drainingSince(retirement) || m.closed()) {
                    return; // named again meanwhile, or retired again since
                }
                members.remove(m);
            }
            try {
                m.close();
            } catch (RuntimeException e) {
                Log.LOG.warn("closing pool member {} failed", m.name(), e);
            }
        });
        m.idle().thenRun(closeIfStillDraining);
        try {
            settings.timer().schedule(closeIfStillDraining, settings.drainTimeout());
        } catch (RejectedExecutionException e) {
            // the pool closes, and closes the member with it
        }
    }

    private void onPoolThread(Runnable job) {
        try {
            settings.executor().execute(job);
        } catch (RejectedExecutionException e) {
            // the pool closed: close() closes every member
        }
    }

    /** One round of the timer's checks: every member whose check is due. */
    private void checkOnTimer() {
        for (PoolMember m : members) {
            if (closed) {
                return;
            }
            if (!m.draining()) {
                check(m);
            }
        }
    }

    /** Checks one member now, on the calling thread, and reports what changed. */
    void check(PoolMember m) {
        m.check(() -> m.probe(settings.checkTimeout()), settings.timer()::nanoTime).ifPresent(change -> {
            switch (change) {
                case EJECTED -> {
                    int failures = m.health(h -> h.consecutiveFailures());
                    String reason = m.health(h -> h.lastFailure());
                    Duration backoff = m.health(h -> h.backoff());
                    Log.LOG.warn("pool member {} ejected after {} failed checks (checked again in {}): {}", m.name(),
                            failures, backoff, reason);
                    events.emit(l -> l.poolMemberEjected(new PoolMemberEjected(m.name(), failures, reason,
                            backoff)));
                }
                case READMITTED -> {
                    Duration out = Duration.ofNanos(settings.timer().nanoTime() - m.health(h -> h.ejectedAt()));
                    Log.LOG.info("pool member {} passed its check again after {}: readmitted", m.name(), out);
                    events.emit(l -> l.poolMemberReadmitted(new PoolMemberReadmitted(m.name(), out)));
                }
                default -> {
                }
            }
        });
    }
}

package dev.codexclient.internal.pool;

import dev.codexclient.CodexClient;
import dev.codexclient.events.CodexEventListener;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.pool.MemberResolver;
import dev.codexclient.pool.PoolEndpoint;
import dev.codexclient.transport.ReadinessProbe;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

/** What a pool was built with (the public builder's settings, read by the engine), and how it makes a member. */
public record PoolSettings(MemberResolver resolver, Function<PoolEndpoint, CodexClient> resolvedFactory,
                    Duration resolveEvery, Duration healthCheckEvery, Duration checkTimeout, int ejectAfter,
                    Duration initialBackoff, Duration maxBackoff, Duration drainTimeout, int maxTurns,
                    int maxQueued, Duration maxQueueWait, CodexEventListener listener, Scheduler scheduler, Executor executor,
                    boolean ownScheduler, boolean ownExecutor) {

    private static final AtomicInteger POOLS = new AtomicInteger();

    /**
     * The pool's one thread: resolutions and health checks block (DNS, {@code /readyz}, a call), so they run here,
     * never on the timer thread every client shares.
     */
    public static ExecutorService poolThread() {
        int n = POOLS.incrementAndGet();
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "codex-pool-" + n);
            t.setDaemon(true);
            return t;
        });
    }

    /** A member given to the builder. */
    PoolMember member(String name, Optional<URI> address, boolean resolved, Supplier<CodexClient> factory,
                      ReadinessProbe probe) {
        return new PoolMember(name, address, resolved, factory, probe,
                new TurnPlaces(name, maxTurns, maxQueued, maxQueueWait, scheduler),
                new MemberHealth(ejectAfter, initialBackoff, maxBackoff));
    }

    /**
     * A member its resolver named; its health is asked of the endpoint's {@code /readyz} when it is a
     * {@code ws://} or {@code wss://} endpoint, else of a cheap call.
     */
    PoolMember member(PoolEndpoint endpoint) {
        String scheme = endpoint.uri().getScheme();
        boolean webSocket = ("ws".equals(scheme) || "wss".equals(scheme)) && endpoint.uri().getHost() != null;
        return member(endpoint.name(), Optional.of(endpoint.uri()), true,
                () -> resolvedFactory.apply(endpoint), webSocket ? ReadinessProbe.builder(endpoint.uri()).requestTimeout(checkTimeout).build() : null);
    }

    /** Stops what the pool owns: its scheduler's tasks and its thread. */
    void shutdown() {
        if (ownScheduler) {
            scheduler.shutdown();
        }
        if (ownExecutor && executor instanceof ExecutorService s) {
            s.shutdownNow();
        }
    }
}

package dev.codexclient.internal.pool;

import dev.codexclient.CodexClient;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.pool.MemberResolver;
import dev.codexclient.pool.PoolEndpoint;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.transport.ReadinessProbe;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What a pool was built with (the public builder's settings, read by the engine), and how it makes a member.
 *
 * @param startRetry how a member's start that found codex's state database busy is tried again
 * @param spare      builds the warm spare's client; null without a warm spare
 */
public record PoolSettings(MemberResolver resolver, Function<PoolEndpoint, CodexClient> resolvedFactory,
                           Duration resolveEvery, Duration healthCheckEvery, Duration checkTimeout, int ejectAfter,
                           Duration initialBackoff, Duration maxBackoff, Duration drainTimeout, int maxTurns,
                           int maxQueued, Duration maxQueueWait, boolean sharedStorage, StartRetry startRetry,
                           Supplier<CodexClient> spare, CodexTelemetryListener listener, Scheduler scheduler,
                           Executor executor, boolean ownScheduler, boolean ownExecutor) {

    /**
     * How a member's start that found codex's state database busy is tried again.
     *
     * @param attempts       starts in all, at least 1
     * @param initialBackoff the bound of the first pause
     * @param maxBackoff     the bound no pause exceeds
     */
    public record StartRetry(int attempts, Duration initialBackoff, Duration maxBackoff) {
    }

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

    /**
     * A member given to the builder.
     *
     * @param spare the warm spare it takes when its client must be replaced, or null (a member with an address is a
     *              server of its own, which no spare can stand in for)
     */
    PoolMember member(String name, Optional<URI> address, boolean resolved, Supplier<CodexClient> factory,
                      ReadinessProbe probe, WarmSpare spare) {
        MemberStarts starts = starts();
        return new PoolMember(name, address, resolved, () -> starts.start(name, factory), probe,
                new TurnPlaces(name, maxTurns, maxQueued, maxQueueWait, scheduler),
                new MemberHealth(ejectAfter, initialBackoff, maxBackoff), spare, executor);
    }

    /**
     * A member its resolver named; its health is asked of the endpoint's {@code /readyz} when it is a
     * {@code ws://} or {@code wss://} endpoint, else of a cheap call.
     */
    PoolMember member(PoolEndpoint endpoint) {
        String scheme = endpoint.uri().getScheme();
        boolean webSocket = ("ws".equals(scheme) || "wss".equals(scheme)) && endpoint.uri().getHost() != null;
        ReadinessProbe probe = webSocket
                ? ReadinessProbe.builder(endpoint.uri()).requestTimeout(checkTimeout).build() : null;
        return member(endpoint.name(), Optional.of(endpoint.uri()), true, () -> resolvedFactory.apply(endpoint),
                probe, null);
    }

    /** The warm spare, when the builder asked for one; not started yet. */
    Optional<WarmSpare> warmSpare() {
        if (spare == null) {
            return Optional.empty();
        }
        MemberStarts starts = starts();
        return Optional.of(new WarmSpare(() -> starts.start("warm spare", spare), executor));
    }

    /** Starts of a member's client, tried again on a busy state database, the waits on the pool's clock. */
    MemberStarts starts() {
        return new MemberStarts(startRetry.attempts(), startRetry.initialBackoff(), startRetry.maxBackoff(), d -> {
            CompletableFuture<Void> waited = new CompletableFuture<>();
            try {
                scheduler.schedule(() -> waited.complete(null), d);
            } catch (RejectedExecutionException e) {
                throw new InterruptedException("the pool closed");
            }
            try {
                waited.get();
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        });
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

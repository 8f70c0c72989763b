package dev.codexclient.pool.internal;

import dev.codexclient.CodexClient;
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
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What a pool was built with (the public builder's settings, read by the engine), and how it makes a member.
 *
 * @param startRetry how a member's start that found codex's state database busy is tried again
 * @param spare      builds the warm spare's client; null without a warm spare
 * @param timer      the pool's clock and timer; null for the pool's own
 * @param executor   where blocking work runs; null for the pool's own thread
 * @param ownTimer   whether the timer is the pool's own, and so ends with it (a test's is the test's)
 */
public record PoolSettings(MemberResolver resolver, Function<PoolEndpoint, CodexClient> resolvedFactory,
                           Duration resolveEvery, Duration healthCheckEvery, Duration checkTimeout, int ejectAfter,
                           Duration initialBackoff, Duration maxBackoff, Duration drainTimeout, int maxTurns,
                           int maxQueued, Duration maxQueueWait, boolean sharedStorage, StartRetry startRetry,
                           Supplier<CodexClient> spare, CodexTelemetryListener listener, PoolTimer timer,
                           Executor executor, boolean ownTimer) {

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
     * Fills in what a test did not give: a timer thread and a thread of the pool's own, {@code codex-pool-N-timer}
     * and {@code codex-pool-N}, both ended with the pool.
     */
    public PoolSettings {
        int n = timer == null || executor == null ? POOLS.incrementAndGet() : 0;
        if (timer == null) {
            timer = new SystemPoolTimer("codex-pool-" + n + "-timer");
        }
        if (executor == null) {
            executor = new PoolThread("codex-pool-" + n);
        }
    }

    /** {@return whether the calling thread is the pool's own, which a blocking call of the pool must not hold} */
    boolean onPoolThread() {
        return executor instanceof PoolThread t && t.isCurrent();
    }

    /**
     * A member given to the builder.
     *
     * @param spare    the warm spare it takes when its client must be replaced, or null (a member with an address
     *                 is a server of its own, which no spare can stand in for)
     * @param onClient told of each client the member takes
     */
    PoolMember member(String name, Optional<URI> address, boolean resolved, Supplier<CodexClient> factory,
                      ReadinessProbe probe, WarmSpare spare, Consumer<CodexClient> onClient) {
        MemberStarts starts = starts();
        return new PoolMember(name, address, resolved, () -> starts.start(name, factory), probe,
                new TurnPlaces(name, maxTurns, maxQueued, maxQueueWait, timer),
                new MemberHealth(ejectAfter, initialBackoff, maxBackoff), spare, executor, onClient);
    }

    /**
     * A member its resolver named; its health is asked of the endpoint's {@code /readyz} when it is a
     * {@code ws://} or {@code wss://} endpoint, else of a cheap call.
     */
    PoolMember member(PoolEndpoint endpoint, Consumer<CodexClient> onClient) {
        String scheme = endpoint.uri().getScheme();
        boolean webSocket = ("ws".equals(scheme) || "wss".equals(scheme)) && endpoint.uri().getHost() != null;
        ReadinessProbe probe = webSocket
                ? ReadinessProbe.builder(endpoint.uri()).requestTimeout(checkTimeout).build() : null;
        return member(endpoint.name(), Optional.of(endpoint.uri()), true, () -> resolvedFactory.apply(endpoint),
                probe, null, onClient);
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
                timer.schedule(() -> waited.complete(null), d);
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

    /** Stops what the pool owns: its timer's tasks and its thread. */
    void shutdown() {
        if (ownTimer) {
            timer.shutdown();
        }
        if (executor instanceof PoolThread t) {
            t.shutdown();
        }
    }
}

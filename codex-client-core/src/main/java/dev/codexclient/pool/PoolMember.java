package dev.codexclient.pool;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexPoolRejectedException;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.transport.ReadinessProbe;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One app-server of a {@link CodexPool}: its client (replaced when it gave up), its cap of running turns with the
 * bounded queue in front of it, and its counts.
 *
 * <p>Threading: the cap and the queue are guarded by this object; turns are started outside the lock.
 */
final class PoolMember {
    private static final Logger LOG = LoggerFactory.getLogger(PoolMember.class);

    /** A turn waiting for a place. */
    private record Waiting(Supplier<CompletableFuture<CodexTurn>> start, CompletableFuture<CodexTurn> out) {
    }

    private final String name;
    private final Supplier<CodexClient> factory;
    private final ReadinessProbe probe;
    private final int maxTurns;
    private final int maxQueued;
    private final Set<String> threads = ConcurrentHashMap.newKeySet();
    private volatile CodexClient client;
    private volatile long generation;
    private volatile boolean ready = true;
    private volatile boolean closed;
    // Guarded by this.
    private int running;
    private final ArrayDeque<Waiting> queue = new ArrayDeque<>();
    private final List<CompletableFuture<Void>> idleWaiters = new ArrayList<>();
    private long rejected;
    private long replacements;

    PoolMember(String name, Supplier<CodexClient> factory, ReadinessProbe probe, int maxTurns, int maxQueued) {
        this.name = name;
        this.factory = factory;
        this.probe = probe;
        this.maxTurns = maxTurns;
        this.maxQueued = maxQueued;
        this.client = factory.get();
    }

    String name() {
        return name;
    }

    long generation() {
        return generation;
    }

    /** The member's client; one that gave up is replaced by a new one from the factory first. */
    CodexClient client() {
        CodexClient c = client;
        if (c.isClosed() && !closed) {
            synchronized (this) {
                if (client.isClosed() && !closed) {
                    LOG.warn("pool member {} gave up restoring its server; replacing its client", name);
                    client.close();
                    client = factory.get();
                    generation++;
                    replacements++;
                }
                c = client;
            }
        }
        return c;
    }

    /** Open, ready, its client open (replaced if it gave up) and, for a spawned server, its process alive. */
    boolean healthy() {
        if (closed || !ready) {
            return false;
        }
        CodexClient c;
        try {
            c = client();
        } catch (RuntimeException e) {
            LOG.warn("pool member {} could not be replaced: {}", name, e.getMessage());
            return false;
        }
        return !c.isClosed() && c.serverProcess().map(ProcessHandle::isAlive).orElse(true);
    }

    void checkReadiness() {
        if (probe != null) {
            ready = probe.isReady();
        }
    }

    void placed(String threadId) {
        threads.add(threadId);
    }

    int threadCount() {
        return threads.size();
    }

    synchronized int load() {
        return running + queue.size();
    }

    /** Starts a turn now when the cap allows, queues it when the queue has room, rejects it otherwise. */
    CompletableFuture<CodexTurn> submit(Supplier<CompletableFuture<CodexThread>> handle,
                                        java.util.function.Function<CodexThread, CompletableFuture<CodexTurn>> start) {
        Supplier<CompletableFuture<CodexTurn>> launch = () -> handle.get().thenCompose(start);
        CompletableFuture<CodexTurn> out = new CompletableFuture<>();
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new CodexPoolRejectedException("pool member " + name
                        + " is closed"));
            }
            if (running >= maxTurns) {
                if (queue.size() >= maxQueued) {
                    rejected++;
                    return CompletableFuture.failedFuture(new CodexPoolRejectedException("pool member " + name
                            + " runs " + running + " turns (its cap) and " + queue.size()
                            + " wait (its queue's bound)"));
                }
                queue.add(new Waiting(launch, out));
                return out;
            }
            running++;
        }
        launch(launch, out);
        return out;
    }

    private void launch(Supplier<CompletableFuture<CodexTurn>> start, CompletableFuture<CodexTurn> out) {
        CompletableFuture<CodexTurn> started;
        try {
            started = start.get();
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        started.whenComplete((turn, e) -> {
            if (e != null) {
                release();
                out.completeExceptionally(RpcConnection.unwrap(e));
            } else {
                // The place is held until the turn ends, however it ends.
                turn.result().whenComplete((r, x) -> release());
                out.complete(turn);
            }
        });
    }

    private void release() {
        Waiting next;
        List<CompletableFuture<Void>> nowIdle = List.of();
        synchronized (this) {
            next = closed ? null : queue.poll();
            if (next == null) {
                running--;
                if (running == 0 && queue.isEmpty()) {
                    nowIdle = new ArrayList<>(idleWaiters);
                    idleWaiters.clear();
                }
            }
        }
        nowIdle.forEach(f -> f.complete(null));
        if (next != null) {
            launch(next.start(), next.out());
        }
    }

    /** Completes when no turn runs or waits. */
    synchronized CompletableFuture<Void> idle() {
        if (running == 0 && queue.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        idleWaiters.add(f);
        return f;
    }

    synchronized CodexPool.MemberStats stats() {
        CodexClient c = client;
        Optional<Long> pid = c.serverProcess().map(ProcessHandle::pid);
        return new CodexPool.MemberStats(name, !closed && ready && !c.isClosed(), running, queue.size(),
                threads.size(), rejected, replacements, pid);
    }

    void close() {
        List<Waiting> dropped;
        synchronized (this) {
            closed = true;
            dropped = new ArrayList<>(queue);
            queue.clear();
        }
        for (Waiting w : dropped) {
            w.out().completeExceptionally(new CodexPoolRejectedException("the pool was closed before a place "
                    + "freed up on member " + name));
        }
        client.close();
    }
}

package dev.codexclient.pool.internal;

import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexPoolRejectedException;
import dev.codexclient.errors.CodexTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The places of one member: at most {@code maxTurns} turns run at once, up to {@code maxQueued} more wait in line, in
 * order, each at most {@code maxWait}; a turn holds its place until it ends, however it ends.
 *
 * <p>Threading: guarded by this object; turns are started outside the lock.
 */
final class TurnPlaces {
    /** A turn waiting for a place: what starts it, and the caller's future. */
    private record Waiting(String thread, Runnable launch, CompletableFuture<?> out) {
    }

    private final String member;
    private final int maxTurns;
    private final int maxQueued;
    private final Duration maxWait;
    private final PoolTimer timer;
    // Guarded by this.
    private int running;
    private boolean closed;
    private long rejected;
    private final ArrayDeque<Waiting> queue = new ArrayDeque<>();
    private final List<CompletableFuture<Void>> idleWaiters = new ArrayList<>();
    /** The codex threads whose turns hold a place, with how many each holds. */
    private final Map<String, Integer> holders = new HashMap<>();

    TurnPlaces(String member, int maxTurns, int maxQueued, Duration maxWait, PoolTimer timer) {
        this.member = member;
        this.maxTurns = maxTurns;
        this.maxQueued = maxQueued;
        this.maxWait = maxWait;
        this.timer = timer;
    }

    /**
     * Starts a turn now when the cap allows, queues it when the queue has room, rejects it otherwise.
     *
     * @param thread the codex thread of the turn, which holds the place from its start until its end
     * @param start  starts the turn on the server
     * @param turnOf the turn of what {@code start} gives, whose end gives the place back
     * @return the caller's future: what {@code start} gave, or why the turn never started
     */
    <T> CompletableFuture<T> submit(String thread, Supplier<CompletableFuture<T>> start,
                                    Function<T, CodexTurn> turnOf) {
        CompletableFuture<T> out = new CompletableFuture<>();
        Runnable launch = () -> launch(thread, start, turnOf, out);
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new CodexPoolRejectedException("pool member " + member
                        + " is closed"));
            }
            if (running >= maxTurns) {
                if (queue.size() >= maxQueued) {
                    rejected++;
                    return CompletableFuture.failedFuture(new CodexPoolRejectedException("pool member " + member
                            + " runs " + running + " turns (its cap) and " + queue.size()
                            + " wait (its queue's bound)"));
                }
                Waiting w = new Waiting(thread, launch, out);
                queue.add(w);
                expireLater(w);
                return out;
            }
            running++;
            holders.merge(thread, 1, Integer::sum);
        }
        launch.run();
        return out;
    }

    /** Fails a waiting turn still in line after {@code maxWait}, on the pool's clock. */
    private void expireLater(Waiting w) {
        PoolTimer.Task task;
        try {
            task = timer.schedule(() -> {
                boolean removed;
                synchronized (this) {
                    removed = queue.remove(w);
                }
                if (removed) {
                    w.out().completeExceptionally(CodexTimeoutException.waitingFor(
                            "a place on pool member " + member, maxWait));
                }
            }, maxWait);
        } catch (RejectedExecutionException e) {
            return; // the pool closes, and fails what waits
        }
        w.out().whenComplete((v, e) -> task.cancel());
    }

    /** Starts a turn that has its place (counted in {@link #running}, its thread among the holders). */
    private <T> void launch(String thread, Supplier<CompletableFuture<T>> start, Function<T, CodexTurn> turnOf,
                            CompletableFuture<T> out) {
        if (out.isDone()) {
            release(thread); // cancelled or timed out while it waited: its place goes to the next one
            return;
        }
        CompletableFuture<T> started;
        try {
            started = start.get();
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        started.whenComplete((value, e) -> {
            if (e != null) {
                release(thread);
                out.completeExceptionally(Joins.unwrap(e));
                return;
            }
            CodexTurn turn = turnOf.apply(value);
            // The place is held until the turn ends, however it ends.
            turn.result().whenComplete((r, x) -> release(thread));
            if (!out.complete(value)) {
                // The caller gave up while the server accepted it: nobody holds the turn, so it stops.
                turn.interruptAsync();
            }
        });
    }

    /** Gives the place of a turn of {@code thread} to the next one in line, or frees it. */
    private void release(String thread) {
        Waiting next;
        List<CompletableFuture<Void>> nowIdle = List.of();
        synchronized (this) {
            holders.computeIfPresent(thread, (k, n) -> n == 1 ? null : n - 1);
            next = closed ? null : queue.poll();
            if (next != null) {
                holders.merge(next.thread(), 1, Integer::sum);
            }
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
            next.launch().run();
        }
    }

    /** {@return running plus waiting turns} */
    synchronized int load() {
        return running + queue.size();
    }

    /** {@return whether a turn submitted now would have to wait} */
    synchronized boolean full() {
        return running >= maxTurns;
    }

    /** {@return whether a turn of codex thread {@code threadId} holds a place (from its start to its end)} */
    synchronized boolean heldBy(String threadId) {
        return holders.containsKey(threadId);
    }

    synchronized int running() {
        return running;
    }

    synchronized int queued() {
        return queue.size();
    }

    synchronized long rejected() {
        return rejected;
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

    /** Takes no more turns and fails those waiting; running turns keep their places until they end. */
    void close() {
        List<Waiting> dropped;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            dropped = new ArrayList<>(queue);
            queue.clear();
        }
        for (Waiting w : dropped) {
            w.out().completeExceptionally(new CodexPoolRejectedException("pool member " + member
                    + " was closed before a place freed up"));
        }
    }
}

package dev.codexclient.pool;

import dev.codexclient.pool.internal.PoolTimer;
import java.time.Duration;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;

/**
 * A pool timer whose clock moves only when a test says so: {@link #advance(Duration)} moves it and runs, on the
 * calling thread and in deadline order, every task that falls due, including tasks those tasks schedule within the
 * window. The pool's tests of queue timeouts, health checks, backoff and resolutions use it instead of sleeping.
 */
final class ManualTimer implements PoolTimer {
    private final class Entry implements Task, Comparable<Entry> {
        final long due;
        final long sequence;
        final Runnable task;

        Entry(long due, long sequence, Runnable task) {
            this.due = due;
            this.sequence = sequence;
            this.task = task;
        }

        @Override
        public boolean cancel() {
            synchronized (ManualTimer.this) {
                return queue.remove(this);
            }
        }

        @Override
        public int compareTo(Entry o) {
            int byDue = Long.compare(due, o.due);
            return byDue != 0 ? byDue : Long.compare(sequence, o.sequence);
        }
    }

    private final PriorityQueue<Entry> queue = new PriorityQueue<>();
    /** An arbitrary origin, far from zero, so that code computing {@code now - x} meets no special case. */
    private long now = 1_000_000_000_000L;
    private long sequence;
    private boolean shutdown;

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public synchronized Task schedule(Runnable task, Duration delay) {
        if (shutdown) {
            throw new RejectedExecutionException("the timer was shut down");
        }
        Entry e = new Entry(now + Math.max(0, delay.toNanos()), sequence++, task);
        queue.add(e);
        return e;
    }

    /** Moves the clock forward by {@code by}, running every task that falls due on the way, each at its own time. */
    void advance(Duration by) {
        long target;
        synchronized (this) {
            target = now + by.toNanos();
        }
        while (true) {
            Entry next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.due > target || shutdown) {
                    now = Math.max(now, target);
                    return;
                }
                queue.poll();
                now = Math.max(now, next.due);
            }
            next.task.run();
        }
    }

    /** {@return how long until the next task is due, if any is scheduled} */
    synchronized Optional<Duration> nextDelay() {
        Entry next = queue.peek();
        return next == null ? Optional.empty() : Optional.of(Duration.ofNanos(Math.max(0, next.due - now)));
    }

    /** {@return how many tasks wait for their time} */
    synchronized int pendingTasks() {
        return queue.size();
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
        queue.clear();
    }
}

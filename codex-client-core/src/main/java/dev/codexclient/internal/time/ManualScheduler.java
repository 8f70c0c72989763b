package dev.codexclient.internal.time;

import java.time.Duration;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;

/**
 * A scheduler whose clock moves only when a test says so: {@link #advance(Duration)} moves it and runs, on the
 * calling thread and in deadline order, every task that falls due, including tasks those tasks schedule within the
 * window. Tests of timeouts, backoff, deadlines and watchdogs use it instead of sleeping.
 *
 * <pre>{@code
 * ManualScheduler clock = new ManualScheduler();
 * ... build the code under test with it, start a call with a 10 s timeout ...
 * clock.advance(Duration.ofSeconds(9));   // nothing happens
 * clock.advance(Duration.ofSeconds(1));   // the call times out, here, on this thread
 * }</pre>
 */
public final class ManualScheduler implements Scheduler {

    private final class Entry implements Task, Comparable<Entry> {
        final long due;
        final long sequence;
        final Runnable task;
        boolean cancelled;

        Entry(long due, long sequence, Runnable task) {
            this.due = due;
            this.sequence = sequence;
            this.task = task;
        }

        @Override
        public boolean cancel() {
            synchronized (ManualScheduler.this) {
                if (cancelled || !queue.remove(this)) {
                    return false;
                }
                cancelled = true;
                return true;
            }
        }

        @Override
        public int compareTo(Entry o) {
            int byDue = Long.compare(due, o.due);
            return byDue != 0 ? byDue : Long.compare(sequence, o.sequence);
        }
    }

    private final PriorityQueue<Entry> queue = new PriorityQueue<>();
    private long now;
    private long sequence;
    private boolean shutdown;

    /** A clock at an arbitrary origin, far from zero so that code computing {@code now - x} meets no special case. */
    public ManualScheduler() {
        this.now = 1_000_000_000_000L;
    }

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public synchronized Task schedule(Runnable task, long delayNanos) {
        if (shutdown) {
            throw new RejectedExecutionException("the scheduler was shut down");
        }
        Entry e = new Entry(now + Math.max(0, delayNanos), sequence++, task);
        queue.add(e);
        return e;
    }

    /**
     * Moves the clock forward by {@code by}, running every task that falls due on the way, each at its own time
     * (the clock reads its due time while it runs).
     */
    public void advance(Duration by) {
        long target;
        synchronized (this) {
            target = now + Scheduler.saturatedNanos(by);
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

    /** Runs the tasks that are due now without moving the clock. */
    public void runDueTasks() {
        advance(Duration.ZERO);
    }

    /** How many tasks wait for their time. */
    public synchronized int pendingTasks() {
        return queue.size();
    }

    /** How long until the next task is due, if any is scheduled. */
    public synchronized Optional<Duration> nextDelay() {
        Entry next = queue.peek();
        return next == null ? Optional.empty() : Optional.of(Duration.ofNanos(Math.max(0, next.due - now)));
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
        queue.clear();
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }
}

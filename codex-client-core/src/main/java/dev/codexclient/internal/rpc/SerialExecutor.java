package dev.codexclient.internal.rpc;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in submission order, on a shared pool. One lane per codex thread keeps that
 * thread's events in wire order while a slow listener on one thread never holds up another.
 */
final class SerialExecutor implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);

    private final Executor pool;
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private boolean running;

    SerialExecutor(Executor pool) {
        this.pool = pool;
    }

    @Override
    public void execute(Runnable task) {
        if (enqueue(task)) {
            start();
        }
    }

    /**
     * Queues a task without starting the lane: returns true when the lane was idle, and then the caller must
     * {@link #start()} it. Lets the reader thread queue a whole batch of events before waking anyone.
     */
    boolean enqueue(Runnable task) {
        synchronized (queue) {
            queue.add(task);
            if (running) {
                return false;
            }
            running = true;
            return true;
        }
    }

    /** Drains the queue on the pool; once for each {@link #enqueue} that returned true. */
    void start() {
        schedule();
    }

    private void schedule() {
        try {
            pool.execute(this::drain);
        } catch (RejectedExecutionException e) {
            // The pool was shut down under us (the client is closing): deliver what is left here rather than
            // dropping events that were already read.
            runBatch(Integer.MAX_VALUE);
        }
    }

    private void drain() {
        // Bounded batch so one busy lane yields the pool thread to other lanes now and then.
        if (!runBatch(256)) {
            schedule();
        }
    }

    /** Runs up to {@code max} queued tasks; true when the queue ran dry (and the lane is idle again). */
    private boolean runBatch(int max) {
        for (int i = 0; i < max; i++) {
            Runnable next;
            synchronized (queue) {
                next = queue.poll();
                if (next == null) {
                    running = false;
                    return true;
                }
            }
            runSafely(next);
        }
        return false;
    }

    private static void runSafely(Runnable task) {
        try {
            task.run();
        } catch (Throwable t) {
            LOG.warn("A codex event listener threw; the event is still delivered to the others", t);
        }
    }
}

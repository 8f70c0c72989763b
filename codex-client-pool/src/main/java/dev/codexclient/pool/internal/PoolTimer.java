package dev.codexclient.pool.internal;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;

/**
 * The pool's clock and its delayed tasks: the queue's timeouts, the timers of the resolver and the health checks, the
 * pauses between starts and resumes. Tests put a manual one in ({@code CodexPool.Builder}'s package-private door), so
 * that they advance time instead of sleeping.
 *
 * <p>Tasks must be short and must not block: blocking work (a resolution, a health check) is handed to the pool's
 * thread.
 */
public interface PoolTimer {

    /** A scheduled task. */
    interface Task {
        /**
         * Stops the task from running if it has not started.
         *
         * @return whether this call stopped it
         */
        boolean cancel();
    }

    /** {@return the time in nanoseconds, on an arbitrary origin; only differences mean anything} */
    long nanoTime();

    /**
     * Runs {@code task} once {@code delay} has passed on this timer's clock (at once for zero or less).
     *
     * @param task  what to run
     * @param delay how long from now
     * @return the scheduled task
     * @throws RejectedExecutionException once the timer was shut down
     */
    Task schedule(Runnable task, Duration delay);

    /** Stops running tasks; tasks scheduled later are rejected. Idempotent. */
    void shutdown();
}

package dev.codexclient.internal.time;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;

/**
 * A clock and the delayed tasks measured on it. A client has one: request deadlines, overload backoff, turn
 * deadlines, watchdogs, interrupt grace periods and timed waits all run on it, so a test can replace it with a
 * {@link ManualScheduler} and advance time instead of sleeping.
 *
 * <p>Tasks must be short and must not block: they share one thread with every other client's (with the system
 * scheduler) or the thread that advances the time (with the manual one).
 */
public interface Scheduler {

    /** A scheduled task. */
    interface Task {
        /** Stops the task from running if it has not started; true when this call stopped it. */
        boolean cancel();
    }

    /** The current time in nanoseconds, on an arbitrary origin; only differences mean anything. */
    long nanoTime();

    /**
     * Runs {@code task} once {@code delayNanos} have passed on this scheduler's clock (at once for zero or less).
     *
     * @throws RejectedExecutionException once the scheduler was shut down
     */
    Task schedule(Runnable task, long delayNanos);

    /** {@link #schedule(Runnable, long)} with a {@link Duration}; durations too long for nanoseconds saturate. */
    default Task schedule(Runnable task, Duration delay) {
        return schedule(task, saturatedNanos(delay));
    }

    /** Stops running tasks; tasks scheduled later are rejected. Idempotent. */
    void shutdown();

    boolean isShutdown();

    /**
     * The nanoseconds of a duration, capped at a quarter of {@code Long.MAX_VALUE}, so that deadlines computed from
     * it stay comparable by difference ({@link System#nanoTime()} may wrap).
     */
    static long saturatedNanos(Duration d) {
        long max = Long.MAX_VALUE / 4;
        try {
            return Math.min(d.toNanos(), max);
        } catch (ArithmeticException tooLong) {
            return d.isNegative() ? -max : max;
        }
    }
}

package dev.codexclient.pool.internal;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real clock ({@link System#nanoTime()}) and one daemon timer thread per pool, {@code codex-pool-N-timer}, ended
 * by {@link #shutdown()}: a pool is long-lived and owns its members' processes, so one thread of its own costs
 * nothing that matters, and nothing of it outlives the pool.
 */
final class SystemPoolTimer implements PoolTimer {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(SystemPoolTimer.class);
    }

    private final ScheduledThreadPoolExecutor timer;

    /**
     * @param name the timer thread's name
     */
    SystemPoolTimer(String name) {
        timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        // A queue timeout answered in time leaves the queue at once instead of waiting there for its time.
        timer.setRemoveOnCancelPolicy(true);
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Task schedule(Runnable task, Duration delay) {
        ScheduledFuture<?> f = timer.schedule(() -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                // The executor's future would keep the failure to itself; nobody ever asks it.
                Log.LOG.warn("a pool timer task failed", e);
            }
        }, Math.max(0, saturatedNanos(delay)), TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public void shutdown() {
        timer.shutdownNow();
    }

    /** The nanoseconds of {@code d}, capped so that deadlines computed from it stay comparable by difference. */
    static long saturatedNanos(Duration d) {
        long max = Long.MAX_VALUE / 4;
        try {
            return Math.min(d.toNanos(), max);
        } catch (ArithmeticException tooLong) {
            return d.isNegative() ? -max : max;
        }
    }
}

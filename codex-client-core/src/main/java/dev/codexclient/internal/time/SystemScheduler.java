package dev.codexclient.internal.time;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The real clock ({@link System#nanoTime()}) and one daemon thread that runs the delayed tasks. */
public final class SystemScheduler implements Scheduler {
    private static final Logger LOG = LoggerFactory.getLogger(SystemScheduler.class);

    private final ScheduledThreadPoolExecutor executor;

    /** Starts no thread yet: the executor creates its one thread with the first task. */
    public SystemScheduler(String threadName) {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        // Cancelled tasks (a deadline answered in time, a watchdog stopped) leave the queue at once instead of
        // piling up until their time comes.
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Task schedule(Runnable task, long delayNanos) {
        ScheduledFuture<?> f = executor.schedule(() -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                // A scheduled future would keep the failure to itself; nobody ever asks it.
                LOG.warn("A scheduled task failed", e);
            }
        }, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public void shutdown() {
        executor.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
        return executor.isShutdown();
    }
}

package dev.codexclient.internal.time;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real clock ({@link System#nanoTime()}) and its delayed tasks.
 *
 * <p>Every client in the JVM shares one daemon timer thread, {@code codex-shared-timer}: a thread per client would be
 * started (and stopped) for every client a test suite builds, and its timers rarely fire. The thread starts with
 * the first task and ends after a minute without any. Each scheduler still owns its tasks: {@link #shutdown()}
 * cancels this scheduler's pending tasks and rejects new ones, and leaves every other scheduler's alone. Tasks are
 * the client's own short hand-offs (user callbacks run on the client's callback executor), so one client cannot hold
 * up another's timers.
 */
public final class SystemScheduler implements Scheduler {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(SystemScheduler.class);
    }

    /**
     * The shared timer, built with the first task of any scheduler in the JVM: a client whose start schedules
     * nothing loads no executor classes.
     */
    private static final class Shared {
        static final ScheduledThreadPoolExecutor TIMER = timer();
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "codex-shared-timer");
            t.setDaemon(true);
            return t;
        });
        // Cancelled tasks (a deadline answered in time, a watchdog stopped) leave the queue at once instead of
        // piling up until their time comes; an idle thread goes away, and a task brings it back.
        e.setRemoveOnCancelPolicy(true);
        e.setKeepAliveTime(60, TimeUnit.SECONDS);
        e.allowCoreThreadTimeOut(true);
        return e;
    }

    /** Tasks neither run nor cancelled yet; whoever removes one (run, cancel or shutdown) decides its fate. */
    private final Set<Entry> pending = ConcurrentHashMap.newKeySet();
    private volatile boolean shutdown;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Task schedule(Runnable task, long delayNanos) {
        if (shutdown) {
            throw new RejectedExecutionException("the scheduler was shut down");
        }
        Entry entry = new Entry(task);
        pending.add(entry);
        entry.future = Shared.TIMER.schedule(entry, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        if (shutdown && entry.cancel()) {
            // shutdown() ran between the check and the add and may have missed this entry.
            throw new RejectedExecutionException("the scheduler was shut down");
        }
        return entry;
    }

    @Override
    public void shutdown() {
        shutdown = true;
        for (Entry e : pending) {
            e.cancel();
        }
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    /** {@return how many of this scheduler's tasks wait to run} */
    int pendingTasks() {
        return pending.size();
    }

    private final class Entry implements Runnable, Task {
        private final Runnable task;
        private volatile ScheduledFuture<?> future;

        Entry(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            if (!pending.remove(this)) {
                return; // cancelled before the timer got to it
            }
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                // The timer's own future would keep the failure to itself; nobody ever asks it.
                Log.LOG.warn("A scheduled task failed", e);
            }
        }

        @Override
        public boolean cancel() {
            if (!pending.remove(this)) {
                return false;
            }
            ScheduledFuture<?> f = future;
            if (f != null) {
                f.cancel(false); // leaves the timer's queue; when f is not set yet, run() finds nothing to do
            }
            return true;
        }
    }
}

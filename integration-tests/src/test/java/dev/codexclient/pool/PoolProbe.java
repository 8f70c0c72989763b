package dev.codexclient.pool;

import dev.codexclient.internal.time.Scheduler;

/**
 * What the tests set inside a pool that the API does not offer: its clock, and the thread its resolutions and
 * checks run on. Test code in the pool's own package, so the API needs no door for it.
 */
public final class PoolProbe {
    private PoolProbe() {
    }

    /**
     * {@return {@code builder}, its timers on {@code scheduler}'s clock and its resolutions and checks on the thread
     * that runs the due task (the one advancing a manual clock)}
     */
    public static CodexPool.Builder useScheduler(CodexPool.Builder builder, Scheduler scheduler) {
        return builder.scheduler(scheduler).executor(Runnable::run);
    }

    /** {@return whether the pooled thread's handle is the one on its member's client of the moment} */
    public static boolean handleIsCurrent(PooledThread thread) {
        return thread.current();
    }
}

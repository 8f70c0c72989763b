package dev.codexclient.pool;

/**
 * What the tests set inside a pool that the API does not offer: its clock, and the thread its resolutions and
 * checks run on. Test code in the pool's own package, so the API needs no door for it.
 */
final class PoolProbe {
    private PoolProbe() {
    }

    /**
     * {@return {@code builder}, its timers on {@code timer}'s clock and its resolutions, checks and replacements on
     * the thread that runs them (the one advancing the manual clock, or the caller's)}
     */
    static CodexPool.Builder useTimer(CodexPool.Builder builder, ManualTimer timer) {
        return builder.timer(timer).executor(Runnable::run);
    }

    /** {@return whether the pooled thread's handle is the one on its member's client of the moment} */
    static boolean handleIsCurrent(PooledThread thread) {
        return thread.current();
    }
}

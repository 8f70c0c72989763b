package dev.codexclient.it;

import org.reactivestreams.tck.TestEnvironment;

/** The Reactive Streams TCK's timeouts for these tests, which run on two busy cores. */
final class TckSettings {
    /**
     * How long the TCK waits for a signal that must come. Its default (100 ms) is for fast, idle machines; a wait
     * that ends early on a signal costs nothing, so a generous bound only matters when something is wrong.
     */
    static final long TIMEOUT_MILLIS = 5_000;
    /** How long the TCK watches for a signal that must not come (each such check costs this much). */
    static final long NO_SIGNALS_MILLIS = 100;
    /** How often the TCK looks for an expected error (by default as seldom as its timeout, which makes each wait it). */
    static final long POLL_MILLIS = 10;
    /** How long the TCK lets a cancelled subscription take to drop its subscriber before it runs the GC. */
    static final long GC_TIMEOUT_MILLIS = 300;

    private TckSettings() {
    }

    static TestEnvironment environment() {
        return new TestEnvironment(TIMEOUT_MILLIS, NO_SIGNALS_MILLIS, POLL_MILLIS);
    }
}

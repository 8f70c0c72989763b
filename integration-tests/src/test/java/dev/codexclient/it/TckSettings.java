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
    /**
     * How long the TCK waits for an expected {@code onError}. The TCK's 1.0.4 {@code Receptacle#expectError} means
     * this as a polling interval but looks only once ({@code remaining =- elapsed} sets the remaining time negative
     * after the first sleep), so this is the whole wait, not {@link #TIMEOUT_MILLIS}. Our {@code onError} comes on
     * a delivery lane: with 10 ms here, a busy machine could deliver it later, failing the rule 3.9 test and
     * leaking the late error into the next test. Each of the three rule 3.9 tests per publisher pays this once.
     */
    static final long POLL_MILLIS = 1_000;
    /** How long the TCK lets a cancelled subscription take to drop its subscriber before it runs the GC. */
    static final long GC_TIMEOUT_MILLIS = 300;

    private TckSettings() {
    }

    static TestEnvironment environment() {
        return new TestEnvironment(TIMEOUT_MILLIS, NO_SIGNALS_MILLIS, POLL_MILLIS);
    }
}

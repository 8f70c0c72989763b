package dev.codexclient.testkit;

/**
 * What a {@link FakeCodexAppServer} keeps of the traffic, for {@code takeRequest}, {@code requests()},
 * {@code receivedMessages()} and the like to verify:
 * <ul>
 *   <li>{@link #all()} (the default): everything, for the fake's life, like MockWebServer keeps every request;</li>
 *   <li>{@link #last(int) last(n)}: the {@code n} newest of each kind (client requests, client notifications,
 *       messages received, messages sent); older ones are dropped, taken or not, so a long run holds a fixed
 *       amount;</li>
 *   <li>{@link #off()}: nothing, for load and soak tests; the verification methods then fail at once with an
 *       {@link IllegalStateException} instead of waiting for something that is never kept.</li>
 * </ul>
 * Whatever the setting, the fake answers the same, {@link FakeCodexAppServer#requestCount()} counts every request,
 * and {@link FakeCodexAppServer#clientInfo()}, {@link FakeCodexAppServer#clientCapabilities()} and
 * {@link FakeCodexAppServer#failures()} are kept.
 * <pre>{@code
 * FakeCodexAppServer fake = FakeCodexAppServer.builder().recording(Recording.last(100)).build();
 * }</pre>
 */
public final class Recording {
    private static final Recording ALL = new Recording(Integer.MAX_VALUE);
    private static final Recording OFF = new Recording(0);

    private final int limit;

    private Recording(int limit) {
        this.limit = limit;
    }

    /** {@return a setting that keeps everything (the default)} */
    public static Recording all() {
        return ALL;
    }

    /**
     * A setting that keeps the {@code n} newest client requests, client notifications, messages received and
     * messages sent.
     *
     * @param n how many of each kind to keep, at least 1
     * @return the setting
     * @throws IllegalArgumentException when {@code n} is less than 1 (use {@link #off()} to keep nothing)
     */
    public static Recording last(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("Recording.last(n) needs n >= 1, got " + n + "; Recording.off() "
                    + "keeps nothing");
        }
        return n == Integer.MAX_VALUE ? ALL : new Recording(n);
    }

    /** {@return a setting that keeps nothing: the verification methods fail at once} */
    public static Recording off() {
        return OFF;
    }

    /** How many of each kind are kept: {@code Integer.MAX_VALUE} for all, 0 for none. */
    int limit() {
        return limit;
    }

    boolean isOff() {
        return limit == 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Recording r && r.limit == limit;
    }

    @Override
    public int hashCode() {
        return Integer.hashCode(limit);
    }

    @Override
    public String toString() {
        return limit == Integer.MAX_VALUE ? "Recording.all()" : limit == 0 ? "Recording.off()"
                : "Recording.last(" + limit + ")";
    }
}

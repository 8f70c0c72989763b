package dev.codexclient.internal;

import java.time.Duration;
import java.util.Objects;

/** The one check of a duration the API takes that must be positive (a timeout, an idle time, a grace period). */
public final class Durations {
    private Durations() {
    }

    /**
     * {@return {@code d}, checked}
     *
     * @param d    the duration
     * @param name names it in the exception
     * @throws IllegalArgumentException when {@code d} is zero or negative
     */
    public static Duration positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
        return d;
    }
}

package dev.codexclient;

import java.time.Duration;
import java.util.Objects;

/**
 * How requests answered with {@code -32001 "Server overloaded; retry later."} are retried: exponential backoff
 * with full jitter (each wait is uniform between zero and {@code min(maxBackoff, initialBackoff * 2^(n-1))}),
 * bounded both by attempts and by total time. When the policy gives up, the call fails with
 * {@link dev.codexclient.errors.CodexOverloadedException}.
 *
 * @param maxAttempts    how many times a request is sent in total; 1 disables retries
 * @param initialBackoff the bound of the first wait
 * @param maxBackoff     the cap of every wait
 * @param maxTotal       no new attempt starts later than this after the first one
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration maxTotal) {

    /**
     * Checks the policy.
     *
     * @param maxAttempts    how many times a request is sent in total, at least 1
     * @param initialBackoff the bound of the first wait, not negative
     * @param maxBackoff     the cap of every wait, not negative
     * @param maxTotal       no new attempt starts later than this after the first one; not negative
     * @throws IllegalArgumentException when {@code maxAttempts} is below 1 or a duration is negative
     */
    public RetryPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        Objects.requireNonNull(maxTotal, "maxTotal");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
        }
        if (initialBackoff.isNegative() || maxBackoff.isNegative() || maxTotal.isNegative()) {
            throw new IllegalArgumentException("durations must not be negative");
        }
    }

    /** {@return the default policy: five attempts, backoff from 200 ms up to 5 s, at most 30 s in total} */
    public static RetryPolicy defaults() {
        return new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(5), Duration.ofSeconds(30));
    }

    /** {@return a policy that never retries: the first {@code -32001} fails the call} */
    public static RetryPolicy none() {
        return new RetryPolicy(1, Duration.ZERO, Duration.ZERO, Duration.ZERO);
    }
}

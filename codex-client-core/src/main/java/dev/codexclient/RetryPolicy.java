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

    /** Five attempts, backoff from 200 ms up to 5 s, at most 30 s in total. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(5), Duration.ofSeconds(30));
    }

    /** Never retry: the first {@code -32001} fails the call. */
    public static RetryPolicy none() {
        return new RetryPolicy(1, Duration.ZERO, Duration.ZERO, Duration.ZERO);
    }
}

package dev.codexclient.internal.rpc;

import java.time.Duration;
import java.util.Objects;

/**
 * Timeouts and the retry policy for {@code -32001} overload errors.
 *
 * @param requestTimeout default time a request may wait for its response
 * @param retryMaxAttempts how many times an overloaded request is sent in total (1 = no retry)
 * @param retryInitialBackoff upper bound of the first backoff; doubles each attempt (full jitter below it)
 * @param retryMaxBackoff cap of the backoff bound
 * @param retryMaxTotal no retry starts once this much time has passed since the first attempt
 */
public record RpcSettings(Duration requestTimeout, int retryMaxAttempts, Duration retryInitialBackoff,
                          Duration retryMaxBackoff, Duration retryMaxTotal) {
    public RpcSettings {
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        Objects.requireNonNull(retryInitialBackoff, "retryInitialBackoff");
        Objects.requireNonNull(retryMaxBackoff, "retryMaxBackoff");
        Objects.requireNonNull(retryMaxTotal, "retryMaxTotal");
        if (retryMaxAttempts < 1) {
            throw new IllegalArgumentException("retryMaxAttempts must be at least 1");
        }
    }
}

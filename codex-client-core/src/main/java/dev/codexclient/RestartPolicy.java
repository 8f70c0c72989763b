package dev.codexclient;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How a client restarts a lost connection: it respawns the app-server (stdio) or connects again (WebSocket, Unix
 * socket), redoes the handshake and resumes every thread the user holds. Off unless set with
 * {@link CodexClientBuilder#restartPolicy(RestartPolicy)}.
 *
 * <pre>{@code
 * CodexClient codex = CodexClient.builder()
 *         .restartPolicy(RestartPolicy.builder()
 *                 .maxAttempts(5)                                   // per restart
 *                 .backoff(Duration.ofMillis(200), Duration.ofSeconds(10))
 *                 .budget(10, Duration.ofMinutes(10))               // attempts in any ten minutes
 *                 .build())
 *         .build();
 * }</pre>
 *
 * <p>Each attempt waits first: the bound doubles from {@code initialBackoff} up to {@code maxBackoff}, and the
 * wait is drawn uniformly from the upper half of it (so restarts of many clients spread out, yet never come at
 * once). A restart ends when an attempt completes the handshake; the policy gives up, and the client closes, when
 * a restart has used {@code maxAttempts}, or when an attempt would exceed the budget of attempts in the sliding
 * {@code budgetWindow}: a server that crashes at every start is not restarted for ever.
 *
 * @param maxAttempts    attempts per restart, at least 1
 * @param initialBackoff the bound of the wait before the first attempt (zero: the first attempt at once)
 * @param maxBackoff     the cap of every wait
 * @param budget         attempts allowed in any {@code budgetWindow}, at least 1
 * @param budgetWindow   the window of the budget
 */
public record RestartPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, int budget,
                            Duration budgetWindow) {

    /**
     * Checks the bounds.
     *
     * @param maxAttempts    attempts per restart, at least 1
     * @param initialBackoff the bound of the wait before the first attempt (zero: the first attempt at once)
     * @param maxBackoff     the cap of every wait, at least {@code initialBackoff}
     * @param budget         attempts allowed in any {@code budgetWindow}, at least 1
     * @param budgetWindow   the window of the budget
     * @throws IllegalArgumentException when a count is below 1, a duration is negative, or {@code maxBackoff} is
     *                                  below {@code initialBackoff}
     */
    public RestartPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        Objects.requireNonNull(budgetWindow, "budgetWindow");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
        }
        if (budget < 1) {
            throw new IllegalArgumentException("budget must be at least 1, was " + budget);
        }
        if (initialBackoff.isNegative() || maxBackoff.isNegative() || budgetWindow.isNegative()) {
            throw new IllegalArgumentException("durations must not be negative");
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("maxBackoff " + maxBackoff + " is below initialBackoff "
                    + initialBackoff);
        }
    }

    /**
     * {@return the default policy} Five attempts per restart, waits from 200 ms up to 10 s, at most 20 attempts in
     * any ten minutes.
     */
    public static RestartPolicy defaults() {
        return builder().build();
    }

    /** {@return a new builder, starting from {@link #defaults()}} */
    public static Builder builder() {
        return new Builder();
    }

    /** The bound of the wait before attempt {@code attempt} (from 1): doubling from the initial, capped. */
    Duration backoffBound(int attempt) {
        Duration d = initialBackoff;
        for (int i = 1; i < attempt && d.compareTo(maxBackoff) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
    }

    /**
     * {@return the wait before attempt {@code attempt} (from 1): uniform in the upper half of its bound}
     *
     * @param attempt the attempt, from 1
     */
    public Duration backoff(int attempt) {
        long bound = backoffBound(attempt).toNanos();
        if (bound <= 1) {
            return Duration.ofNanos(bound);
        }
        return Duration.ofNanos(bound / 2 + ThreadLocalRandom.current().nextLong(bound - bound / 2 + 1));
    }

    /** Builds a {@link RestartPolicy}. */
    public static final class Builder {
        private int maxAttempts = 5;
        private Duration initialBackoff = Duration.ofMillis(200);
        private Duration maxBackoff = Duration.ofSeconds(10);
        private int budget = 20;
        private Duration budgetWindow = Duration.ofMinutes(10);

        private Builder() {
        }

        /**
         * Attempts per restart (default 5). Checked by {@link #build()}.
         *
         * @param attempts how many attempts one restart may use before the policy gives up, at least 1
         * @return this builder
         */
        public Builder maxAttempts(int attempts) {
            this.maxAttempts = attempts;
            return this;
        }

        /**
         * The bound of the first wait and the cap of every wait (default 200 ms and 10 s). Checked by
         * {@link #build()}.
         *
         * @param initial the bound of the wait before the first attempt of a restart, not negative; zero makes the
         *                first attempt at once
         * @param max     the cap of every wait, at least {@code initial}
         * @return this builder
         */
        public Builder backoff(Duration initial, Duration max) {
            this.initialBackoff = Objects.requireNonNull(initial, "initial");
            this.maxBackoff = Objects.requireNonNull(max, "max");
            return this;
        }

        /**
         * At most {@code attempts} attempts in any {@code window} (default 20 in ten minutes), counted across
         * restarts. Checked by {@link #build()}.
         *
         * @param attempts how many attempts the sliding window allows, at least 1
         * @param window   the length of the sliding window, not negative
         * @return this builder
         */
        public Builder budget(int attempts, Duration window) {
            this.budget = attempts;
            this.budgetWindow = Objects.requireNonNull(window, "window");
            return this;
        }

        /**
         * {@return the policy}
         *
         * @throws IllegalArgumentException when a count is below 1, a duration is negative, or the cap of the waits
         *                                  is below the first bound
         */
        public RestartPolicy build() {
            return new RestartPolicy(maxAttempts, initialBackoff, maxBackoff, budget, budgetWindow);
        }
    }
}

package dev.codexclient.pool.internal;

import java.time.Duration;

/**
 * The health of one pool member, from the results of its checks: after {@code ejectAfter} failures in a row it is
 * ejected, and checked again only once its backoff has passed; each failure while ejected doubles the backoff (up
 * to {@code maxBackoff}); a success re-admits it and starts the count afresh.
 *
 * <p>Not thread-safe: the pool checks one member from one thread at a time.
 */
public final class MemberHealth {

    /** What a check's result changed. */
    public enum Change {
        /** Nothing the pool reports. */
        NONE,
        /** The member was ejected by this failure. */
        EJECTED,
        /** The ejected member passed: it is back. */
        READMITTED
    }

    private final int ejectAfter;
    private final long initialBackoff;
    private final long maxBackoff;
    private int consecutiveFailures;
    private boolean ejected;
    private long ejectedAt;
    private long backoff;
    private long nextCheckAt;
    private String lastFailure = "";

    /**
     * @param ejectAfter     failures in a row that eject the member, at least 1
     * @param initialBackoff the first wait before an ejected member is checked again
     * @param maxBackoff     the longest wait
     */
    public MemberHealth(int ejectAfter, Duration initialBackoff, Duration maxBackoff) {
        this.ejectAfter = ejectAfter;
        this.initialBackoff = initialBackoff.toNanos();
        this.maxBackoff = Math.max(maxBackoff.toNanos(), this.initialBackoff);
    }

    /** Whether a check is due at {@code now}: always, but for an ejected member whose backoff has not passed. */
    public boolean checkDue(long now) {
        return !ejected || now - nextCheckAt >= 0;
    }

    /** Records a passed check at {@code now}. */
    public Change passed(long now) {
        consecutiveFailures = 0;
        if (ejected) {
            ejected = false;
            backoff = 0;
            return Change.READMITTED;
        }
        return Change.NONE;
    }

    /** Records a failed check at {@code now}. */
    public Change failed(long now, String reason) {
        consecutiveFailures++;
        lastFailure = reason;
        if (ejected) {
            backoff = Math.min(backoff * 2, maxBackoff);
            nextCheckAt = now + backoff;
            return Change.NONE;
        }
        if (consecutiveFailures >= ejectAfter) {
            ejected = true;
            ejectedAt = now;
            backoff = initialBackoff;
            nextCheckAt = now + backoff;
            return Change.EJECTED;
        }
        return Change.NONE;
    }

    /** Whether the member is ejected. */
    public boolean ejected() {
        return ejected;
    }

    /** Failures in a row. */
    public int consecutiveFailures() {
        return consecutiveFailures;
    }

    /** The wait before the next check of an ejected member. */
    public Duration backoff() {
        return Duration.ofNanos(backoff);
    }

    /** Since when the member is ejected, on the pool's clock. */
    public long ejectedAt() {
        return ejectedAt;
    }

    /** Why the last failed check failed. */
    public String lastFailure() {
        return lastFailure;
    }
}

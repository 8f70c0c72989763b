package dev.codexclient.telemetry;

import java.time.Duration;
import java.util.Objects;

/**
 * A {@code CodexPool}'s member failed its health check too many times in a row: it gets no
 * new threads, and is checked again after {@code backoff} (twice as long after each further failure, up to the
 * pool's bound). Turns already on it go on; new turns of its threads still go to it (their thread lives there).
 *
 * @param member              the member's name
 * @param consecutiveFailures how many checks failed in a row
 * @param reason              why the last check failed
 * @param backoff             how long until it is checked again
 */
public record PoolMemberEjected(String member, int consecutiveFailures, String reason, Duration backoff) {
    /**
     * Checks that every member is present.
     *
     * @param member              the member's name
     * @param consecutiveFailures how many checks failed in a row
     * @param reason              why the last check failed
     * @param backoff             how long until it is checked again
     */
    public PoolMemberEjected {
        Objects.requireNonNull(member, "member");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(backoff, "backoff");
    }
}

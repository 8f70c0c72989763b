package dev.codexclient.telemetry;

import java.time.Duration;
import java.util.Objects;

/**
 * A {@code CodexPool}'s ejected member passed its health check again: new threads may go to
 * it.
 *
 * @param member    the member's name
 * @param ejectedFor how long it was ejected
 */
public record PoolMemberReadmitted(String member, Duration ejectedFor) {
    /**
     * Checks that every member is present.
     *
     * @param member     the member's name
     * @param ejectedFor how long it was ejected
     */
    public PoolMemberReadmitted {
        Objects.requireNonNull(member, "member");
        Objects.requireNonNull(ejectedFor, "ejectedFor");
    }
}

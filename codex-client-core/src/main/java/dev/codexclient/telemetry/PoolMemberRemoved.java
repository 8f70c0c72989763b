package dev.codexclient.telemetry;

import java.util.Objects;

/**
 * A {@code CodexPool}'s resolver no longer names a member: it takes no new threads or turns,
 * its running and queued turns finish, and then its client is closed. Also reported for each member when the pool
 * closes (then its turns do not finish: the client is closed at once).
 *
 * @param member       the member's name
 * @param threads      how many threads were placed on it
 * @param runningTurns how many turns were running or queued on it at the removal: the drain waits for them
 */
public record PoolMemberRemoved(String member, int threads, int runningTurns) {
    /**
     * Checks that every member is present.
     *
     * @param member       the member's name
     * @param threads      how many threads were placed on it
     * @param runningTurns how many turns were running or queued on it
     */
    public PoolMemberRemoved {
        Objects.requireNonNull(member, "member");
    }
}

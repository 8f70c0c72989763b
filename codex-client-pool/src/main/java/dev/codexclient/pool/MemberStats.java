package dev.codexclient.pool;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * The counts of one member of a {@link CodexPool}, from {@link CodexPool#stats()}.
 *
 * @param name          the member's name
 * @param healthy       whether new threads may go to it (its state is {@link MemberState#READY})
 * @param runningTurns  turns running (started and not ended)
 * @param queuedTurns   turns waiting for a place
 * @param threads       threads placed on it
 * @param rejectedTurns turns rejected because its queue was full
 * @param replacements  how often its client was replaced after giving up
 * @param serverPid     the process of a spawned server, when there is one
 * @param state         where it stands: ready, not ready, ejected, draining
 * @param address       its address, when it has one
 */
public record MemberStats(String name, boolean healthy, int runningTurns, int queuedTurns, int threads,
                          long rejectedTurns, long replacements, Optional<Long> serverPid, MemberState state,
                          Optional<URI> address) {
    /**
     * Checks that every member is present.
     *
     * @param name          the member's name
     * @param healthy       whether new threads may go to it
     * @param runningTurns  turns running (started and not ended)
     * @param queuedTurns   turns waiting for a place
     * @param threads       threads placed on it
     * @param rejectedTurns turns rejected because its queue was full
     * @param replacements  how often its client was replaced after giving up
     * @param serverPid     the process of a spawned server, when there is one
     * @param state         where it stands
     * @param address       its address, when it has one
     */
    public MemberStats {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(serverPid, "serverPid");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(address, "address");
    }
}

package dev.codexclient.events;

import java.time.Duration;
import java.util.Objects;

/**
 * Recovered: the restored connection is the client's, and every thread held at the loss or taken hold of during
 * the restore is back on it, except those reported by {@link CodexEventListener#threadNotResumed}. Calls that
 * waited during the outage go out from now on. It follows the outage's {@link ConnectionRestored} and its
 * {@link ThreadResumed} and {@link ThreadNotResumed} events.
 *
 * @param attempts           how many attempts the recovery took (the last one succeeded)
 * @param threadsResumed     how many threads were resumed on the restored connection
 * @param threadsNotResumed  how many could not be, and were let go of
 * @param downtime           from the loss of the connection to this moment
 */
public record RecoveryCompleted(int attempts, int threadsResumed, int threadsNotResumed, Duration downtime) {
    /**
     * Checks that every member is present.
     *
     * @param attempts          how many attempts the recovery took
     * @param threadsResumed    how many threads were resumed
     * @param threadsNotResumed how many could not be
     * @param downtime          from the loss of the connection to this moment
     */
    public RecoveryCompleted {
        Objects.requireNonNull(downtime, "downtime");
    }
}

package dev.codexclient.telemetry;

import java.time.Duration;
import java.util.Objects;

/**
 * Restarted: the new connection is the client's, and every thread held at the loss or taken hold of during
 * the restart is back on it, except those reported by {@link CodexTelemetryListener#threadNotResumed}. Calls that
 * waited during the restart go out from now on. It follows the restart's {@link ConnectionReplaced} and its
 * {@link ThreadResumed} and {@link ThreadNotResumed} records.
 *
 * @param attempts           how many attempts the restart took (the last one succeeded)
 * @param threadsResumed     how many threads were resumed on the new connection
 * @param threadsNotResumed  how many could not be, and were let go of
 * @param downtime           from the loss of the connection to this moment
 */
public record RestartCompleted(int attempts, int threadsResumed, int threadsNotResumed, Duration downtime) {
    /**
     * Checks that every member is present.
     *
     * @param attempts          how many attempts the restart took
     * @param threadsResumed    how many threads were resumed
     * @param threadsNotResumed how many could not be
     * @param downtime          from the loss of the connection to this moment
     */
    public RestartCompleted {
        Objects.requireNonNull(downtime, "downtime");
    }
}

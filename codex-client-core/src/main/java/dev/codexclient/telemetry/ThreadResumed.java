package dev.codexclient.telemetry;

import java.util.Objects;

/**
 * A thread the user holds was resumed on a new connection.
 *
 * @param threadId the thread's id
 */
public record ThreadResumed(String threadId) {
    /**
     * Checks that every member is present.
     *
     * @param threadId the thread's id
     */
    public ThreadResumed {
        Objects.requireNonNull(threadId, "threadId");
    }
}

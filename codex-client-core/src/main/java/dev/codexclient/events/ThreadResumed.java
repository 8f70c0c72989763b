package dev.codexclient.events;

import java.util.Objects;

/**
 * A thread the user holds was resumed on a restored connection.
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

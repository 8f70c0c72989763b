package dev.codexclient.telemetry;

import java.util.Objects;

/**
 * A {@code PooledThread} that had no turn yet could not be resumed on its member's restarted
 * server (codex keeps no session file for a thread before its first turn), so the pool started a new thread there
 * with the same {@code thread/start} params. The pooled thread's id is the new thread's from now on.
 *
 * @param member      the member's name
 * @param oldThreadId the id of the thread that was lost
 * @param newThreadId the id of the thread that replaces it
 */
public record PooledThreadRecreated(String member, String oldThreadId, String newThreadId) {
    /**
     * Checks that every member is present.
     *
     * @param member      the member's name
     * @param oldThreadId the id of the thread that was lost
     * @param newThreadId the id of the thread that replaces it
     */
    public PooledThreadRecreated {
        Objects.requireNonNull(member, "member");
        Objects.requireNonNull(oldThreadId, "oldThreadId");
        Objects.requireNonNull(newThreadId, "newThreadId");
    }
}

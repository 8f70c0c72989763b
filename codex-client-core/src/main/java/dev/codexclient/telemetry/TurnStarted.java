package dev.codexclient.telemetry;

import java.util.Objects;

/**
 * A turn started: the server named it in its answer to {@code turn/start}. A turn whose start failed has neither
 * this record nor a {@link TurnEnded}.
 *
 * @param sequence unique among this client's turn records: two starts are equal only when they are the same
 * @param threadId the thread's id
 * @param turnId   the turn's id, as the server gave it
 */
public record TurnStarted(long sequence, String threadId, String turnId) {
    /**
     * Checks that every member is present.
     *
     * @param sequence unique among this client's turn records: two starts are equal only when they are the same
     * @param threadId the thread's id
     * @param turnId   the turn's id, as the server gave it
     */
    public TurnStarted {
        Objects.requireNonNull(threadId, "threadId");
        Objects.requireNonNull(turnId, "turnId");
    }
}

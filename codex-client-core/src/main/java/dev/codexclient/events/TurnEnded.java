package dev.codexclient.events;

import dev.codexclient.errors.CodexException;
import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.protocol.TurnStatus;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A turn ended.
 *
 * @param started    the event of its start
 * @param status     the status the server gave it ({@code completed}, {@code interrupted}, {@code failed}, or one
 *                   a newer server defines); {@code failed} too when the turn was lost with its server
 * @param error      why it did not complete, when it did not
 * @param tokenUsage the thread's token usage as last reported during the turn, when the server reported it
 * @param duration   from the turn's start to its end
 */
public record TurnEnded(TurnStarted started, TurnStatus status, Optional<CodexException> error,
                        Optional<ThreadTokenUsage> tokenUsage, Duration duration) {
    /**
     * Checks that every member is present.
     *
     * @param started    the event of its start
     * @param status     the status the server gave it ({@code completed}, {@code interrupted}, {@code failed}, or one a
     *                   newer server defines); {@code failed} too when the turn was lost with its server
     * @param error      why it did not complete, when it did not
     * @param tokenUsage the thread's token usage as last reported during the turn, when the server reported it
     * @param duration   from the turn's start to its end
     */
    public TurnEnded {
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(tokenUsage, "tokenUsage");
        Objects.requireNonNull(duration, "duration");
    }
}

package dev.codexclient.telemetry;

import dev.codexclient.errors.CodexException;
import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.protocol.TurnStatus;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A turn ended.
 *
 * @param started    the record of its start
 * @param status     the status the server gave it ({@code completed}, {@code interrupted}, {@code failed}, or one
 *                   a newer server defines); {@code failed} too when the turn was lost with its server
 * @param error      why it did not complete, when it did not and the reason is known
 * @param tokenUsage the thread's token usage as last reported during the turn, when the server reported it
 * @param duration   from the turn's start (the client sending {@code turn/start}) to its end
 * @param turnTokens the tokens the turn itself spent, by kind, when the server reported usage during the turn:
 *                   {@code tokenUsage} holds the thread's running total and the last model call only, and a turn
 *                   may make several calls, so a counter of tokens needs this sum
 */
public record TurnEnded(TurnStarted started, TurnStatus status, Optional<CodexException> error,
                        Optional<ThreadTokenUsage> tokenUsage, Duration duration, Optional<TokenCounts> turnTokens) {
    /**
     * Checks that every member is present.
     *
     * @param started    the record of its start
     * @param status     the status the server gave it ({@code completed}, {@code interrupted}, {@code failed}, or one a
     *                   newer server defines); {@code failed} too when the turn was lost with its server
     * @param error      why it did not complete, when it did not and the reason is known
     * @param tokenUsage the thread's token usage as last reported during the turn, when the server reported it
     * @param duration   from the turn's start (the client sending {@code turn/start}) to its end
     * @param turnTokens the tokens the turn itself spent, by kind, when the server reported usage during the turn
     */
    public TurnEnded {
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(tokenUsage, "tokenUsage");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(turnTokens, "turnTokens");
    }

    /**
     * An end without the turn's own token counts (e.g. a turn lost with its server before any usage report).
     *
     * @param started    the record of its start
     * @param status     the status the server gave it ({@code completed}, {@code interrupted}, {@code failed}, or one a
     *                   newer server defines); {@code failed} too when the turn was lost with its server
     * @param error      why it did not complete, when it did not and the reason is known
     * @param tokenUsage the thread's token usage as last reported during the turn, when the server reported it
     * @param duration   from the turn's start (the client sending {@code turn/start}) to its end
     */
    public TurnEnded(TurnStarted started, TurnStatus status, Optional<CodexException> error,
                     Optional<ThreadTokenUsage> tokenUsage, Duration duration) {
        this(started, status, error, tokenUsage, duration, Optional.empty());
    }
}

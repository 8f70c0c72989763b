package dev.codexclient.telemetry;

import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.protocol.TokenUsageBreakdown;
import java.util.Optional;

/**
 * Tokens spent by one turn: the growth of its thread's total over the turn, by kind. Cached input tokens are part
 * of the input tokens, and reasoning tokens part of the output tokens, as the server counts them.
 *
 * <p>The one reading of a turn's usage: {@code thread/tokenUsage/updated} reports the thread's running total and its
 * last model call, so the total before a turn is its first report's total less that report's last call, and what
 * the turn spent is its latest total less that ({@link #spent(ThreadTokenUsage, ThreadTokenUsage)}). A turn's
 * result ({@code TurnResult.tokens()}), its running count ({@code CodexTurn.tokens()}), the client's telemetry and
 * the integrations all read it so.
 *
 * @param inputTokens           tokens the model read
 * @param cachedInputTokens     of those, tokens served from the prompt cache
 * @param outputTokens          tokens the model wrote
 * @param reasoningOutputTokens of those, reasoning tokens
 * @param totalTokens           all tokens, as the server totals them
 */
public record TokenCounts(long inputTokens, long cachedInputTokens, long outputTokens, long reasoningOutputTokens,
                          long totalTokens) {
    /**
     * Checks that no count is negative.
     *
     * @param inputTokens           tokens the model read
     * @param cachedInputTokens     of those, tokens served from the prompt cache
     * @param outputTokens          tokens the model wrote
     * @param reasoningOutputTokens of those, reasoning tokens
     * @param totalTokens           all tokens, as the server totals them
     */
    public TokenCounts {
        if (inputTokens < 0 || cachedInputTokens < 0 || outputTokens < 0 || reasoningOutputTokens < 0
                || totalTokens < 0) {
            throw new IllegalArgumentException("token counts cannot be negative");
        }
    }

    /** No tokens. */
    public static final TokenCounts ZERO = new TokenCounts(0, 0, 0, 0, 0);

    /**
     * {@return the counts of one breakdown of {@code thread/tokenUsage/updated}} A negative count (a server's
     * mistake) reads as zero.
     *
     * @param breakdown the breakdown: a thread's total, or its last call
     */
    public static TokenCounts of(TokenUsageBreakdown breakdown) {
        return new TokenCounts(Math.max(0, breakdown.inputTokens()), Math.max(0, breakdown.cachedInputTokens()),
                Math.max(0, breakdown.outputTokens()), Math.max(0, breakdown.reasoningOutputTokens()),
                Math.max(0, breakdown.totalTokens()));
    }

    /**
     * {@return these counts less {@code other}'s, each at least zero} A total that went down (a compacted or reset
     * thread) counts as nothing spent rather than negative.
     *
     * @param other the counts to take away
     */
    public TokenCounts minus(TokenCounts other) {
        return new TokenCounts(Math.max(0, inputTokens - other.inputTokens),
                Math.max(0, cachedInputTokens - other.cachedInputTokens), Math.max(0, outputTokens - other.outputTokens),
                Math.max(0, reasoningOutputTokens - other.reasoningOutputTokens),
                Math.max(0, totalTokens - other.totalTokens));
    }

    /**
     * {@return the tokens a turn spent, from the first usage report it had and its latest; empty when either has no
     * total} The total before the turn is the first report's total less its last call: the first report of a turn
     * follows its first model call.
     *
     * @param first  the turn's first report
     * @param latest the turn's latest report (the first again for a turn of one call)
     */
    public static Optional<TokenCounts> spent(ThreadTokenUsage first, ThreadTokenUsage latest) {
        if (first == null || latest == null || first.total() == null || latest.total() == null) {
            return Optional.empty();
        }
        TokenCounts before = first.last() == null ? ZERO : of(first.total()).minus(of(first.last()));
        return Optional.of(of(latest.total()).minus(before));
    }
}

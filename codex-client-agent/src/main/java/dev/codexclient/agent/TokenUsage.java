package dev.codexclient.agent;

import dev.codexclient.protocol.TokenUsageBreakdown;

/**
 * Token counts, by kind, as codex reports them in {@code thread/tokenUsage/updated}.
 *
 * @param inputTokens           input tokens, cached ones included
 * @param cachedInputTokens     input tokens served from the cache
 * @param outputTokens          output tokens, reasoning ones included
 * @param reasoningOutputTokens output tokens spent on reasoning
 * @param totalTokens           all tokens
 */
public record TokenUsage(long inputTokens, long cachedInputTokens, long outputTokens, long reasoningOutputTokens,
                         long totalTokens) {
    /** No tokens. */
    public static final TokenUsage ZERO = new TokenUsage(0, 0, 0, 0, 0);

    /**
     * The counts of one protocol breakdown.
     *
     * @param breakdown the breakdown
     * @return the counts
     */
    public static TokenUsage of(TokenUsageBreakdown breakdown) {
        return new TokenUsage(breakdown.inputTokens(), breakdown.cachedInputTokens(), breakdown.outputTokens(),
                breakdown.reasoningOutputTokens(), breakdown.totalTokens());
    }

    /**
     * These counts less {@code other}'s, each at least zero.
     *
     * @param other the counts to subtract
     * @return the difference
     */
    public TokenUsage minus(TokenUsage other) {
        return new TokenUsage(Math.max(0, inputTokens - other.inputTokens),
                Math.max(0, cachedInputTokens - other.cachedInputTokens),
                Math.max(0, outputTokens - other.outputTokens),
                Math.max(0, reasoningOutputTokens - other.reasoningOutputTokens),
                Math.max(0, totalTokens - other.totalTokens));
    }
}

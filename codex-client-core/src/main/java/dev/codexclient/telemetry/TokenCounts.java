package dev.codexclient.telemetry;

/**
 * Tokens spent by one turn: the growth of its thread's total over the turn, by kind. Cached input tokens are part
 * of the input tokens, and reasoning tokens part of the output tokens, as the server counts them.
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
}

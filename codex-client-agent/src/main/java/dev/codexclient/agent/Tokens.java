package dev.codexclient.agent;

import dev.codexclient.protocol.TokenUsageBreakdown;
import dev.codexclient.telemetry.TokenCounts;

/**
 * Token arithmetic on {@link TokenCounts}, the one shape of token counts in the hand-written API (a run's usage here,
 * a turn's in the client's telemetry): from the wire's {@link TokenUsageBreakdown}, and the difference of two. One
 * job: that arithmetic.
 */
final class Tokens {
    /** No tokens. */
    static final TokenCounts ZERO = new TokenCounts(0, 0, 0, 0, 0);

    private Tokens() {
    }

    /** The counts of one breakdown of {@code thread/tokenUsage/updated}, each at least zero. */
    static TokenCounts of(TokenUsageBreakdown b) {
        return new TokenCounts(Math.max(0, b.inputTokens()), Math.max(0, b.cachedInputTokens()),
                Math.max(0, b.outputTokens()), Math.max(0, b.reasoningOutputTokens()), Math.max(0, b.totalTokens()));
    }

    /** {@code a} less {@code b}, each count at least zero. */
    static TokenCounts minus(TokenCounts a, TokenCounts b) {
        return new TokenCounts(Math.max(0, a.inputTokens() - b.inputTokens()),
                Math.max(0, a.cachedInputTokens() - b.cachedInputTokens()),
                Math.max(0, a.outputTokens() - b.outputTokens()),
                Math.max(0, a.reasoningOutputTokens() - b.reasoningOutputTokens()),
                Math.max(0, a.totalTokens() - b.totalTokens()));
    }
}

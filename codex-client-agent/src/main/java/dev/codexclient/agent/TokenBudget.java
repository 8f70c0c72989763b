package dev.codexclient.agent;

import dev.codexclient.telemetry.TokenCounts;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The most tokens a run may spend: in total, and optionally input and output separately. Counted from codex's
 * {@code thread/tokenUsage/updated} reports over the whole run (every model call of its turn); a resumed thread's
 * earlier turns do not count. A run whose usage crosses a limit is interrupted and fails with an
 * {@link AgentBudgetExceededException} carrying the usage so far.
 *
 * <p>Codex reports usage after each model call, so a run can end a little above its budget: the call that crossed
 * it has been paid for.
 */
public final class TokenBudget {
    private final long total;
    private final long input;
    private final long output;

    private TokenBudget(long total, long input, long output) {
        this.total = total;
        this.input = input;
        this.output = output;
    }

    /**
     * A budget of {@code totalTokens} in all.
     *
     * @param totalTokens the most tokens, positive
     * @return the budget
     */
    public static TokenBudget ofTotal(long totalTokens) {
        return new TokenBudget(positive(totalTokens, "totalTokens"), -1, -1);
    }

    /**
     * A budget without a total, to limit input or output only.
     *
     * @return a budget without limits
     */
    public static TokenBudget unlimited() {
        return new TokenBudget(-1, -1, -1);
    }

    /**
     * This budget with a limit on input tokens (cached ones included).
     *
     * @param inputTokens the most input tokens, positive
     * @return a new budget
     */
    public TokenBudget withInput(long inputTokens) {
        return new TokenBudget(total, positive(inputTokens, "inputTokens"), output);
    }

    /**
     * This budget with a limit on output tokens (reasoning ones included).
     *
     * @param outputTokens the most output tokens, positive
     * @return a new budget
     */
    public TokenBudget withOutput(long outputTokens) {
        return new TokenBudget(total, input, positive(outputTokens, "outputTokens"));
    }

    /**
     * The limit on all tokens.
     *
     * @return the limit, when set
     */
    public OptionalLong totalTokens() {
        return total < 0 ? OptionalLong.empty() : OptionalLong.of(total);
    }

    /**
     * The limit on input tokens.
     *
     * @return the limit, when set
     */
    public OptionalLong inputTokens() {
        return input < 0 ? OptionalLong.empty() : OptionalLong.of(input);
    }

    /**
     * The limit on output tokens.
     *
     * @return the limit, when set
     */
    public OptionalLong outputTokens() {
        return output < 0 ? OptionalLong.empty() : OptionalLong.of(output);
    }

    /** Which limit {@code usage} crosses first (total, input, output), if any. */
    Optional<AgentBudgetExceededException.Limit> crossedBy(TokenCounts usage) {
        if (total >= 0 && usage.totalTokens() > total) {
            return Optional.of(AgentBudgetExceededException.Limit.TOTAL_TOKENS);
        }
        if (input >= 0 && usage.inputTokens() > input) {
            return Optional.of(AgentBudgetExceededException.Limit.INPUT_TOKENS);
        }
        if (output >= 0 && usage.outputTokens() > output) {
            return Optional.of(AgentBudgetExceededException.Limit.OUTPUT_TOKENS);
        }
        return Optional.empty();
    }

    /** The limit's value, for messages. */
    long limitOf(AgentBudgetExceededException.Limit limit) {
        return switch (limit) {
            case TOTAL_TOKENS -> total;
            case INPUT_TOKENS -> input;
            case OUTPUT_TOKENS -> output;
            default -> -1;
        };
    }

    private static long positive(long n, String what) {
        if (n <= 0) {
            throw new IllegalArgumentException(what + " must be positive: " + n);
        }
        return n;
    }

    @Override
    public String toString() {
        return "TokenBudget[total=" + (total < 0 ? "-" : total) + ", input=" + (input < 0 ? "-" : input)
                + ", output=" + (output < 0 ? "-" : output) + "]";
    }
}

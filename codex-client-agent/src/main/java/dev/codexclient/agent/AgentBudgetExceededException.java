package dev.codexclient.agent;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A run crossed a budget: one of its {@link TokenBudget} limits or its deadline (the run was interrupted and
 * awaited for a bounded time), or codex reported a usage limit or a model cap. Always {@link FailurePhase#BUDGET}.
 */
public class AgentBudgetExceededException extends AgentRunException {
    private static final long serialVersionUID = 1L;

    /** Which budget was crossed. */
    public enum Limit {
        /** The run's total tokens. */
        TOTAL_TOKENS,
        /** The run's input tokens. */
        INPUT_TOKENS,
        /** The run's output tokens. */
        OUTPUT_TOKENS,
        /** The run's deadline: passed before the run started, or during it. */
        DEADLINE,
        /** Codex's {@code usageLimitExceeded} or {@code sessionBudgetExceeded}: the account's limit. */
        USAGE_LIMIT,
        /** Codex's {@code modelCap}: the model's cap for this account, reset after a time. */
        MODEL_CAP
    }

    /** Which budget was crossed. */
    private final Limit limit;
    /** When a model cap resets; null when unknown. */
    private final Duration resetAfter;

    /**
     * A budget crossed.
     *
     * @param limit      which budget
     * @param message    what happened
     * @param resetAfter when the limit resets, for {@link Limit#MODEL_CAP}; null when unknown
     * @param cause      the failure behind it, or null
     * @param details    the failed turn's error info, the stderr tail, usage and thread
     */
    public AgentBudgetExceededException(Limit limit, String message, Duration resetAfter, Throwable cause,
                                        Details details) {
        super(FailurePhase.BUDGET, message, cause, details);
        this.limit = Objects.requireNonNull(limit, "limit");
        this.resetAfter = resetAfter;
    }

    /**
     * Which budget was crossed.
     *
     * @return the limit
     */
    public Limit limit() {
        return limit;
    }

    /**
     * How long until codex lifts the cap ({@code modelCap}'s {@code reset_after_seconds}).
     *
     * @return the time, when codex said
     */
    public Optional<Duration> resetAfter() {
        return Optional.ofNullable(resetAfter);
    }
}

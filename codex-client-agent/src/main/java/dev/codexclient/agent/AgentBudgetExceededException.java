package dev.codexclient.agent;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A run crossed a budget: one of its {@link TokenBudget} limits or its deadline (the run was interrupted and
 * awaited for a bounded time), or codex reported a usage limit or a model cap. Always {@link FailurePhase#BUDGET}.
 * {@link #limit()} says which budget, {@link #tokenLimit()} or {@link #deadline()} its value.
 *
 * <pre>{@code
 * } catch (AgentBudgetExceededException e) {
 *     log.warn("run stopped at {} of {} tokens", e.usage().map(TokenCounts::totalTokens).orElse(0L),
 *             e.tokenLimit().orElse(-1));
 * }
 * }</pre>
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
        MODEL_CAP;

        /** {@return whether this is one of a {@link TokenBudget}'s limits} */
        public boolean isTokenLimit() {
            return this == TOTAL_TOKENS || this == INPUT_TOKENS || this == OUTPUT_TOKENS;
        }
    }

    /** Which budget was crossed. */
    private final Limit limit;
    /** When a model cap resets; null when unknown. */
    private final Duration resetAfter;
    /** The token limit crossed; -1 for a limit that is not one of tokens. */
    private final long tokenLimit;
    /** The deadline passed; null for another limit. */
    private final Instant deadline;

    /**
     * A limit codex reported ({@link Limit#USAGE_LIMIT}, {@link Limit#MODEL_CAP}): the account's, whose value the
     * client does not know.
     *
     * @param limit      which budget
     * @param message    what happened
     * @param resetAfter when the limit resets, for {@link Limit#MODEL_CAP}; null when unknown
     * @param cause      the failure behind it, or null
     * @param details    the failed turn's error info, the stderr tail, usage and thread
     */
    public AgentBudgetExceededException(Limit limit, String message, Duration resetAfter, Throwable cause,
                                        Details details) {
        this(limit, -1, null, message, resetAfter, cause, details);
    }

    private AgentBudgetExceededException(Limit limit, long tokenLimit, Instant deadline, String message,
                                         Duration resetAfter, Throwable cause, Details details) {
        super(FailurePhase.BUDGET, message, cause, details);
        this.limit = Objects.requireNonNull(limit, "limit");
        this.tokenLimit = tokenLimit;
        this.deadline = deadline;
        this.resetAfter = resetAfter;
    }

    /**
     * A token limit of the run's {@link TokenBudget} crossed.
     *
     * @param limit   {@link Limit#TOTAL_TOKENS}, {@link Limit#INPUT_TOKENS} or {@link Limit#OUTPUT_TOKENS}
     * @param tokens  the limit's value
     * @param message what happened
     * @param details the stderr tail, usage and thread
     * @return the exception
     * @throws IllegalArgumentException when {@code limit} is not a token limit
     */
    public static AgentBudgetExceededException tokens(Limit limit, long tokens, String message, Details details) {
        if (!limit.isTokenLimit()) {
            throw new IllegalArgumentException(limit + " is not a token limit");
        }
        return new AgentBudgetExceededException(limit, tokens, null, message, null, null, details);
    }

    /**
     * The run's deadline passed.
     *
     * @param deadline the deadline
     * @param message  what happened
     * @param details  the stderr tail, usage and thread
     * @return the exception
     */
    public static AgentBudgetExceededException deadline(Instant deadline, String message, Details details) {
        return new AgentBudgetExceededException(Limit.DEADLINE, -1, Objects.requireNonNull(deadline, "deadline"),
                message, null, null, details);
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
     * The value of the token limit crossed, as the run's {@link TokenBudget} set it.
     *
     * @return the number of tokens, for {@link Limit#TOTAL_TOKENS}, {@link Limit#INPUT_TOKENS} and
     *         {@link Limit#OUTPUT_TOKENS}; empty for the other limits
     */
    public OptionalLong tokenLimit() {
        return tokenLimit < 0 ? OptionalLong.empty() : OptionalLong.of(tokenLimit);
    }

    /**
     * The deadline passed: the run's {@link AgentRun.Builder#deadline deadline} or its start plus its
     * {@link AgentRun.Builder#timeout timeout}, whichever came first.
     *
     * @return the instant, for {@link Limit#DEADLINE}; empty for the other limits
     */
    public Optional<Instant> deadline() {
        return Optional.ofNullable(deadline);
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

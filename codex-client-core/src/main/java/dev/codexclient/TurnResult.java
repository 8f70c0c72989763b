package dev.codexclient;

import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.session.TurnState;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.TurnError;
import dev.codexclient.protocol.TurnPlanStep;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.telemetry.TokenCounts;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How a turn ended, with everything it produced folded together: the final agent text, every completed item in
 * order, token usage, the last diff and plan, and the error of a failed turn.
 *
 * <p>Items are accumulated from {@code item/completed} events rather than taken from {@code turn/completed},
 * because older servers send that turn with an empty item list.
 */
public final class TurnResult {
    private final String threadId;
    private final String turnId;
    private final TurnStatus status;
    private final Turn turn;
    private final String finalText;
    private final List<ThreadItem> items;
    private final ThreadTokenUsage usage;
    private final TokenCounts tokens;
    private final String lastDiff;
    private final List<TurnPlanStep> lastPlan;
    private final TurnError error;
    private final boolean deadlineExceeded;
    private final boolean stalled;
    private final Redactor redactor;

    /** {@return the result of a turn that ended as {@code end} says} */
    static TurnResult of(TurnState.End end) {
        return new TurnResult(end.threadId(), end.turnId(), end.status(), end.turn(), end.finalText(), end.items(),
                end.usage(), end.tokens(), end.diff(), end.plan(), end.error(), end.deadlineExceeded(), end.stalled(),
                end.redactor());
    }

    private TurnResult(String threadId, String turnId, TurnStatus status, Turn turn, String finalText,
                       List<ThreadItem> items, ThreadTokenUsage usage, TokenCounts tokens, String lastDiff,
                       List<TurnPlanStep> lastPlan, TurnError error, boolean deadlineExceeded, boolean stalled,
                       Redactor redactor) {
        this.threadId = Objects.requireNonNull(threadId, "threadId");
        this.turnId = turnId;
        this.status = Objects.requireNonNull(status, "status");
        this.turn = turn;
        this.finalText = finalText == null ? "" : finalText;
        this.items = List.copyOf(items);
        this.usage = usage;
        this.tokens = tokens;
        this.lastDiff = lastDiff;
        this.lastPlan = lastPlan == null ? List.of() : List.copyOf(lastPlan);
        this.error = error;
        this.deadlineExceeded = deadlineExceeded;
        this.stalled = stalled;
        this.redactor = Objects.requireNonNull(redactor, "redactor");
    }

    /** {@return the id of the thread the turn ran in} */
    public String threadId() {
        return threadId;
    }

    /**
     * {@return the turn's id; empty only when the turn ended (stalled, or was watched out) before the server ever
     * named it} That is, neither the {@code turn/start} response nor {@code turn/completed} gave it.
     */
    public Optional<String> turnId() {
        return Optional.ofNullable(turnId);
    }

    /**
     * {@return how the turn ended} {@code COMPLETED}, {@code INTERRUPTED} or {@code FAILED}, or from a newer server a
     * status this SDK does not know ({@code status().known()} is {@code UNRECOGNIZED}, {@code status().asString()} the
     * wire value).
     */
    public TurnStatus status() {
        return status;
    }

    /** {@return whether the turn ended with status {@code COMPLETED}} */
    public boolean isCompleted() {
        return status == TurnStatus.COMPLETED;
    }

    /** {@return the turn object of {@code turn/completed}, or empty when the server sent none} */
    public Optional<Turn> turn() {
        return Optional.ofNullable(turn);
    }

    /**
     * {@return the text of the last agent message of the turn; empty when the agent said nothing} When the final
     * {@code item/completed} never came (interrupted turn), the streamed deltas of the last message.
     */
    public String finalText() {
        return finalText;
    }

    /** {@return every item completed during the turn, in completion order; an unmodifiable list} */
    public List<ThreadItem> items() {
        return items;
    }

    /**
     * {@return the completed items of one kind, in completion order} E.g.
     * {@code itemsOf(ThreadItem.CommandExecution.class)}.
     *
     * @param <T>  the kind of item
     * @param type the class of that kind
     */
    public <T extends ThreadItem> List<T> itemsOf(Class<T> type) {
        return items.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /**
     * {@return the completed item with this id, or empty when no item of that id completed in the turn}
     *
     * @param itemId the item's id
     */
    public Optional<ThreadItem> item(String itemId) {
        return items.stream().filter(i -> itemId.equals(i.id())).findFirst();
    }

    /**
     * {@return the token usage of the thread as of the end of this turn, or empty when the server reported none}
     * {@code last} is this turn, {@code total} all turns of the thread.
     */
    public Optional<ThreadTokenUsage> usage() {
        return Optional.ofNullable(usage);
    }

    /**
     * {@return the tokens this turn spent, by kind, or empty when the server reported no usage} Its thread's total
     * at the end less the total before the turn (see {@link TokenCounts}): every model call of the turn, not only
     * the last one ({@code usage().last()}), and none of the thread's earlier turns ({@code usage().total()}).
     */
    public Optional<TokenCounts> tokens() {
        return Optional.ofNullable(tokens);
    }

    /** {@return the last aggregated diff the turn reported ({@code turn/diff/updated}), or empty when none} */
    public Optional<String> lastDiff() {
        return Optional.ofNullable(lastDiff);
    }

    /** {@return the last plan the turn reported ({@code turn/plan/updated}); empty when none} */
    public List<TurnPlanStep> lastPlan() {
        return lastPlan;
    }

    /**
     * {@return the error of a failed turn (message, {@code codexErrorInfo}, additional details)} Empty when the
     * turn did not fail, or failed without an error.
     */
    public Optional<TurnError> error() {
        return Optional.ofNullable(error);
    }

    /** {@return whether the client interrupted the turn because its {@link CodexTurn#deadline deadline} passed} */
    public boolean deadlineExceeded() {
        return deadlineExceeded;
    }

    /**
     * {@return whether the server never settled the turn} That is: it was interrupted (deadline or watchdog) and
     * {@code turn/completed} still did not arrive within the grace period. The status is then
     * {@code INTERRUPTED} as far as this client is concerned.
     */
    public boolean stalled() {
        return stalled;
    }

    /**
     * Returns this result unless the turn failed.
     *
     * @return this result, when the turn completed or was interrupted
     * @throws CodexTurnFailedException when the turn failed (status {@code FAILED}), with its error; secrets the
     *                                  client knows are masked in the message
     */
    public TurnResult orThrow() {
        if (status == TurnStatus.FAILED) {
            throw failure();
        }
        return this;
    }

    CodexTurnFailedException failure() {
        // The client's redactor knows the client's own secrets, which the server's text may quote.
        return TurnState.End.failure(threadId, turnId, error, redactor);
    }

    @Override
    public String toString() {
        return "TurnResult[" + threadId + "/" + (turnId == null ? "?" : turnId) + " " + status + (deadlineExceeded ? " (deadline)" : "")
                + (stalled ? " (stalled)" : "") + ", " + items.size() + " items, text="
                + (finalText.length() > 80 ? finalText.substring(0, 80) + "…" : finalText) + "]";
    }
}

package dev.codexclient;

import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.internal.Redactor;
import dev.codexclient.protocol.CodexErrorInfo;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.TurnError;
import dev.codexclient.protocol.TurnPlanStep;
import dev.codexclient.protocol.TurnStatus;
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
    private final String lastDiff;
    private final List<TurnPlanStep> lastPlan;
    private final TurnError error;
    private final boolean deadlineExceeded;
    private final boolean stalled;
    private final Redactor redactor;

    TurnResult(String threadId, String turnId, TurnStatus status, Turn turn, String finalText,
               List<ThreadItem> items, ThreadTokenUsage usage, String lastDiff, List<TurnPlanStep> lastPlan,
               TurnError error, boolean deadlineExceeded, boolean stalled, Redactor redactor) {
        this.threadId = Objects.requireNonNull(threadId, "threadId");
        this.turnId = turnId;
        this.status = Objects.requireNonNull(status, "status");
        this.turn = turn;
        this.finalText = finalText == null ? "" : finalText;
        this.items = List.copyOf(items);
        this.usage = usage;
        this.lastDiff = lastDiff;
        this.lastPlan = lastPlan == null ? List.of() : List.copyOf(lastPlan);
        this.error = error;
        this.deadlineExceeded = deadlineExceeded;
        this.stalled = stalled;
        this.redactor = Objects.requireNonNull(redactor, "redactor");
    }

    /** The thread the turn ran in. */
    public String threadId() {
        return threadId;
    }

    /**
     * The turn's id; empty only when the turn ended (stalled, or was watched out) before the server ever named it,
     * neither in the {@code turn/start} response nor in {@code turn/completed}.
     */
    public Optional<String> turnId() {
        return Optional.ofNullable(turnId);
    }

    /**
     * {@code COMPLETED}, {@code INTERRUPTED} or {@code FAILED}, or from a newer server a status this SDK does not know
     * ({@code status().known()} is {@code UNRECOGNIZED}, {@code status().asString()} the wire value).
     */
    public TurnStatus status() {
        return status;
    }

    /** True when the turn ended with status {@code COMPLETED}. */
    public boolean isCompleted() {
        return status == TurnStatus.COMPLETED;
    }

    /** The turn object of {@code turn/completed}, when the server sent one. */
    public Optional<Turn> turn() {
        return Optional.ofNullable(turn);
    }

    /**
     * The text of the last agent message of the turn; empty when the agent said nothing. When the final
     * {@code item/completed} never came (interrupted turn), the streamed deltas of the last message.
     */
    public String finalText() {
        return finalText;
    }

    /** Every item completed during the turn, in completion order. */
    public List<ThreadItem> items() {
        return items;
    }

    /** The completed items of one kind, e.g. {@code itemsOf(ThreadItem.CommandExecution.class)}. */
    public <T extends ThreadItem> List<T> itemsOf(Class<T> type) {
        return items.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** The completed item with this id. */
    public Optional<ThreadItem> item(String itemId) {
        return items.stream().filter(i -> itemId.equals(ItemIds.of(i))).findFirst();
    }

    /** Token usage of the thread as of the end of this turn: {@code last} is this turn, {@code total} all turns. */
    public Optional<ThreadTokenUsage> usage() {
        return Optional.ofNullable(usage);
    }

    /** The last aggregated diff the turn reported ({@code turn/diff/updated}). */
    public Optional<String> lastDiff() {
        return Optional.ofNullable(lastDiff);
    }

    /** The last plan the turn reported ({@code turn/plan/updated}); empty when none. */
    public List<TurnPlanStep> lastPlan() {
        return lastPlan;
    }

    /** The error of a failed turn (message, {@code codexErrorInfo}, additional details). */
    public Optional<TurnError> error() {
        return Optional.ofNullable(error);
    }

    /** True when the client interrupted the turn because its deadline passed. */
    public boolean deadlineExceeded() {
        return deadlineExceeded;
    }

    /**
     * True when the server never settled the turn: it was interrupted (deadline or watchdog) and
     * {@code turn/completed} still did not arrive within the grace period. The status is then
     * {@code INTERRUPTED} as far as this client is concerned.
     */
    public boolean stalled() {
        return stalled;
    }

    /** Returns this result when the turn completed; throws {@link CodexTurnFailedException} when it failed. */
    public TurnResult orThrow() {
        if (status == TurnStatus.FAILED) {
            throw failure();
        }
        return this;
    }

    CodexTurnFailedException failure() {
        // The server's text can quote the credential that failed ("incorrect API key …"): mask it before it
        // becomes an exception message. The client's redactor knows the client's own secrets.
        String message = error == null ? "turn failed without an error message" : redactor.redact(error.message());
        CodexErrorInfo info = error == null ? null : error.codexErrorInfo();
        String infoText = info == null ? null : redactor.redact(ProtocolText.compact(info));
        String details = error == null || error.additionalDetails() == null ? null
                : redactor.redact(error.additionalDetails());
        return new CodexTurnFailedException(threadId, turnId, message, info, infoText, details);
    }

    @Override
    public String toString() {
        return "TurnResult[" + threadId + "/" + (turnId == null ? "?" : turnId) + " " + status + (deadlineExceeded ? " (deadline)" : "")
                + (stalled ? " (stalled)" : "") + ", " + items.size() + " items, text="
                + (finalText.length() > 80 ? finalText.substring(0, 80) + "…" : finalText) + "]";
    }
}

package dev.codexclient.errors;

import dev.codexclient.protocol.CodexErrorInfo;
import java.util.Optional;

/**
 * A turn ended with status {@code failed}. Carries the server's error message, the typed {@code codexErrorInfo}
 * when codex classified the failure (e.g. {@code CodexErrorInfo.Simple.USAGE_LIMIT_EXCEEDED}, or
 * {@code CodexErrorInfo.HttpConnectionFailed} with its HTTP status), and additional details when codex sent them.
 *
 * <pre>{@code
 * try {
 *     turn.await(Duration.ofMinutes(10)).orThrow();
 * } catch (CodexTurnFailedException e) {
 *     if (e.codexErrorInfo().orElse(null) == CodexErrorInfo.Simple.CONTEXT_WINDOW_EXCEEDED) {
 *         thread.compact();
 *     }
 * }
 * }</pre>
 */
public class CodexTurnFailedException extends CodexException {
    private static final long serialVersionUID = 1L;

    /** The thread the turn ran in. */
    private final String threadId;
    /** The turn's id; null when the turn failed before the server named it. */
    private final String turnId;
    /** The error message codex reported for the turn, secrets masked; empty when it sent none. */
    private final String serverMessage;
    private final transient CodexErrorInfo codexErrorInfo;
    /** Further details codex sent about the failure, secrets masked; null when it sent none. */
    private final String additionalDetails;

    /**
     * A failed turn.
     *
     * @param threadId          the thread of the turn
     * @param turnId            the turn's id, or null when the server never named it
     * @param serverMessage     the error message codex reported (secrets masked)
     * @param codexErrorInfo    codex's classification of the failure, or null
     * @param infoText          {@code codexErrorInfo} as text for the exception's message (secrets masked), or null
     * @param additionalDetails further details codex sent (secrets masked), or null
     */
    public CodexTurnFailedException(String threadId, String turnId, String serverMessage,
                                    CodexErrorInfo codexErrorInfo, String infoText, String additionalDetails) {
        super("turn " + (turnId == null ? "(no id)" : turnId) + " of thread " + threadId + " failed: " + serverMessage
                + (infoText == null ? "" : " [" + infoText + "]")
                + (additionalDetails == null ? "" : " (" + additionalDetails + ")"));
        this.threadId = threadId;
        this.turnId = turnId;
        this.serverMessage = serverMessage == null ? "" : serverMessage;
        this.codexErrorInfo = codexErrorInfo;
        this.additionalDetails = additionalDetails;
    }

    /** {@return the id of the thread the turn ran in} */
    public String threadId() {
        return threadId;
    }

    /** {@return the turn's id; empty when the turn failed before the server named it} */
    public Optional<String> turnId() {
        return Optional.ofNullable(turnId);
    }

    /** {@return the error message codex reported for the turn, with known secrets (API keys, tokens) masked} */
    public String serverMessage() {
        return serverMessage;
    }

    /**
     * {@return how codex classified the failure, when it did} A {@link CodexErrorInfo.Simple} constant or a variant
     * with details (an HTTP status, for instance); a kind this SDK does not know yet is kept as
     * {@code CodexErrorInfo.Unrecognized} with its JSON. Not serialized: a deserialized exception has none.
     */
    public Optional<CodexErrorInfo> codexErrorInfo() {
        return Optional.ofNullable(codexErrorInfo);
    }

    /** {@return further details codex sent about the failure, secrets masked; empty when it sent none} */
    public Optional<String> additionalDetails() {
        return Optional.ofNullable(additionalDetails);
    }
}

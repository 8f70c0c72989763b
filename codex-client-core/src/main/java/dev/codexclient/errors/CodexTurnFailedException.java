package dev.codexclient.errors;

import java.util.Optional;

/**
 * A turn ended with status {@code failed}. Carries the server's error message, the structured
 * {@code codexErrorInfo} (as its wire JSON, e.g. {@code "usageLimitExceeded"} or
 * {@code {"httpConnectionFailed":{"httpStatusCode":500}}}) and additional details when codex sent them.
 */
public class CodexTurnFailedException extends CodexException {
    private static final long serialVersionUID = 1L;

    private final String threadId;
    private final String turnId;
    private final String serverMessage;
    private final String codexErrorInfo;
    private final String additionalDetails;

    public CodexTurnFailedException(String threadId, String turnId, String serverMessage, String codexErrorInfo,
                                    String additionalDetails) {
        super("turn " + turnId + " of thread " + threadId + " failed: " + serverMessage
                + (codexErrorInfo == null ? "" : " [" + codexErrorInfo + "]")
                + (additionalDetails == null ? "" : " (" + additionalDetails + ")"));
        this.threadId = threadId;
        this.turnId = turnId;
        this.serverMessage = serverMessage == null ? "" : serverMessage;
        this.codexErrorInfo = codexErrorInfo;
        this.additionalDetails = additionalDetails;
    }

    public String threadId() {
        return threadId;
    }

    public String turnId() {
        return turnId;
    }

    /** The error message codex reported for the turn, with known secrets (API keys, tokens) masked. */
    public String serverMessage() {
        return serverMessage;
    }

    /** {@code codexErrorInfo} as compact JSON, when codex classified the failure. */
    public Optional<String> codexErrorInfo() {
        return Optional.ofNullable(codexErrorInfo);
    }

    public Optional<String> additionalDetails() {
        return Optional.ofNullable(additionalDetails);
    }
}

package dev.codexclient.agent;

import dev.codexclient.protocol.CodexErrorInfo;

/** Where a run failed. */
public enum FailurePhase {
    /** Starting codex, the handshake, login, or starting the thread or the turn. */
    REQUEST,
    /** The turn failed, or its output is missing or does not parse. */
    RESPONSE,
    /** A dynamic tool threw. */
    TOOL,
    /** A token budget or the deadline was crossed, or codex reported a usage limit or a model cap. */
    BUDGET;

    /**
     * The phase of a failed turn, by its {@code codexErrorInfo}: connection, authentication and request errors are
     * {@link #REQUEST}; {@code usageLimitExceeded}, {@code sessionBudgetExceeded} and {@code modelCap} are
     * {@link #BUDGET}; {@code sandboxError} is
     * {@link #TOOL}; everything else, including what a newer codex may send, is {@link #RESPONSE}.
     *
     * @param info the error info of the failed turn
     * @return the phase
     */
    public static FailurePhase of(CodexErrorInfo info) {
        if (info instanceof CodexErrorInfo.HttpConnectionFailed
                || info instanceof CodexErrorInfo.ResponseStreamConnectionFailed
                || info instanceof CodexErrorInfo.ResponseStreamDisconnected
                || info instanceof CodexErrorInfo.ResponseTooManyFailedAttempts) {
            return REQUEST;
        }
        if (info instanceof CodexErrorInfo.Simple simple) {
            return switch (simple) {
                case UNAUTHORIZED, BAD_REQUEST -> REQUEST;
                case USAGE_LIMIT_EXCEEDED, SESSION_BUDGET_EXCEEDED -> BUDGET;
                case SANDBOX_ERROR -> TOOL;
                default -> RESPONSE;
            };
        }
        if (info instanceof CodexErrorInfo.Unrecognized unrecognized && unrecognized.raw() != null
                && unrecognized.raw().has("modelCap")) {
            return BUDGET;
        }
        return RESPONSE;
    }
}

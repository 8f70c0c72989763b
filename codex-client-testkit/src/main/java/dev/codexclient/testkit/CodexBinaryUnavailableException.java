package dev.codexclient.testkit;

import dev.codexclient.errors.CodexException;

/** No codex executable could be found or installed; the message says what was tried and what to do. */
public final class CodexBinaryUnavailableException extends CodexException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception with a message explaining what was tried.
     *
     * @param message what was tried and what went wrong
     */
    public CodexBinaryUnavailableException(String message) {
        super(message);
    }

    /**
     * Creates the exception with a message explaining what was tried, and its cause.
     *
     * @param message what was tried and what went wrong
     * @param cause what made it fail
     */
    public CodexBinaryUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}

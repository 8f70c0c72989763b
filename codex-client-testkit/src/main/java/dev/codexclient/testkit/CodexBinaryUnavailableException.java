package dev.codexclient.testkit;

import dev.codexclient.errors.CodexException;

/** No codex executable could be found or installed; the message says what was tried and what to do. */
public final class CodexBinaryUnavailableException extends CodexException {

    private static final long serialVersionUID = 1L;

    /** Creates the exception with a message explaining what was tried. */
    public CodexBinaryUnavailableException(String message) {
        super(message);
    }

    /** Creates the exception with a message explaining what was tried, and its cause. */
    public CodexBinaryUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}

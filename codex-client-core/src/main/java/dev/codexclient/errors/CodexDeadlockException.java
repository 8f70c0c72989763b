package dev.codexclient.errors;

/**
 * A blocking call was made where it could never return, so the client refused it at once instead of hanging. The
 * message says what was called, from where, and what to use instead.
 *
 * <p>Example: {@code turn.await(…)} inside a listener of the same codex thread. That thread's events, the turn's
 * {@code turn/completed} among them, are delivered one after another on the thread running the listener, so the
 * turn cannot complete while the listener waits for it. Use {@code turn.result().thenAccept(…)} (or a listener for
 * {@code turn/completed}) there instead. See the threading guide, docs/threading.md for what runs where.
 */
public class CodexDeadlockException extends CodexException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception whose message names the call, where it was made and what to use instead.
     *
     * @param message what was called, from where, and what to use instead
     */
    public CodexDeadlockException(String message) {
        super(message);
    }
}

package dev.codexclient.errors;

/**
 * The root of every exception this SDK throws. Unchecked: callers catch it where they can act on it.
 *
 * <p>Subclasses say what went wrong: {@link CodexRpcException} (the server answered with a JSON-RPC error;
 * {@link CodexMethodNotSupportedException} when it does not know the method),
 * {@link CodexTransportException} (the connection or the child process ended), {@link CodexTimeoutException},
 * {@link CodexOverloadedException} and {@link CodexTurnFailedException}.
 */
public class CodexException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception with a message and no cause.
     *
     * @param message what went wrong
     */
    public CodexException(String message) {
        super(message);
    }

    /**
     * An exception caused by another.
     *
     * @param message what went wrong
     * @param cause   the failure behind it, or null
     */
    public CodexException(String message, Throwable cause) {
        super(message, cause);
    }
}

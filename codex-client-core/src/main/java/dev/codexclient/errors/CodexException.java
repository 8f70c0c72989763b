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

    public CodexException(String message) {
        super(message);
    }

    public CodexException(String message, Throwable cause) {
        super(message, cause);
    }
}

package dev.codexclient.errors;

/**
 * The server sent something this client could not decode into the type the protocol promises, e.g. a response
 * whose {@code result} does not fit the method's result type. The raw JSON is kept (redacted) in the message.
 */
public class CodexProtocolException extends CodexException {
    private static final long serialVersionUID = 1L;

    public CodexProtocolException(String message, Throwable cause) {
        super(message, cause);
    }

    public CodexProtocolException(String message) {
        super(message);
    }
}

package dev.codexclient.errors;

/**
 * The server sent something this client could not decode into the type the protocol promises, e.g. a response
 * whose {@code result} does not fit the method's result type. The raw JSON is kept (redacted) in the message.
 */
public class CodexProtocolException extends CodexException {
    private static final long serialVersionUID = 1L;

    /**
     * A message that could not be decoded.
     *
     * @param message what could not be decoded, with the raw JSON (redacted)
     * @param cause   the decoder's failure
     */
    public CodexProtocolException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * A message that breaks the protocol's promise, found without a decoder's failure.
     *
     * @param message what the server sent and what was expected
     */
    public CodexProtocolException(String message) {
        super(message);
    }
}

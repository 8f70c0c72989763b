package dev.codexclient.errors;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The server kept answering {@code -32001 "Server overloaded; retry later."} until the client's retry policy
 * gave up (attempts or total time exhausted).
 */
public class CodexOverloadedException extends CodexRpcException {
    private static final long serialVersionUID = 1L;

    /** How many times the request was sent. */
    private final int attempts;

    /**
     * A request the retry policy gave up on.
     *
     * @param method        the method of the request
     * @param serverMessage the error message of the last answer, as the server sent it
     * @param data          the {@code error.data} member of the last answer, or null
     * @param attempts      how many times the request was sent
     */
    public CodexOverloadedException(String method, String serverMessage, JsonNode data, int attempts) {
        super(method + " failed: " + serverMessage + " (JSON-RPC error " + SERVER_OVERLOADED + ", gave up after "
                + attempts + (attempts == 1 ? " attempt)" : " attempts)"), method, SERVER_OVERLOADED, serverMessage,
                data);
        this.attempts = attempts;
    }

    /** {@return how many times the request was sent, the first time included} */
    public int attempts() {
        return attempts;
    }
}

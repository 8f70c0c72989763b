package dev.codexclient.errors;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The server kept answering {@code -32001 "Server overloaded; retry later."} until the client's retry policy
 * gave up (attempts or total time exhausted).
 */
public class CodexOverloadedException extends CodexRpcException {
    private static final long serialVersionUID = 1L;

    private final int attempts;

    public CodexOverloadedException(String method, String serverMessage, JsonNode data, int attempts) {
        super(method + " failed: " + serverMessage + " (JSON-RPC error " + SERVER_OVERLOADED + ", gave up after "
                + attempts + (attempts == 1 ? " attempt)" : " attempts)"), method, SERVER_OVERLOADED, serverMessage,
                data);
        this.attempts = attempts;
    }

    /** How many times the request was sent. */
    public int attempts() {
        return attempts;
    }
}

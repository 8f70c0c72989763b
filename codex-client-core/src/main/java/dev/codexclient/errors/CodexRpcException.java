package dev.codexclient.errors;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * The server answered a request with a JSON-RPC error.
 *
 * <p>{@link #code()} is the JSON-RPC error code (e.g. {@code -32600} invalid request, {@code -32601} method not
 * found, {@code -32602} invalid params, {@code -32001} server overloaded), {@link #serverMessage()} the server's
 * message and {@link #data()} its optional structured payload.
 */
public class CodexRpcException extends CodexException {
    private static final long serialVersionUID = 1L;

    /** JSON-RPC: the method does not exist. */
    public static final int METHOD_NOT_FOUND = -32601;
    /** JSON-RPC: invalid params. */
    public static final int INVALID_PARAMS = -32602;
    /** JSON-RPC: invalid request. */
    public static final int INVALID_REQUEST = -32600;
    /** JSON-RPC: internal error. */
    public static final int INTERNAL_ERROR = -32603;
    /** codex: "Server overloaded; retry later." */
    public static final int SERVER_OVERLOADED = -32001;

    private final String method;
    private final int code;
    private final String serverMessage;
    private final transient JsonNode data;

    public CodexRpcException(String method, int code, String serverMessage, JsonNode data) {
        super(method + " failed: " + serverMessage + " (JSON-RPC error " + code + ")");
        this.method = method;
        this.code = code;
        this.serverMessage = serverMessage == null ? "" : serverMessage;
        this.data = data;
    }

    /** The method of the request that failed; empty for errors raised by a local handler. */
    public String method() {
        return method;
    }

    public int code() {
        return code;
    }

    /** The error message as the server sent it, with known secrets (API keys, tokens) masked. */
    public String serverMessage() {
        return serverMessage;
    }

    /** The {@code error.data} member, when the server sent one. */
    public Optional<JsonNode> data() {
        return Optional.ofNullable(data);
    }
}

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

    /** The method of the request that failed; null for an error raised by a local handler. */
    private final String method;
    /** The JSON-RPC error code. */
    private final int code;
    /** The error message as the server sent it, secrets masked; empty when it sent none. */
    private final String serverMessage;
    private final transient JsonNode data;

    /**
     * An error response.
     *
     * @param method        the method of the request that failed; null for an error raised by a local handler
     * @param code          the JSON-RPC error code
     * @param serverMessage the error's message
     * @param data          the error's {@code data} member, or null
     */
    public CodexRpcException(String method, int code, String serverMessage, JsonNode data) {
        this((method == null ? "the request" : method) + " failed: " + serverMessage + " (JSON-RPC error " + code
                + ")", method, code, serverMessage, data);
    }

    /**
     * For subclasses that describe the failure further; {@code serverMessage} stays as the server sent it.
     *
     * @param message       the exception's message
     * @param method        the method of the request that failed; null for an error raised by a local handler
     * @param code          the JSON-RPC error code
     * @param serverMessage the error's message
     * @param data          the error's {@code data} member, or null
     */
    protected CodexRpcException(String message, String method, int code, String serverMessage, JsonNode data) {
        super(message);
        this.method = method;
        this.code = code;
        this.serverMessage = serverMessage == null ? "" : serverMessage;
        this.data = data;
    }

    /** {@return the method of the request that failed; empty for errors raised by a local handler} */
    public Optional<String> method() {
        return Optional.ofNullable(method);
    }

    /** {@return the JSON-RPC error code} See the constants of this class for the common ones. */
    public int code() {
        return code;
    }

    /**
     * {@return the error message as the server sent it (secrets the client knows, such as its API key, masked)} Empty
     * when the server sent none.
     */
    public String serverMessage() {
        return serverMessage;
    }

    /**
     * {@return the {@code error.data} member, when the server sent one} It is a copy in which every string has the
     * secrets the client knows (such as its API key) masked, like {@link #serverMessage()}. Not serialized: a
     * deserialized exception has none.
     */
    public Optional<JsonNode> data() {
        return Optional.ofNullable(data);
    }
}

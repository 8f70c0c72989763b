package dev.codexclient.errors;

import java.time.Duration;

/**
 * A request got no response in time. The request is forgotten by the client; a late response is logged and
 * dropped. Raise the timeout on the builder or per call when a method legitimately takes longer.
 */
public class CodexTimeoutException extends CodexException {
    private static final long serialVersionUID = 1L;

    private final String method;
    private final String requestId;
    private final Duration timeout;

    public CodexTimeoutException(String method, String requestId, Duration timeout) {
        this(method + " (id " + requestId + ") got no response within " + timeout.toMillis() + " ms",
                method, requestId, timeout);
    }

    private CodexTimeoutException(String message, String method, String requestId, Duration timeout) {
        super(message);
        this.method = method;
        this.requestId = requestId;
        this.timeout = timeout;
    }

    /** A timeout of something that is not a single request, such as waiting for a turn to complete. */
    public static CodexTimeoutException waitingFor(String what, Duration timeout) {
        return new CodexTimeoutException(what + " did not happen within " + timeout.toMillis() + " ms",
                what, "", timeout);
    }

    public String method() {
        return method;
    }

    /** The JSON-RPC id of the request, as text; empty when the timeout was not about one request. */
    public String requestId() {
        return requestId;
    }

    public Duration timeout() {
        return timeout;
    }
}

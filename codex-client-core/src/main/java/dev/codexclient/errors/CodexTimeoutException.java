package dev.codexclient.errors;

import java.time.Duration;
import java.util.Optional;

/**
 * A request got no response in time. The request is forgotten by the client; a late response is logged and
 * dropped. Raise the timeout on the builder or per call when a method legitimately takes longer.
 */
public class CodexTimeoutException extends CodexException {
    private static final long serialVersionUID = 1L;

    /** The request's method, or what was awaited. */
    private final String method;
    /** The JSON-RPC id of the request, as text; null when the timeout was not about one request. */
    private final String requestId;
    /** How long the request (or the wait) was given. */
    private final Duration timeout;

    /**
     * A request that got no response in time.
     *
     * @param method    the request's method
     * @param requestId its JSON-RPC id, as text
     * @param timeout   how long it waited
     */
    public CodexTimeoutException(String method, String requestId, Duration timeout) {
        this(method + " (id " + requestId + ") got no response within " + timeout.toMillis() + " ms",
                method, java.util.Objects.requireNonNull(requestId, "requestId"), timeout);
    }

    private CodexTimeoutException(String message, String method, String requestId, Duration timeout) {
        super(message);
        this.method = method;
        this.requestId = requestId;
        this.timeout = timeout;
    }

    /**
     * A timeout of something that is not a single request, such as waiting for a turn to complete.
     *
     * @param what    what was awaited, e.g. {@code "the next event of a turn"}; it becomes {@link #method()}
     * @param timeout how long the wait was given
     * @return the exception, without a request id
     */
    public static CodexTimeoutException waitingFor(String what, Duration timeout) {
        return new CodexTimeoutException(what + " did not happen within " + timeout.toMillis() + " ms",
                what, null, timeout);
    }

    /**
     * {@return the method of the request that timed out; for a wait that was not about one request, what was
     * awaited}
     */
    public String method() {
        return method;
    }

    /** {@return the JSON-RPC id of the request, as text; empty when the timeout was not about one request} */
    public Optional<String> requestId() {
        return Optional.ofNullable(requestId);
    }

    /** {@return how long the request (or the wait) was given} */
    public Duration timeout() {
        return timeout;
    }
}

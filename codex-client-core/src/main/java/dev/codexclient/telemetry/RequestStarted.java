package dev.codexclient.telemetry;

import java.util.Objects;

/**
 * The client sent a request. It comes before the request leaves, so its {@link RequestEnded} always follows it; a
 * call the client refuses before sending anything (the client is closed) has neither record.
 *
 * @param sequence  unique among this client's request records: two starts are equal only when they are the same
 * @param method    the JSON-RPC method, e.g. {@code turn/start}
 * @param requestId the JSON-RPC id of the request's first attempt
 */
public record RequestStarted(long sequence, String method, String requestId) {
    /**
     * Checks that every member is present.
     *
     * @param sequence  unique among this client's request records: two starts are equal only when they are the same
     * @param method    the JSON-RPC method, e.g. {@code turn/start}
     * @param requestId the JSON-RPC id of the request's first attempt
     */
    public RequestStarted {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(requestId, "requestId");
    }
}

package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.testkit.internal.fake.Connection;
import dev.codexclient.testkit.internal.fake.Json;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A request the fake sent to the client (an approval, a tool call, ...), waiting for the client's reply.
 * <pre>{@code
 * PendingServerRequest approval = fake.requestCommandApproval(threadId, turnId, "rm -rf /");
 * assertThat(approval.awaitResponse(Duration.ofSeconds(5)).decision()).contains("decline");
 * approval.resolve(); // emits serverRequest/resolved, as codex does
 * }</pre>
 */
public final class PendingServerRequest {
    private final Connection connection;
    private final RequestId id;
    private final String method;
    private final JsonNode params;
    final CompletableFuture<ClientReply> reply = new CompletableFuture<>();

    /**
     * A request sent on {@code connection}; {@code rawReply} completes with the client's whole reply message or
     * fails when the connection ends first.
     */
    PendingServerRequest(Connection connection, RequestId id, String method, JsonNode params,
                         CompletableFuture<JsonNode> rawReply) {
        this.connection = connection;
        this.id = id;
        this.method = method;
        this.params = params;
        // Not thenApply: a failure must reach awaitResponse as it is, not wrapped in a CompletionException.
        rawReply.whenComplete((message, failure) -> {
            if (failure != null) {
                reply.completeExceptionally(failure);
            } else {
                reply.complete(new ClientReply(id, message));
            }
        });
    }

    /** {@return the id the fake gave this request: integers from 0 per connection, like codex} */
    public RequestId id() {
        return id;
    }

    /** {@return the request's method, e.g. {@code item/commandExecution/requestApproval}} */
    public String method() {
        return method;
    }

    /** {@return the params the fake sent (a copy)} */
    public JsonNode params() {
        return params.deepCopy();
    }

    /**
     * Waits for the client's reply.
     *
     * @param timeout how long to wait at most
     * @return the reply
     * @throws AssertionError when no reply arrives in time or the client disconnected first
     */
    public ClientReply awaitResponse(Duration timeout) {
        try {
            return reply.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the client did not answer " + method + " (id " + id + ") within "
                    + timeout);
        } catch (ExecutionException e) {
            throw new AssertionError("no reply to " + method + " (id " + id + "): " + e.getCause().getMessage(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for a reply to " + method, e);
        }
    }

    /** {@return the reply, if it already arrived} */
    public Optional<ClientReply> response() {
        return Optional.ofNullable(reply.getNow(null));
    }

    /** {@return whether the client answered (with a result or an error)} */
    public boolean isAnswered() {
        return reply.isDone() && !reply.isCompletedExceptionally();
    }

    /**
     * Emits {@code serverRequest/resolved {threadId, requestId}} on the connection the request was sent on, as codex
     * does once a request is settled. The thread id comes from the request's params; an empty string when it had
     * none.
     */
    public void resolve() {
        ObjectNode resolved = Json.object().put("threadId", params.path("threadId").asText(""));
        resolved.set("requestId", Json.tree(id));
        connection.notify("serverRequest/resolved", resolved);
    }

    @Override
    public String toString() {
        return "PendingServerRequest{id=" + id + ", method=" + method + '}';
    }
}

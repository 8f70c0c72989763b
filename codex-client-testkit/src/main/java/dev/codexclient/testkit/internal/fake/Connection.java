package dev.codexclient.testkit.internal.fake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.protocol.RequestId;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One client connection as the fake's wire sees it: the link, the order of what the fake writes, the ids of the
 * fake's own requests (integers from 0, as codex numbers them) and the replies they wait for, and whether the client
 * has initialized or gone.
 */
public final class Connection {
    private final ServerLink link;
    private final int number;
    private final Consumer<JsonNode> sentTap;
    private final Object writeLock = new Object();
    private final AtomicLong nextServerRequestId = new AtomicLong();
    private final Map<RequestId, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private volatile boolean initialized;
    private volatile boolean closed;

    Connection(ServerLink link, int number, Consumer<JsonNode> sentTap) {
        this.link = link;
        this.number = number;
        this.sentTap = sentTap;
    }

    /** {@return the link, for faults that act on the "process" rather than on messages} */
    public ServerLink link() {
        return link;
    }

    /** {@return this connection's number, from 1 in the order the fake accepted them} */
    public int number() {
        return number;
    }

    /** {@return whether the client completed {@code initialize} on this connection} */
    public boolean isInitialized() {
        return initialized;
    }

    /** {@return whether the connection ended (the client went, or the fake ended it)} */
    public boolean isClosed() {
        return closed;
    }

    /** Marks the connection ended, as a fault that exits the "process" does before the client notices. */
    public void markClosed() {
        closed = true;
    }

    /**
     * Writes one message as a line and hands it to the recording.
     *
     * @param message the message
     */
    public void write(ObjectNode message) {
        byte[] bytes = Json.bytes(message);
        synchronized (writeLock) {
            link.writeLine(bytes);
            sentTap.accept(message);
        }
    }

    /**
     * Writes bytes as they are (garbage, fragments), not recorded as a message.
     *
     * @param bytes the bytes
     */
    public void writeRaw(byte[] bytes) {
        synchronized (writeLock) {
            link.writeRaw(bytes);
        }
    }

    /**
     * Writes one message in fragments, running {@code between} between two of them; no other message is written
     * in between.
     *
     * @param message the message, recorded once written
     * @param fragments the message's line cut into pieces
     * @param between runs after each fragment but the last
     */
    public void writeFragments(JsonNode message, Iterable<byte[]> fragments, Runnable between) {
        synchronized (writeLock) {
            var it = fragments.iterator();
            while (it.hasNext()) {
                link.writeRaw(it.next());
                if (it.hasNext()) {
                    between.run();
                }
            }
            sentTap.accept(message);
        }
    }

    /**
     * Sends a notification; {@code emittedAtMs} is added as codex does.
     *
     * @param method the method
     * @param params the params, or null for none
     */
    public void notify(String method, JsonNode params) {
        write(notification(method, params));
    }

    /**
     * {@return a notification message as codex writes it, with {@code emittedAtMs}}
     *
     * @param method the method
     * @param params the params, or null for none
     */
    public static ObjectNode notification(String method, JsonNode params) {
        ObjectNode msg = Json.object().put("method", method);
        if (params != null && !params.isMissingNode()) {
            msg.set("params", params);
        }
        msg.put("emittedAtMs", System.currentTimeMillis());
        return msg;
    }

    /** {@return the id for the fake's next request on this connection} */
    public RequestId nextServerRequestId() {
        return RequestId.of(nextServerRequestId.getAndIncrement());
    }

    /**
     * Sends a request to the client.
     *
     * @param id the request's id
     * @param method the method
     * @param params the params
     * @return completes with the client's whole reply message; fails when the connection ends first (at once when
     *         it already has)
     * @throws IllegalStateException when a request with this id still waits for its reply
     */
    public CompletableFuture<JsonNode> sendRequest(RequestId id, String method, JsonNode params) {
        CompletableFuture<JsonNode> reply = new CompletableFuture<>();
        if (closed) {
            reply.completeExceptionally(new IllegalStateException("the client is disconnected"));
            return reply;
        }
        if (pending.putIfAbsent(id, reply) != null) {
            throw new IllegalStateException("server request " + id + " is still pending");
        }
        ObjectNode msg = Json.object();
        msg.set("id", Json.tree(id));
        msg.put("method", method);
        msg.set("params", params);
        write(msg);
        return reply;
    }

    /**
     * Stops waiting for the reply to a request (its answer, if it comes, is logged as unexpected).
     *
     * @param id the request's id
     */
    public void forget(RequestId id) {
        pending.remove(id);
    }

    /**
     * Answers a client request with a result.
     *
     * @param id the client's request id
     * @param result the result
     * @param completesInitialize whether this answers {@code initialize}, so later requests are served
     */
    public void respond(RequestId id, JsonNode result, boolean completesInitialize) {
        if (completesInitialize) {
            initialized = true;
        }
        ObjectNode msg = Json.object();
        msg.set("id", Json.tree(id));
        msg.set("result", result);
        writeUnlessClosed(msg);
    }

    /**
     * Answers a client request with an error.
     *
     * @param id the client's request id
     * @param code the JSON-RPC error code
     * @param message the error message
     * @param data the error's data, or null for none
     */
    public void respondError(RequestId id, int code, String message, JsonNode data) {
        ObjectNode msg = Json.object();
        msg.set("id", Json.tree(id));
        ObjectNode error = msg.putObject("error").put("code", code).put("message", message);
        if (data != null) {
            error.set("data", data);
        }
        writeUnlessClosed(msg);
    }

    private void writeUnlessClosed(ObjectNode msg) {
        if (!closed) {
            write(msg);
        }
    }

    /** Completes the pending request the client answered; false when none waited for this id. */
    boolean completeReply(RequestId id, JsonNode reply) {
        CompletableFuture<JsonNode> waiting = pending.remove(id);
        if (waiting == null) {
            return false;
        }
        waiting.complete(reply);
        return true;
    }

    /** Ends the connection on the fake's side: pending requests fail with {@code reason}. */
    void closed(String reason) {
        closed = true;
        IllegalStateException failure = new IllegalStateException(reason);
        pending.values().forEach(p -> p.completeExceptionally(failure));
        pending.clear();
    }

    @Override
    public String toString() {
        return "connection #" + number + " (" + link.describe() + ")";
    }
}

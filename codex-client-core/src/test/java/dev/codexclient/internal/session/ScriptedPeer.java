package dev.codexclient.internal.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One connection's server, played by the test: it answers {@code initialize} on its own (the handshake is not what
 * these tests are about), keeps every other request the client sends, and reads what the test injects, on the
 * test's thread, as the transport's reader thread would.
 */
final class ScriptedPeer implements Transport {
    static final ObjectMapper JSON = ProtocolJson.mapper();

    private final String name;
    private final List<JsonNode> requests = new ArrayList<>();
    private final List<String> methodsSent = new ArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Whether this server answers {@code initialize}; one that does not keeps its handshake waiting. */
    private final boolean answersInitialize;
    private MessageSink sink;
    /** What the server does the moment a request of a method arrives, before {@code send} returns; by method. */
    private final java.util.Map<String, java.util.function.Consumer<JsonNode>> onArrival =
            new java.util.concurrent.ConcurrentHashMap<>();

    ScriptedPeer(String name, boolean answersInitialize) {
        this.name = name;
        this.answersInitialize = answersInitialize;
    }

    @Override
    public void start(MessageSink sink) {
        this.sink = sink;
    }

    @Override
    public synchronized void send(byte[] message) {
        if (closed.get()) {
            throw new CodexTransportException("the scripted peer " + name + " is gone");
        }
        JsonNode m = read(message);
        String method = m.path("method").asText();
        if (!method.isEmpty()) {
            methodsSent.add(method);
        }
        if (method.equals("initialize") && answersInitialize) {
            respond(m, JSON.createObjectNode());
        } else if (m.has("id") && !method.isEmpty()) {
            java.util.function.Consumer<JsonNode> reaction = onArrival.get(method);
            if (reaction != null) {
                // Read by the client before its send returns, as a fast server's answer can be.
                reaction.accept(m);
                return;
            }
            requests.add(m);
            notifyAll();
        }
    }

    /**
     * Has this server react to each request of {@code method} the moment it arrives, on the sending thread, before
     * the client's {@code send} returns: what it injects is read as at once as a fast server's answer is.
     */
    void onArrival(String method, java.util.function.Consumer<JsonNode> reaction) {
        onArrival.put(method, reaction);
    }

    /** Waits, at most {@code timeout}, until a request of {@code method} waits for an answer (sent from another thread). */
    synchronized void awaitRequest(String method, java.time.Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!has(method)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(name + " got no " + method + " request within " + timeout);
            }
            java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** {@return the methods the client sent to this peer, in order, handshake included} */
    synchronized List<String> methods() {
        return List.copyOf(methodsSent);
    }

    /** {@return whether a request of {@code method} waits for an answer} */
    synchronized boolean has(String method) {
        return requests.stream().anyMatch(r -> method.equals(r.path("method").asText()));
    }

    /** Removes and returns the oldest request of {@code method} that waits for an answer. */
    synchronized JsonNode take(String method) {
        for (Iterator<JsonNode> it = requests.iterator(); it.hasNext(); ) {
            JsonNode r = it.next();
            if (method.equals(r.path("method").asText())) {
                it.remove();
                return r;
            }
        }
        throw new AssertionError(name + " got no " + method + " request; it got " + methodsSent);
    }

    /** Answers {@code request} with {@code result}. */
    void respond(JsonNode request, JsonNode result) {
        ObjectNode reply = JSON.createObjectNode();
        reply.set("id", request.get("id"));
        reply.set("result", result);
        inject(reply);
    }

    /** Answers {@code request} with a JSON-RPC error. */
    void fail(JsonNode request, int code, String message) {
        ObjectNode reply = JSON.createObjectNode();
        reply.set("id", request.get("id"));
        reply.putObject("error").put("code", code).put("message", message);
        inject(reply);
    }

    /** Sends a notification to the client. */
    void notify(String method, JsonNode params) {
        ObjectNode n = JSON.createObjectNode().put("method", method);
        n.set("params", params);
        inject(n);
    }

    /** The server ends as a killed one does: the client's transport reports an end it did not ask for. */
    void exit(int code) {
        if (closed.compareAndSet(false, true)) {
            sink.onClosed(new TransportTermination("codex exited", OptionalInt.of(code), "", Optional.empty(),
                    false));
        }
    }

    private void inject(JsonNode message) {
        try {
            sink.onMessages(MessageBuffer.of(JSON.writeValueAsBytes(message)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode read(byte[] message) {
        try {
            return JSON.readTree(new String(message, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            sink.onClosed(TransportTermination.requested("closed by the client"));
        }
    }

    @Override
    public String describe() {
        return "scripted peer " + name;
    }
}

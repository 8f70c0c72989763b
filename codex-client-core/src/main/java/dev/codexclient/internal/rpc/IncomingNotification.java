package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * A notification as read from the wire: its method, the line it came in, and the codex thread (from
 * {@code params.threadId} or {@code params.thread.id}, which selects its delivery lane) and turn (from
 * {@code params.turnId} or {@code params.turn.id}) it belongs to.
 *
 * <p>Usually the handler has decoded it on the reader thread in one pass ({@link #decoded()}); otherwise the reader
 * thread only scanned the envelope and the typed decode reads {@link #bytes()} on the lane. Either way no JSON tree
 * is built for a notification unless someone asks for {@link #message()}.
 */
public final class IncomingNotification {
    private final String method;
    private final byte[] bytes;
    private final Optional<String> threadId;
    private final Optional<String> turnId;
    private final ObjectMapper mapper;
    private final Object decoded;
    private volatile ObjectNode message;

    IncomingNotification(String method, byte[] bytes, Optional<String> threadId, Optional<String> turnId,
                         ObjectMapper mapper) {
        this(method, bytes, threadId, turnId, mapper, null);
    }

    /** A notification the handler decoded on the reader thread ({@link RpcConnection.Handler#decodeLine}). */
    public IncomingNotification(String method, byte[] bytes, Optional<String> threadId, Optional<String> turnId,
                                ObjectMapper mapper, Object decoded) {
        this.method = method;
        this.bytes = bytes;
        this.threadId = threadId;
        this.turnId = turnId;
        this.mapper = mapper;
        this.decoded = decoded;
    }

    public String method() {
        return method;
    }

    /** The message as received (UTF-8 JSON, no newline). Shared, not copied: do not modify it. */
    public byte[] bytes() {
        return bytes;
    }

    public Optional<String> threadId() {
        return threadId;
    }

    public Optional<String> turnId() {
        return turnId;
    }

    /** The typed notification, when the handler already decoded it on the reader thread. */
    public Optional<Object> decoded() {
        return Optional.ofNullable(decoded);
    }

    /** The whole message object as a tree, parsed on first use. */
    public ObjectNode message() {
        ObjectNode m = message;
        if (m == null) {
            try {
                // The reader thread parsed the whole object before routing it, so this cannot fail in practice.
                m = (ObjectNode) mapper.readTree(bytes);
            } catch (IOException e) {
                throw new UncheckedIOException("a scanned notification no longer parses", e);
            }
            message = m;
        }
        return m;
    }

    @Override
    public String toString() {
        return "IncomingNotification[" + method + ", thread " + threadId.orElse("-") + "]";
    }
}

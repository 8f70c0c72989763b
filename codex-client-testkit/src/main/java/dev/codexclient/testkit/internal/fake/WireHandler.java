package dev.codexclient.testkit.internal.fake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.codexclient.protocol.RequestId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fake's wire: accepts connections, reads what each client writes one message at a time in arrival order (one
 * serial dispatcher for all of them), sorts each message into request, notification or reply, completes the fake's
 * own requests with their replies, and hands the rest to the connection's {@link Inbound}.
 *
 * <p>It keeps the newest connection (where the test's notifications and requests go) and the open ones (to end
 * them when the fake closes), never a connection that ended: a closed client's objects are not kept reachable
 * through the fake.
 */
public final class WireHandler {
    private static final Logger LOG = LoggerFactory.getLogger(WireHandler.class);

    /** What the fake does with the messages of one connection. */
    public interface Inbound {
        /** The link started delivering; the fake may now play on its own (a replay does). */
        default void onStarted() {
        }

        /** A client request, to answer (or not). */
        void onRequest(RequestId id, String method, JsonNode params, JsonNode message, long sequence);

        /** A client notification. */
        void onNotification(String method, JsonNode params, JsonNode message, long sequence);

        /** The client replied to one of the fake's requests (already completed on the connection). */
        default void onReply(RequestId id) {
        }

        /** The client went; nothing more arrives on this connection. */
        default void onClosed() {
        }
    }

    private final Executor dispatcher;
    private final Function<Connection, Inbound> inbound;
    private final Consumer<JsonNode> receivedTap;
    private final Consumer<JsonNode> sentTap;
    private final Consumer<Throwable> failures;
    private final Object lock = new Object();
    /** Guarded by {@link #lock}. */
    private final Set<Connection> open = new LinkedHashSet<>();
    /** Guarded by {@link #lock}. */
    private int count;
    private volatile Connection newest;
    /** Touched by the serial dispatcher only. */
    private long receivedSequence;

    /**
     * A wire.
     *
     * @param dispatcher runs the handling of client messages one after another
     * @param inbound makes the handler of each new connection
     * @param receivedTap sees every client message as parsed (a text node for a line that is not JSON)
     * @param sentTap sees every message the fake writes as JSON
     * @param failures receives what a handler threw
     */
    public WireHandler(Executor dispatcher, Function<Connection, Inbound> inbound, Consumer<JsonNode> receivedTap,
                       Consumer<JsonNode> sentTap, Consumer<Throwable> failures) {
        this.dispatcher = dispatcher;
        this.inbound = inbound;
        this.receivedTap = receivedTap;
        this.sentTap = sentTap;
        this.failures = failures;
    }

    /**
     * Serves a new connection.
     *
     * @param link the fake's end of it
     */
    public void accept(ServerLink link) {
        Connection connection;
        synchronized (lock) {
            connection = new Connection(link, ++count, sentTap);
            open.add(connection);
            newest = connection;
            lock.notifyAll();
        }
        Inbound handler = inbound.apply(connection);
        link.start(new ServerLink.Listener() {
            @Override
            public void onClientLine(byte[] line) {
                execute(() -> handleLine(connection, handler, line));
            }

            @Override
            public void onClientClosed() {
                synchronized (lock) {
                    open.remove(connection);
                }
                execute(() -> {
                    connection.closed("the client disconnected");
                    handler.onClosed();
                    LOG.debug("client closed {}", connection);
                });
            }
        });
        handler.onStarted();
        LOG.debug("client connected: {}", link.describe());
    }

    /** {@return how many connections were made so far} */
    public int connectionCount() {
        synchronized (lock) {
            return count;
        }
    }

    /**
     * Waits until {@code expected} connections have been made in total.
     *
     * @param expected how many connections, counted from the start
     * @param timeout how long to wait at most
     * @throws AssertionError on timeout or interrupt
     */
    public void awaitConnections(int expected, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (count < expected) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new AssertionError("expected " + expected + " connection(s) to the fake within "
                            + timeout + " but saw " + count);
                }
                try {
                    lock.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted while waiting for a connection", e);
                }
            }
        }
    }

    /**
     * {@return the newest connection, open or not}
     *
     * @throws IllegalStateException when no client connected yet
     */
    public Connection newest() {
        Connection c = newest;
        if (c == null) {
            throw new IllegalStateException("no client is connected to the fake yet");
        }
        return c;
    }

    /** Ends every open connection as a process exiting with 0 would; their pending requests fail. */
    public void closeAll() {
        List<Connection> all;
        synchronized (lock) {
            all = new ArrayList<>(open);
            open.clear();
        }
        for (Connection c : all) {
            c.closed("the fake codex app-server closed");
            c.link().exit(0);
        }
    }

    private void execute(Runnable task) {
        try {
            dispatcher.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    failures.accept(e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("fake closed; dropping a client message");
        }
    }

    private void handleLine(Connection connection, Inbound handler, byte[] line) {
        long sequence = receivedSequence++;
        JsonNode msg;
        try {
            msg = Json.parse(line);
        } catch (IOException e) {
            receivedTap.accept(TextNode.valueOf(new String(line, StandardCharsets.UTF_8)));
            LOG.warn("client sent a line that is not JSON ({} bytes)", line.length);
            return;
        }
        receivedTap.accept(msg);
        if (!msg.isObject()) {
            LOG.warn("client sent a JSON value that is not an object");
            return;
        }
        JsonNode id = msg.get("id");
        boolean hasId = id != null && !id.isNull();
        JsonNode method = msg.get("method");
        if (method != null && method.isTextual() && hasId) {
            handler.onRequest(requestId(id), method.asText(), msg.get("params"), msg, sequence);
        } else if (method != null && method.isTextual()) {
            handler.onNotification(method.asText(), msg.get("params"), msg, sequence);
        } else if (hasId && (msg.has("result") || msg.has("error"))) {
            RequestId rid = requestId(id);
            if (!connection.completeReply(rid, msg)) {
                LOG.warn("client answered server request {} which is not pending", rid);
            }
            handler.onReply(rid);
        } else {
            LOG.warn("client sent a message that is neither request, notification nor response");
        }
    }

    private static RequestId requestId(JsonNode id) {
        if (id.isIntegralNumber()) {
            return RequestId.of(id.asLong());
        }
        return RequestId.of(id.isTextual() ? id.asText() : id.toString());
    }
}

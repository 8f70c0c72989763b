package dev.codexclient.internal.transport;

import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.Redactor;
import dev.codexclient.transport.BearerTokenProvider;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.TransportTermination;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A codex app-server connection over a WebSocket ({@code codex app-server --listen ws://IP:PORT}): one JSON
 * message per text frame. The engine behind the public {@code WebSocketTransport}.
 *
 * <p>The JDK calls the listener on its own threads; complete messages are queued and delivered to the sink by
 * one reader thread of ours, which keeps the transport contract (one thread, wire order). Backpressure: the next
 * message is requested only once the sink has taken the previous one, so a slow sink slows the server rather
 * than filling memory.
 */
public final class WebSocketEngine {

    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger("dev.codexclient.transport.websocket");
    }

    private static final AtomicInteger IDS = new AtomicInteger();
    private static final Duration THREAD_JOIN = Duration.ofSeconds(2);

    /** What to connect to and how; without an SSL context of its own, the shared client is used. */
    public record Config(URI uri, Optional<BearerTokenProvider> bearerToken, Optional<SSLContext> sslContext,
                         Duration connectTimeout, Duration sendTimeout, Duration closeTimeout, int maxMessageBytes,
                         Redactor redactor) {
    }

    /** JDK 17's HttpClient cannot be closed; sharing one keeps its selector thread from multiplying. */
    private static final class SharedClient {
        static final HttpClient CLIENT = HttpClient.newBuilder().build();
    }

    private record Oversized(long length) {
    }

    private enum State { NEW, OPEN, CLOSED }

    private final Config config;
    private final String description;
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    /** The reader thread's buffer of the messages it hands over together. */
    private final MessageBuffer batch = new MessageBuffer();
    private final ReentrantLock sendLock = new ReentrantLock();
    private final Object lifecycle = new Object();

    private State state = State.NEW;
    /** A client of this connection's own (for its SSL context), closed with it; null with the shared one. */
    private HttpClient ownClient;
    private volatile boolean closeRequested;
    private volatile WebSocket webSocket;
    private GuardedSink sink;
    private Thread reader;

    public WebSocketEngine(Config config) {
        this.config = config;
        URI u = config.uri();
        // Never the query or user info: either may carry a credential.
        this.description = "websocket: " + u.getScheme() + "://" + u.getHost() + (u.getPort() >= 0 ? ":" + u.getPort()
                : "") + (u.getRawPath() == null ? "" : u.getRawPath());
    }

    public String describe() {
        return description;
    }

    /** Connects (bounded by the connect timeout) and starts the reader thread. */
    public void start(MessageSink target) {
        synchronized (lifecycle) {
            if (state != State.NEW) {
                throw new IllegalStateException("transport already " + (state == State.OPEN ? "started" : "closed"));
            }
            state = State.CLOSED; // until the connection is up
            sink = new GuardedSink(target, description);
            Optional<String> token = BearerTokens.obtain(config.bearerToken(), description, config.redactor());
            HttpClient client = SharedClient.CLIENT;
            if (config.sslContext().isPresent()) {
                ownClient = HttpClient.newBuilder().sslContext(config.sslContext().get()).build();
                client = ownClient;
            }
            WebSocket.Builder builder = client.newWebSocketBuilder().connectTimeout(config.connectTimeout());
            token.ifPresent(t -> builder.header("Authorization", "Bearer " + t));
            CompletableFuture<WebSocket> future = builder.buildAsync(config.uri(), new Listener());
            try {
                webSocket = future.get(config.connectTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                future.cancel(true);
                closeOwnClient();
                throw new CodexTransportException("Timed out after " + config.connectTimeout() + " connecting to "
                        + description, e);
            } catch (InterruptedException e) {
                future.cancel(true);
                closeOwnClient();
                Thread.currentThread().interrupt();
                throw new CodexTransportException("Interrupted while connecting to " + description, e);
            } catch (ExecutionException e) {
                closeOwnClient();
                throw connectFailed(e.getCause() == null ? e : e.getCause());
            }
            reader = new Thread(this::readLoop, "codex-ws-reader-" + IDS.incrementAndGet());
            reader.setDaemon(true);
            state = State.OPEN;
            reader.start();
            Log.LOG.debug("connected {}", description);
        }
    }

    /** Sends one text frame; waits at most the send timeout. */
    public void send(byte[] message) {
        WebSocket ws = webSocket;
        if (closeRequested || ws == null || currentState() != State.OPEN || sink.isClosed()) {
            throw closedException();
        }
        String text = new String(message, StandardCharsets.UTF_8);
        boolean locked = false;
        try {
            locked = sendLock.tryLock(config.sendTimeout().toMillis(), TimeUnit.MILLISECONDS);
            if (!locked) {
                throw new CodexTransportException("Timed out after " + config.sendTimeout()
                        + " waiting for an earlier send on " + description);
            }
            ws.sendText(text, true).get(config.sendTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CodexTransportException("Interrupted while sending on " + description, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (closeRequested || sink.isClosed()) {
                throw closedException();
            }
            throw new CodexTransportException("Cannot send on " + description + ": " + safe(cause), cause);
        } catch (TimeoutException e) {
            // A half-written frame leaves the stream unusable.
            ws.abort();
            queue.offer(new TransportTermination("send timed out after " + config.sendTimeout(), OptionalInt.empty(),
                    "", Optional.of(e), false));
            throw new CodexTransportException("Timed out after " + config.sendTimeout() + " sending on "
                    + description + "; the connection was aborted", e);
        } finally {
            if (locked) {
                sendLock.unlock();
            }
        }
    }

    /** Close handshake, bounded by the close timeout; then the connection is aborted if still open. */
    public void close() {
        close(config.closeTimeout());
    }

    /** Close handshake, bounded by {@code timeout} (none for zero); then the connection is aborted if still open. */
    public void close(Duration timeout) {
        synchronized (lifecycle) {
            if (state == State.NEW) {
                state = State.CLOSED;
                return;
            }
            state = State.CLOSED;
        }
        WebSocket ws = webSocket;
        if (ws == null) {
            return;
        }
        boolean first = !closeRequested;
        closeRequested = true;
        if (first && !sink.isClosed() && !timeout.isZero()) {
            try {
                if (sendLock.tryLock(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    try {
                        ws.sendClose(WebSocket.NORMAL_CLOSURE, "")
                                .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    } finally {
                        sendLock.unlock();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                Log.LOG.debug("close handshake on {} failed: {}", description, e.toString());
            }
            // The server answers with its own close frame, which ends the reader.
            if (Thread.currentThread() != reader) {
                sink.awaitClosed(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        ws.abort();
        closeOwnClient();
        queue.offer(TransportTermination.requested("closed by the client"));
        if (Thread.currentThread() != reader) {
            try {
                reader.join(THREAD_JOIN.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (reader.isAlive()) {
                Log.LOG.warn("reader of {} did not stop within {}; its sink is probably blocked", description,
                        THREAD_JOIN);
                sink.deliverClosed(TransportTermination.requested("closed by the client"));
            }
        }
    }

    private State currentState() {
        synchronized (lifecycle) {
            return state;
        }
    }

    private void readLoop() {
        try {
            while (true) {
                Object next = queue.poll(1, TimeUnit.MINUTES);
                if (next == null) {
                    continue;
                }
                if (next instanceof TransportTermination) {
                    sink.deliverClosed((TransportTermination) next);
                    return;
                }
                int taken = 1;
                if (next instanceof Oversized) {
                    sink.onOversizedMessage(((Oversized) next).length());
                } else {
                    // The messages already queued behind this one go with it, in one buffer.
                    batch.clear();
                    byte[] message = (byte[]) next;
                    batch.add(message, 0, message.length);
                    while (queue.peek() instanceof byte[] more) {
                        queue.poll();
                        batch.add(more, 0, more.length);
                        taken++;
                    }
                    sink.onMessages(batch);
                }
                WebSocket ws = webSocket;
                if (ws != null) {
                    ws.request(taken);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            sink.deliverClosed(new TransportTermination("reader interrupted", OptionalInt.empty(), "",
                    Optional.of(e), false));
        }
    }

    /**
     * Ends the selector thread of this connection's own client now rather than when the client is collected: JDK 21
     * added {@code HttpClient.shutdownNow()} (looked up, since the baseline is 17; {@code close()} could wait).
     */
    private void closeOwnClient() {
        HttpClient own = ownClient;
        if (own == null) {
            return;
        }
        try {
            HttpClient.class.getMethod("shutdownNow").invoke(own);
        } catch (NoSuchMethodException e) {
            // JDK 17 to 20: the thread ends once the client is unreachable
        } catch (ReflectiveOperationException | RuntimeException e) {
            Log.LOG.debug("shutting down the HTTP client of {} failed", description, e);
        }
    }

    private CodexTransportException connectFailed(Throwable cause) {
        if (cause instanceof WebSocketHandshakeException) {
            java.net.http.HttpResponse<?> response = ((WebSocketHandshakeException) cause).getResponse();
            Object body = response.body();
            return new CodexTransportException(WebSocketMessages.handshakeRefused(description,
                    response.statusCode(), body instanceof String ? (String) body : "", config.redactor()), cause);
        }
        return new CodexTransportException("Could not connect to " + description + ": " + safe(cause)
                + ". Is `codex app-server --listen " + description.substring("websocket: ".length())
                + "` running?", cause);
    }

    private CodexTransportException closedException() {
        TransportTermination t = sink == null ? null : sink.termination();
        if (t != null) {
            return new CodexTransportException("Transport " + description + " is closed: " + t.reason(),
                    OptionalInt.empty(), "", t.cause().orElse(null));
        }
        return new CodexTransportException("Transport " + description + " is "
                + (webSocket == null ? "not connected" : "closed"));
    }

    private String safe(Throwable t) {
        String m = t.getMessage();
        return config.redactor().redact(t.getClass().getSimpleName() + (m == null ? "" : ": " + m));
    }

    private TransportTermination peerEnded(String reason, Throwable cause) {
        return new TransportTermination(config.redactor().redact(reason), OptionalInt.empty(), "",
                Optional.ofNullable(cause), closeRequested);
    }

    /** Runs on JDK threads, one call at a time; assembles fragments and hands complete messages to the queue. */
    private final class Listener implements WebSocket.Listener {
        private StringBuilder text = new StringBuilder();
        private ByteArrayOutputStream binary;
        /** Length of the message being discarded, or -1. */
        private long discarding = -1;

        @Override
        public void onOpen(WebSocket ws) {
            ws.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            if (discarding >= 0) {
                discarding += utf8Length(data);
            } else {
                text.append(data);
                // Chars never outnumber UTF-8 bytes, so this check is cheap and never lets too much through.
                if (text.length() > config.maxMessageBytes()) {
                    discarding = utf8Length(text);
                    text = new StringBuilder();
                }
            }
            if (!last) {
                ws.request(1);
                return null;
            }
            if (discarding >= 0) {
                queue.offer(new Oversized(discarding));
                discarding = -1;
                return null;
            }
            byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
            text = text.capacity() > 64 * 1024 ? new StringBuilder() : text;
            text.setLength(0);
            queue.offer(bytes.length > config.maxMessageBytes() ? new Oversized(bytes.length) : bytes);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            // codex sends text frames; a binary frame is taken as UTF-8 JSON rather than dropped.
            if (discarding >= 0) {
                discarding += data.remaining();
            } else {
                if (binary == null) {
                    binary = new ByteArrayOutputStream();
                }
                byte[] chunk = new byte[data.remaining()];
                data.get(chunk);
                binary.write(chunk, 0, chunk.length);
                if (binary.size() > config.maxMessageBytes()) {
                    discarding = binary.size();
                    binary = null;
                }
            }
            if (!last) {
                ws.request(1);
                return null;
            }
            if (discarding >= 0) {
                queue.offer(new Oversized(discarding));
                discarding = -1;
            } else {
                queue.offer(binary.toByteArray());
                binary = null;
            }
            return null;
        }

        @Override
        public CompletionStage<?> onPing(WebSocket ws, ByteBuffer message) {
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) {
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            String why = closeRequested ? "closed by the client"
                    : "the server closed the WebSocket (status " + statusCode
                    + (reason == null || reason.isEmpty() ? "" : ": " + reason) + ")";
            queue.offer(peerEnded(why, null));
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            Log.LOG.debug("WebSocket {} failed", description, error);
            queue.offer(peerEnded(closeRequested ? "closed by the client" : "the WebSocket failed: " + safe(error),
                    error));
        }

        private long utf8Length(CharSequence s) {
            long n = 0;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c < 0x80) {
                    n++;
                } else if (c < 0x800) {
                    n += 2;
                } else if (Character.isHighSurrogate(c)) {
                    n += 4;
                    i++;
                } else {
                    n += 3;
                }
            }
            return n;
        }
    }
}

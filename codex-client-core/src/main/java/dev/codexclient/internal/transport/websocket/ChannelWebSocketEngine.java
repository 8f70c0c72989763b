package dev.codexclient.internal.transport.websocket;

import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.transport.BearerTokens;
import dev.codexclient.internal.transport.GuardedSink;
import dev.codexclient.internal.transport.WebSocketMessages;
import dev.codexclient.transport.BearerTokenProvider;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.TransportTermination;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A codex app-server connection speaking WebSocket over a socket channel the JDK's HTTP client cannot use (a Unix
 * domain socket: {@code codex app-server --listen unix://PATH} and the daemon's control socket): one JSON message per
 * text frame. The engine behind the public {@code UnixSocketTransport}.
 *
 * <p>Threads: the caller of {@link #start} connects and performs the opening handshake; then one reader thread of
 * this connection reads frames and hands the messages one read completed to the sink in one call, in wire order. It
 * never waits for user code (the sink returns at once by contract) and never waits for a sender: a ping is answered
 * by whichever thread holds the write lock, or by the reader when the lock is free. Senders hold the write lock for
 * a whole message, so fragments of two messages never interleave; messages longer than the server's frame limit
 * (codex names it in {@code x-codex-websocket-max-unfragmented-message-bytes}) are sent as several frames.
 *
 * <p>A server that breaks the protocol (a masked frame, invalid UTF-8, ...) gets a close frame saying why and the
 * connection ends; a message over the size cap is discarded and reported, and the connection goes on, as with the
 * JDK-based WebSocket transport.
 */
public final class ChannelWebSocketEngine {

    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger("dev.codexclient.transport.websocket");
    }

    private static final AtomicInteger IDS = new AtomicInteger();
    private static final Duration THREAD_JOIN = Duration.ofSeconds(2);
    private static final int READ_BUFFER_BYTES = 64 * 1024;
    private static final int MAX_ERROR_BODY_BYTES = 1024;

    /** What codex 0.169.0 accepts in one frame when it does not say; it closes the socket past it. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

    /** Where the server listens, worked out when connecting (a socket path may only then exist). */
    @FunctionalInterface
    public interface Endpoint {
        /** The address to connect to now; an I/O failure here fails the connection attempt like a refused one. */
        SocketAddress resolve() throws IOException;
    }

    /**
     * What to connect to and how.
     *
     * @param address          where the server listens
     * @param description      names the endpoint in logs and messages; never a credential
     * @param host             the {@code Host} header of the handshake
     * @param path             the request path of the handshake
     * @param howToStart       appended to a failed connect, e.g. "Is `codex app-server --listen ...` running?"
     * @param threadNamePrefix the reader thread is named this plus a number
     * @param maxFrameBytes    the longest frame sent; empty to use what the server advertises (or 16 MiB)
     */
    public record Config(Endpoint address, String description, String host, String path, String howToStart,
                         String threadNamePrefix, Optional<BearerTokenProvider> bearerToken, Duration connectTimeout,
                         Duration sendTimeout, Duration closeTimeout, int maxMessageBytes, OptionalInt maxFrameBytes,
                         Redactor redactor) {
    }

    private enum State { NEW, CONNECTING, OPEN, CLOSED }

    private final Config config;
    private final SecureRandom random = new SecureRandom();
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Pong payloads waiting for the write lock. */
    private final ConcurrentLinkedQueue<byte[]> pongs = new ConcurrentLinkedQueue<>();
    private final Object lifecycle = new Object();

    private State state = State.NEW;
    private volatile ChannelWire connecting;
    private volatile boolean closeRequested;
    /** Set under the write lock once a close frame went out: nothing may follow it. */
    private boolean closeSent;
    /** Why the connection was aborted from the sending side, for the reader to report. */
    private volatile String abortReason;
    private ChannelWire wire;
    private FrameWriter writer;
    private int maxFrameBytes;
    private OptionalInt serverMaxFrameBytes = OptionalInt.empty();
    private ByteBuffer readBuffer;
    private GuardedSink sink;
    private Thread reader;

    /** A connection that does nothing until {@link #start}. */
    public ChannelWebSocketEngine(Config config) {
        this.config = config;
    }

    /** Names the endpoint for logs and messages, e.g. {@code "unix socket: /home/ada/.codex/...sock"}. */
    public String describe() {
        return config.description();
    }

    /** The largest frame the server said it accepts, once connected; empty when it did not say. */
    public OptionalInt serverMaxFrameBytes() {
        synchronized (lifecycle) {
            return serverMaxFrameBytes;
        }
    }

    /** Connects and performs the opening handshake, both within the connect timeout; then starts the reader. */
    public void start(MessageSink target) {
        synchronized (lifecycle) {
            if (state != State.NEW) {
                throw new IllegalStateException("transport already " + (state == State.CLOSED ? "closed"
                        : "started"));
            }
            state = State.CONNECTING;
        }
        ChannelWire w = null;
        try {
            long deadline = System.nanoTime() + config.connectTimeout().toNanos();
            Optional<String> token = BearerTokens.obtain(config.bearerToken(), describe(), config.redactor());
            w = ChannelWire.connect(config.address().resolve(), deadline);
            connecting = w;
            if (currentState() == State.CLOSED) {
                throw new CodexTransportException("Transport " + describe() + " was closed while connecting");
            }
            ByteBuffer buffer = ByteBuffer.allocate(READ_BUFFER_BYTES);
            OptionalInt advertised = handshake(w, token, buffer, deadline);
            synchronized (lifecycle) {
                if (state == State.CLOSED) {
                    throw new CodexTransportException("Transport " + describe() + " was closed while connecting");
                }
                wire = w;
                serverMaxFrameBytes = advertised;
                maxFrameBytes = config.maxFrameBytes().orElse(advertised.orElse(DEFAULT_MAX_FRAME_BYTES));
                writer = new FrameWriter(wire::write, random);
                readBuffer = buffer;
                sink = new GuardedSink(target, describe());
                reader = new Thread(this::readLoop, config.threadNamePrefix() + IDS.incrementAndGet());
                reader.setDaemon(true);
                state = State.OPEN;
                connecting = null;
                reader.start();
            }
            Log.LOG.debug("connected {} (server frame limit {})", describe(), advertised);
        } catch (CodexTransportException e) {
            failStart(w);
            throw e;
        } catch (SocketTimeoutException e) {
            failStart(w);
            throw new CodexTransportException("Timed out after " + config.connectTimeout() + " connecting to "
                    + describe(), e);
        } catch (IOException e) {
            boolean closedMeanwhile = currentState() == State.CLOSED;
            failStart(w);
            if (closedMeanwhile) {
                throw new CodexTransportException("Transport " + describe() + " was closed while connecting", e);
            }
            throw new CodexTransportException("Could not connect to " + describe() + ": " + safe(e) + ". "
                    + config.howToStart(), e);
        } catch (RuntimeException | Error e) {
            failStart(w);
            throw e;
        }
    }

    private void failStart(ChannelWire w) {
        if (w != null) {
            w.close();
        }
        connecting = null;
        synchronized (lifecycle) {
            state = State.CLOSED;
        }
    }

    /** Sends the upgrade request, reads and checks the answer; leaves bytes that followed it in {@code buffer}. */
    private OptionalInt handshake(ChannelWire w, Optional<String> token, ByteBuffer buffer, long deadline)
            throws IOException {
        WebSocketUpgrade handshake = new WebSocketUpgrade(random);
        w.write(new ByteBuffer[] {ByteBuffer.wrap(handshake.request(config.host(), config.path(), token))},
                deadline);
        try {
            Optional<WebSocketUpgrade.Response> response;
            while (true) {
                buffer.flip();
                response = WebSocketUpgrade.parse(buffer);
                buffer.compact();
                if (response.isPresent()) {
                    break;
                }
                if (w.read(buffer, deadline) < 0) {
                    throw new EOFException("the server closed the connection during the handshake");
                }
            }
            WebSocketUpgrade.Response r = response.get();
            if (r.status() != 101) {
                throw new CodexTransportException(WebSocketMessages.handshakeRefused(describe(), r.status(),
                        errorBody(w, r, buffer, deadline), config.redactor()));
            }
            return handshake.accept(r);
        } catch (WebSocketUpgrade.Rejected e) {
            throw new CodexTransportException("WebSocket handshake with " + describe() + " failed: "
                    + config.redactor().redact(e.getMessage()));
        }
    }

    /** The start of a refusal's body (codex explains a 401 there), read within the connect deadline. */
    private static String errorBody(ChannelWire w, WebSocketUpgrade.Response r, ByteBuffer buffer, long deadline) {
        int wanted = 0;
        try {
            wanted = (int) Math.min(MAX_ERROR_BODY_BYTES, Long.parseLong(r.header("content-length").orElse("0")));
        } catch (NumberFormatException e) {
            // no usable length: show what already arrived
        }
        try {
            while (buffer.position() < wanted && w.read(buffer, deadline) >= 0) {
                // keep reading until the announced body (or its first KiB) is here
            }
        } catch (IOException e) {
            // a refusal without its explanation is still a refusal
        }
        buffer.flip();
        int n = Math.min(buffer.remaining(), wanted > 0 ? wanted : MAX_ERROR_BODY_BYTES);
        byte[] body = new byte[n];
        buffer.get(body);
        return new String(body, StandardCharsets.UTF_8);
    }

    /**
     * Sends one text message (fragmented when longer than the frame limit), waiting at most the send timeout for
     * an earlier send and for the socket.
     */
    public void send(byte[] message) {
        if (closeRequested || currentState() != State.OPEN || sink.isClosed()) {
            throw closedException();
        }
        boolean locked = false;
        try {
            locked = writeLock.tryLock(config.sendTimeout().toMillis(), TimeUnit.MILLISECONDS);
            if (!locked) {
                throw new CodexTransportException("Timed out after " + config.sendTimeout()
                        + " waiting for an earlier send on " + describe());
            }
            if (closeSent) {
                throw closedException();
            }
            long deadline = System.nanoTime() + config.sendTimeout().toNanos();
            int offset = 0;
            do {
                int n = Math.min(maxFrameBytes, message.length - offset);
                boolean fin = offset + n == message.length;
                writer.writeFrame(offset == 0 ? FrameReader.TEXT : FrameReader.CONTINUATION, fin, message, offset, n,
                        deadline);
                offset += n;
                // Control frames may go between fragments; a ping must not wait for a long message.
                flushPongs(deadline);
            } while (offset < message.length);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CodexTransportException("Interrupted while sending on " + describe(), e);
        } catch (SocketTimeoutException e) {
            // A half-written frame leaves the stream unusable.
            abort("send timed out after " + config.sendTimeout());
            throw new CodexTransportException("Timed out after " + config.sendTimeout() + " sending on "
                    + describe() + "; the connection was aborted", e);
        } catch (IOException e) {
            if (closeRequested || sink.isClosed() || wire.isClosed()) {
                throw closedException();
            }
            throw new CodexTransportException("Cannot send on " + describe() + ": " + safe(e), e);
        } finally {
            if (locked) {
                writeLock.unlock();
                flushPongsIfIdle();
            }
        }
    }

    /** Close handshake, bounded by the close timeout; then the socket is closed and the reader joined. */
    public void close() {
        ChannelWire abandoned = null;
        synchronized (lifecycle) {
            switch (state) {
                case NEW:
                    state = State.CLOSED;
                    return;
                case CONNECTING:
                    state = State.CLOSED;
                    abandoned = connecting;
                    break;
                default:
                    state = State.CLOSED;
                    break;
            }
        }
        if (abandoned != null) {
            // start() sees its I/O fail, finds the state closed and reports it to its caller.
            abandoned.close();
            return;
        }
        if (reader == null) {
            return;
        }
        boolean first = !closeRequested;
        closeRequested = true;
        if (first && !sink.isClosed()) {
            sendClose(1000, "", config.closeTimeout());
            // The server answers with its own close frame, which ends the reader.
            if (Thread.currentThread() != reader) {
                sink.awaitClosed(config.closeTimeout().toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        wire.close();
        if (Thread.currentThread() != reader) {
            try {
                reader.join(THREAD_JOIN.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (reader.isAlive()) {
                Log.LOG.warn("reader of {} did not stop within {}; its sink is probably blocked", describe(),
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

    /** Sends a close frame unless one went out already, waiting at most {@code timeout} for the write lock. */
    private void sendClose(int code, String reason, Duration timeout) {
        boolean locked = false;
        try {
            locked = writeLock.tryLock(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (locked && !closeSent) {
                closeSent = true;
                writer.writeClose(code, reason, System.nanoTime() + timeout.toNanos());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            Log.LOG.debug("close frame to {} not sent: {}", describe(), e.toString());
        } finally {
            if (locked) {
                writeLock.unlock();
            }
        }
    }

    /** Writes queued pongs; the caller holds the write lock. */
    private void flushPongs(long deadline) throws IOException {
        byte[] payload;
        while ((payload = pongs.poll()) != null) {
            if (!closeSent) {
                writer.writeFrame(FrameReader.PONG, true, payload, 0, payload.length, deadline);
            }
        }
    }

    /**
     * Writes queued pongs if no one holds the write lock; otherwise the holder writes them before it lets go. The
     * queue is checked again after every release, so a pong queued just as the holder finished is not stranded.
     */
    private void flushPongsIfIdle() {
        while (!pongs.isEmpty() && writeLock.tryLock()) {
            try {
                flushPongs(System.nanoTime() + config.sendTimeout().toNanos());
            } catch (IOException e) {
                Log.LOG.debug("pong to {} not sent: {}", describe(), e.toString());
            } finally {
                writeLock.unlock();
            }
        }
    }

    private void abort(String reason) {
        abortReason = reason;
        wire.close();
    }

    private void readLoop() {
        List<byte[]> batch = new ArrayList<>();
        Events events = new Events(batch);
        FrameReader frames = new FrameReader(config.maxMessageBytes());
        ByteBuffer buffer = readBuffer;
        readBuffer = null;
        TransportTermination end;
        try {
            // Bytes that followed the handshake answer are frames already.
            boolean pending = buffer.position() > 0;
            while (true) {
                if (!pending && wire.read(buffer, ChannelWire.NO_DEADLINE) < 0) {
                    end = ended("the server closed the connection without a close frame", null);
                    break;
                }
                pending = false;
                buffer.flip();
                frames.feed(buffer, events);
                buffer.compact();
                events.deliver();
                if (frames.closeReceived()) {
                    end = serverClosed(events.closeCode, events.closeReason);
                    break;
                }
            }
        } catch (WebSocketProtocolException e) {
            events.deliver();
            Log.LOG.debug("protocol error on {}: {}", describe(), e.getMessage());
            sendClose(e.closeCode(), e.getMessage(), config.closeTimeout());
            end = ended("WebSocket protocol error: " + e.getMessage(), e);
        } catch (IOException e) {
            events.deliver();
            end = ended("the WebSocket failed: " + safe(e), e);
        } catch (RuntimeException | Error e) {
            Log.LOG.error("reader of {} failed", describe(), e);
            end = ended("the reader failed: " + safe(e), e);
        } finally {
            wire.close();
        }
        sink.deliverClosed(end);
    }

    /** A close frame arrived: answer it (unless it answers ours) and end. */
    private TransportTermination serverClosed(int code, String reason) {
        if (closeRequested) {
            return TransportTermination.requested("closed by the client");
        }
        sendClose(code == FrameReader.NO_STATUS ? 1000 : code, "", config.closeTimeout());
        return new TransportTermination(config.redactor().redact(WebSocketMessages.serverClosed(code, reason)),
                OptionalInt.empty(), "", Optional.empty(), false);
    }

    private TransportTermination ended(String reason, Throwable cause) {
        if (closeRequested) {
            return TransportTermination.requested("closed by the client");
        }
        String why = abortReason != null ? abortReason : reason;
        return new TransportTermination(config.redactor().redact(why), OptionalInt.empty(), "",
                Optional.ofNullable(cause), false);
    }

    private CodexTransportException closedException() {
        TransportTermination t = sink == null ? null : sink.termination();
        if (t != null) {
            return new CodexTransportException("Transport " + describe() + " is closed: " + t.reason(),
                    OptionalInt.empty(), "", t.cause().orElse(null));
        }
        return new CodexTransportException("Transport " + describe() + " is "
                + (wire == null ? "not connected" : "closed"));
    }

    private String safe(Throwable t) {
        String m = t.getMessage();
        return config.redactor().redact(t.getClass().getSimpleName() + (m == null ? "" : ": " + m));
    }

    /** Collects what one read completed; runs on the reader thread. */
    private final class Events implements FrameReader.Events {
        private final List<byte[]> batch;
        int closeCode;
        String closeReason = "";

        /** The frames of {@link #batch} in one array, as the sink takes them. */
        private final MessageBuffer messages = new MessageBuffer();

        Events(List<byte[]> batch) {
            this.batch = batch;
        }

        @Override
        public void message(byte[] payload) {
            batch.add(payload);
        }

        @Override
        public void oversized(long length) {
            // Keep wire order: the messages before the oversized one go first.
            deliver();
            sink.onOversizedMessage(length);
        }

        @Override
        public void ping(byte[] payload) {
            pongs.offer(payload);
            flushPongsIfIdle();
        }

        @Override
        public void close(int code, String reason) {
            closeCode = code;
            closeReason = reason;
        }

        void deliver() {
            if (batch.isEmpty()) {
                return;
            }
            messages.clear();
            for (byte[] message : batch) {
                messages.add(message, 0, message.length);
            }
            batch.clear();
            sink.onMessages(messages);
        }
    }
}

package dev.codexclient.testkit.internal.fake;

import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-memory connection: the server side writes bytes into a queue that the client transport reads and cuts
 * into lines itself, so fragments, garbage and oversized lines reach the client exactly as they would over a pipe.
 * This is the one place the fake creates an in-memory {@link Transport}.
 */
public final class InMemoryLink implements ServerLink {
    private static final Logger LOG = LoggerFactory.getLogger(InMemoryLink.class);
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final int DEFAULT_MAX_LINE = 256 * 1024 * 1024;

    /** End of the server's output; carries how the "process" ended. */
    private record End(String reason, OptionalInt exitCode) {
    }

    private final int number = COUNTER.incrementAndGet();
    private final LinkedBlockingQueue<Object> toClient = new LinkedBlockingQueue<>();
    private final AtomicBoolean stdoutClosed = new AtomicBoolean();
    private final AtomicBoolean stdinClosed = new AtomicBoolean();
    /**
     * The client's end until {@link #takeClientTransport()} hands it out: from then on only the client holds it, so
     * the fake, which keeps this server end, never keeps a client reachable (the client's transport holds its
     * message sink, and through it the whole client).
     */
    private ClientTransport client = new ClientTransport();
    private volatile Listener listener;

    /**
     * Creates a connected pair and returns the server end; {@link #takeClientTransport()} hands out the other end.
     *
     * @return the server end
     */
    public static InMemoryLink create() {
        return new InMemoryLink();
    }

    /**
     * Hands out the client's end; this link keeps no reference to it.
     *
     * @return the client's end
     * @throws IllegalStateException when it was handed out already
     */
    public synchronized Transport takeClientTransport() {
        ClientTransport c = client;
        if (c == null) {
            throw new IllegalStateException("the client end of " + describe() + " was handed out already");
        }
        client = null;
        return c;
    }

    @Override
    public void start(Listener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    @Override
    public void writeLine(byte[] message) {
        byte[] framed = new byte[message.length + 1];
        System.arraycopy(message, 0, framed, 0, message.length);
        framed[message.length] = '\n';
        writeRaw(framed);
    }

    @Override
    public void writeRaw(byte[] bytes) {
        if (stdoutClosed.get()) {
            LOG.debug("dropping {} bytes: stdout of {} is closed", bytes.length, describe());
            return;
        }
        toClient.add(bytes.clone());
    }

    @Override
    public void writeStderr(byte[] bytes) {
        LOG.debug("in-memory connection has no stderr; discarding {} bytes", bytes.length);
    }

    @Override
    public void floodStderr(long bytes) {
        LOG.debug("in-memory connection has no stderr; discarding a flood of {} bytes", bytes);
    }

    @Override
    public void ignoreStdinEof() {
        LOG.debug("in-memory connection has no process to keep running");
    }

    @Override
    public void closeStdout() {
        if (stdoutClosed.compareAndSet(false, true)) {
            toClient.add(new End("fake codex app-server closed its stdout", OptionalInt.empty()));
        }
    }

    @Override
    public void exit(int code) {
        if (stdoutClosed.compareAndSet(false, true)) {
            toClient.add(new End("fake codex app-server exited", OptionalInt.of(code)));
        }
        closeStdin();
    }

    @Override
    public boolean isOpen() {
        return !stdoutClosed.get() || !stdinClosed.get();
    }

    @Override
    public String describe() {
        return "in-memory fake codex app-server #" + number;
    }

    private void closeStdin() {
        if (stdinClosed.compareAndSet(false, true)) {
            Listener l = listener;
            if (l != null) {
                l.onClientClosed();
            }
        }
    }

    /** The client's end: reads on its own daemon thread and frames lines like a pipe reader would. */
    private final class ClientTransport implements Transport {
        private final AtomicBoolean started = new AtomicBoolean();
        private final AtomicBoolean closeRequested = new AtomicBoolean();
        private volatile Thread reader;

        @Override
        public String kind() {
            return "in-memory";
        }

        @Override
        public void start(MessageSink sink) {
            Objects.requireNonNull(sink, "sink");
            if (!started.compareAndSet(false, true)) {
                throw new IllegalStateException("transport already started");
            }
            Thread t = new Thread(() -> readLoop(sink), "codex-fake-memory-client-" + number);
            t.setDaemon(true);
            reader = t;
            t.start();
        }

        private void readLoop(MessageSink sink) {
            // The lines one chunk completes reach the client in one buffer, as a stream transport hands them over.
            MessageBuffer batch = new MessageBuffer();
            Runnable flush = () -> {
                if (!batch.isEmpty()) {
                    sink.onMessages(batch);
                    batch.clear();
                }
            };
            LineSplitter splitter = new LineSplitter(DEFAULT_MAX_LINE, line -> batch.add(line, 0, line.length),
                    length -> {
                        flush.run();
                        sink.onOversizedMessage(length);
                    });
            TransportTermination termination;
            try {
                while (true) {
                    Object next = toClient.take();
                    if (next instanceof byte[] bytes) {
                        splitter.feed(bytes, 0, bytes.length);
                        flush.run();
                    } else {
                        End end = (End) next;
                        splitter.finish();
                        flush.run();
                        termination = new TransportTermination(end.reason(), end.exitCode(), "",
                                Optional.empty(), closeRequested.get());
                        break;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                termination = TransportTermination.requested("in-memory transport interrupted");
            }
            sink.onClosed(termination);
        }

        @Override
        public void send(byte[] message) {
            if (stdinClosed.get() || closeRequested.get()) {
                throw new CodexTransportException("in-memory transport to the fake codex app-server is closed");
            }
            Listener l = listener;
            if (l != null) {
                l.onClientLine(message.clone());
            }
        }

        @Override
        public void close() {
            if (!closeRequested.compareAndSet(false, true)) {
                return;
            }
            closeStdin();
            if (stdoutClosed.compareAndSet(false, true)) {
                toClient.add(new End("client closed the in-memory transport", OptionalInt.empty()));
            }
            Thread t = reader;
            if (t != null && t != Thread.currentThread()) {
                try {
                    t.join(TimeUnit.SECONDS.toMillis(2));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public String describe() {
            return InMemoryLink.this.describe();
        }
    }
}

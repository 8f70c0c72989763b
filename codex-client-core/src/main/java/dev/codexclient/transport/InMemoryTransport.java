package dev.codexclient.transport;

import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.transport.GuardedSink;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One end of an in-process connection: what one end sends, the other receives, in order, on its own reader thread.
 * For tests and fakes that should exercise the real client without a child process.
 *
 * <pre>{@code
 * InMemoryTransport.Pair pair = InMemoryTransport.pair();
 * fakeServer.serve(pair.server());
 * CodexClient client = CodexClient.builder().transport(pair.client()).build();
 * }</pre>
 *
 * <p>Closing one end ends both: the closing end sees a requested termination, the other one sees "peer closed"
 * after every message sent before the close. {@link #closeWith(TransportTermination)} lets a fake choose what
 * the other end sees, e.g. a child exit with a code and stderr.
 */
public final class InMemoryTransport implements Transport {

    /**
     * Two connected ends.
     *
     * @param client the end to give the client
     * @param server the end to give the fake server
     */
    public record Pair(InMemoryTransport client, InMemoryTransport server) {
        /**
         * Checks that both ends are present.
         *
         * @param client the end to give the client
         * @param server the end to give the fake server
         */
        public Pair {
            Objects.requireNonNull(client, "client");
            Objects.requireNonNull(server, "server");
        }
    }

    private static final AtomicInteger PAIRS = new AtomicInteger();
    private static final long JOIN_MILLIS = 2000;

    private final String name;
    /** Messages (byte[]) and at most one termination, in delivery order. */
    private final LinkedBlockingDeque<Object> inbox = new LinkedBlockingDeque<>();
    /** The reader thread's buffer of the messages it hands over together. */
    private final MessageBuffer batch = new MessageBuffer();
    private final Object lock = new Object();
    private InMemoryTransport peer;
    private GuardedSink sink;
    private Thread reader;
    private boolean started;
    /** Set once this end can no longer send: it closed, or its peer did. */
    private TransportTermination ended;

    private InMemoryTransport(String name) {
        this.name = name;
    }

    /** {@return two new, connected, unstarted ends} */
    public static Pair pair() {
        int id = PAIRS.incrementAndGet();
        InMemoryTransport client = new InMemoryTransport("in-memory #" + id + " client");
        InMemoryTransport server = new InMemoryTransport("in-memory #" + id + " server");
        client.peer = server;
        server.peer = client;
        return new Pair(client, server);
    }

    /**
     * Starts delivering to {@code sink}. Messages the peer sent earlier are delivered first.
     *
     * @throws IllegalStateException when called twice
     */
    @Override
    public void start(MessageSink sink) {
        Objects.requireNonNull(sink, "sink");
        synchronized (lock) {
            if (started) {
                throw new IllegalStateException(name + " already started");
            }
            started = true;
            this.sink = new GuardedSink(sink, name);
            reader = new Thread(this::readLoop, "codex-" + name.replace(' ', '-').replace("#", ""));
            reader.setDaemon(true);
            reader.start();
        }
    }

    /**
     * Hands a copy of {@code message} to the peer.
     *
     * @throws CodexTransportException when either end has closed
     */
    @Override
    public void send(byte[] message) {
        Objects.requireNonNull(message, "message");
        TransportTermination t;
        synchronized (lock) {
            t = ended;
        }
        if (t != null) {
            throw new CodexTransportException(name + " is closed: " + t.reason(), t.exitCode(), t.stderrTail(),
                    t.cause().orElse(null));
        }
        // Outside our lock: two ends sending to each other at once must not deadlock.
        peer.deliver(Arrays.copyOf(message, message.length));
    }

    /** Closes this end; the peer sees {@code "peer closed"} after the messages already sent. */
    @Override
    public void close() {
        closeWith(new TransportTermination(name + ": peer closed", OptionalInt.empty(), "", Optional.empty(),
                false));
    }

    /**
     * Closes this end, and has the peer receive {@code peerTermination} (after the messages already sent) instead
     * of a plain "peer closed": a fake server uses it to play a child exit, e.g.
     * {@code server.closeWith(TransportTermination.exited(101, "thread 'main' panicked"))}. Idempotent: only the
     * first close counts.
     *
     * @param peerTermination what the other end's sink receives as the end of the transport
     */
    public void closeWith(TransportTermination peerTermination) {
        Objects.requireNonNull(peerTermination, "peerTermination");
        boolean first;
        synchronized (lock) {
            first = ended == null;
            if (first) {
                ended = TransportTermination.requested(name + ": closed");
                // What this end had not read yet is dropped, as with a closed socket.
                inbox.clear();
                inbox.offerFirst(ended);
            }
        }
        if (first) {
            peer.peerClosed(peerTermination);
        }
        Thread r;
        synchronized (lock) {
            r = reader;
        }
        if (r != null && r != Thread.currentThread()) {
            try {
                r.join(JOIN_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@code "in-memory"}. */
    @Override
    public String kind() {
        return "in-memory";
    }

    @Override
    public String describe() {
        return name;
    }

    @Override
    public String toString() {
        return name;
    }

    private void deliver(byte[] message) {
        synchronized (lock) {
            if (ended == null) {
                inbox.offerLast(message);
            }
        }
    }

    private void peerClosed(TransportTermination termination) {
        synchronized (lock) {
            if (ended == null) {
                ended = termination;
                inbox.offerLast(termination);
            }
        }
    }

    private void readLoop() {
        try {
            while (true) {
                Object next = inbox.poll(1, TimeUnit.MINUTES);
                if (next == null) {
                    continue;
                }
                if (next instanceof TransportTermination) {
                    sink.deliverClosed((TransportTermination) next);
                    return;
                }
                // The messages already queued behind this one go with it, in one buffer.
                batch.clear();
                byte[] message = (byte[]) next;
                batch.add(message, 0, message.length);
                while (inbox.peekFirst() instanceof byte[] more) {
                    inbox.pollFirst();
                    batch.add(more, 0, more.length);
                }
                sink.onMessages(batch);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            sink.deliverClosed(new TransportTermination(name + ": reader interrupted", OptionalInt.empty(), "",
                    Optional.of(e), false));
        }
    }
}

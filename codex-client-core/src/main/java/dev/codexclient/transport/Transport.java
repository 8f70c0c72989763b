package dev.codexclient.transport;

import java.time.Duration;
import java.util.Optional;

/**
 * Moves JSON messages between the client and one app-server connection: stdio of a child process, a WebSocket,
 * or memory. The SPI the dispatcher is written against; users pick an implementation on the client builder.
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #start(MessageSink)} is called once; from then on the transport reads on one thread of its own and
 *       hands every message to the sink in wire order.</li>
 *   <li>{@link #send(byte[])} may be called from any thread; implementations serialise writes so messages never
 *       interleave. It throws {@link dev.codexclient.errors.CodexTransportException} once the transport ended.</li>
 *   <li>{@link #close()} is idempotent, bounded in time, and results in exactly one
 *       {@link MessageSink#onClosed(TransportTermination)}.</li>
 * </ul>
 */
public interface Transport extends AutoCloseable {
    /**
     * How long a transport's {@link #close()} waits for the peer to end on its own (a child to exit after its stdin
     * closed, a WebSocket's close frame) before it forces the end: 5 s, unless the transport's builder or the
     * client's {@code closeTimeout} says otherwise. Every transport of this package starts from this one value.
     */
    Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(5);


    /**
     * Starts reading and delivering to {@code sink}. Called once, before any {@link #send(byte[])}.
     *
     * @param sink receives every message read, and the end of the transport, on the transport's reader thread
     * @throws dev.codexclient.errors.CodexTransportException when the connection cannot be established (binary
     *                                                        missing, connection refused, ...); the sink is then
     *                                                        never called and the transport stays closed
     * @throws IllegalStateException                          when called a second time or after {@link #close()}
     */
    void start(MessageSink sink);

    /**
     * Writes one message: the UTF-8 bytes of one JSON text without a line terminator (the transport frames it).
     * The caller keeps ownership of the array. May block while the peer is not reading; {@link #close()} from
     * another thread unblocks it with an exception.
     *
     * @param message the UTF-8 bytes of one JSON text; not changed by the transport
     * @throws dev.codexclient.errors.CodexTransportException before {@link #start(MessageSink)}, after the
     *                                                        transport ended, or when the write fails; it
     *                                                        carries the exit code and stderr tail when known
     */
    void send(byte[] message);

    /**
     * Ends the connection gracefully (for a child process: close its stdin, wait a bounded time, then destroy it)
     * and releases every thread and file descriptor the transport holds.
     */
    @Override
    void close();

    /**
     * Like {@link #close()}, waiting at most {@code timeout} for the peer to end on its own before forcing the end
     * (for a child process: SIGTERM to it and its descendants, then SIGKILL). {@code Duration.ZERO} skips the
     * graceful wait, for a peer that is known to be broken. The client calls this with its
     * {@code closeTimeout} when one is set, and with zero when a handshake fails.
     *
     * <p>The default ignores {@code timeout} and calls {@link #close()}: a transport whose close is bounded
     * anyway (in memory, for instance) need not override it.
     *
     * @param timeout the longest graceful wait, zero or more
     */
    default void close(Duration timeout) {
        close();
    }

    /**
     * {@return the process at the other end, when this transport runs it as a child (the stdio transport does)} Use
     * it to watch the process, read its pid, or kill it. Empty for a connection to a server this process did not
     * start, and before {@link #start(MessageSink)}.
     */
    default Optional<ProcessHandle> process() {
        return Optional.empty();
    }

    /**
     * {@return what kind of connection this is, in one lower-case word and never with an address or a
     * credential, for metrics and events: {@code stdio}, {@code websocket}, {@code unix}, {@code in-memory};
     * {@code custom} unless a transport says otherwise}
     */
    default String kind() {
        return "custom";
    }

    /**
     * {@return a short description for logs and error messages, e.g. {@code "stdio: codex app-server (pid 4242)"}}
     * It must not contain credentials: the client writes it to its logs.
     */
    String describe();
}

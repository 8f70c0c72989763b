package dev.codexclient.transport;

import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.transport.websocket.ChannelWebSocketEngine;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Connects to a codex app-server listening on a Unix domain socket: {@code codex app-server --listen unix://PATH},
 * or the local daemon ({@code codex app-server daemon start}), which listens on
 * {@code $CODEX_HOME/app-server-control/app-server-control.sock}. codex speaks WebSocket over the socket, one JSON
 * message per text frame, so this transport behaves like {@link WebSocketTransport}: the same size cap, timeouts,
 * bearer-token option and error messages.
 *
 * <pre>{@code
 * Transport transport = UnixSocketTransport.builder()
 *         .daemonSocket(Path.of(System.getProperty("user.home"), ".codex"))
 *         .build();
 * CodexClient client = CodexClient.builder().transport(transport).build();
 * }</pre>
 *
 * <p>One reader thread per connection reads frames and hands every message to the sink in wire order; it never
 * waits for user code, so the server's outbound queue keeps draining however slowly listeners consume events.
 * Messages longer than the largest frame the server accepts (it names the limit in the handshake) are sent in
 * fragments. {@link #close()} performs the close handshake, bounded by {@link Builder#closeTimeout(Duration)}.
 *
 * <p>codex applies no {@code --ws-auth} check on its Unix socket (the socket file is private to its user, mode
 * 0600); {@link Builder#bearerToken(BearerTokenProvider)} is there for servers or proxies that do.
 */
public final class UnixSocketTransport implements Transport {

    /** The directory under {@code CODEX_HOME} that holds the daemon's control socket. */
    public static final String CONTROL_SOCKET_DIRECTORY = "app-server-control";
    /** The file name of the daemon's control socket. */
    public static final String CONTROL_SOCKET_FILE = "app-server-control.sock";

    /**
     * The longest path a Unix socket address may have on Linux ({@code sun_path} is 108 bytes with its terminator;
     * macOS allows 103).
     */
    private static final int MAX_SOCKET_PATH_BYTES = 107;

    private final ChannelWebSocketEngine connection;

    private UnixSocketTransport(ChannelWebSocketEngine connection) {
        this.connection = connection;
    }

    /** {@return a new builder; the socket path is required ({@link Builder#path} or {@link Builder#daemonSocket})} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@return where the daemon of {@code codexHome} listens} That is
     * {@code codexHome/app-server-control/app-server-control.sock} (in codex 0.169.0 a symbolic link to the socket
     * itself, which lives under {@code /tmp/codex-daemon-<uid>/}). Nothing is checked on disk.
     *
     * @param codexHome the daemon's {@code CODEX_HOME}, e.g. {@link #defaultCodexHome()}
     */
    public static Path daemonSocketPath(Path codexHome) {
        return Objects.requireNonNull(codexHome, "codexHome").resolve(CONTROL_SOCKET_DIRECTORY)
                .resolve(CONTROL_SOCKET_FILE);
    }

    /**
     * {@return the codex home this process would use: {@code $CODEX_HOME} when set, else {@code ~/.codex}} That is
     * how codex itself resolves it.
     */
    public static Path defaultCodexHome() {
        String env = System.getenv("CODEX_HOME");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        return Path.of(System.getProperty("user.home"), ".codex");
    }

    /**
     * Connects, performs the WebSocket handshake and starts delivering messages.
     *
     * @throws dev.codexclient.errors.CodexTransportException when nothing listens on the socket, the handshake is
     *                                                        refused, or both take longer than the connect timeout;
     *                                                        the sink is then never called
     * @throws IllegalStateException                          when called twice or after {@link #close()}
     */
    @Override
    public void start(MessageSink sink) {
        connection.start(Objects.requireNonNull(sink, "sink"));
    }

    @Override
    public void send(byte[] message) {
        connection.send(Objects.requireNonNull(message, "message"));
    }

    @Override
    public void close() {
        connection.close();
    }

    /** {@code "unix"}. */
    @Override
    public String kind() {
        return "unix";
    }

    /** {@code "unix socket: <path>"}. */
    @Override
    public String describe() {
        return connection.describe();
    }

    /**
     * {@return the largest frame the server said it accepts, once connected; empty before, or when it did not say}
     * The header is {@code x-codex-websocket-max-unfragmented-message-bytes}: 16 MiB in codex 0.169.0. Longer
     * messages are sent in fragments; codex accepts messages of up to 64 MiB in total.
     */
    public OptionalInt serverMaxFrameBytes() {
        return connection.serverMaxFrameBytes();
    }

    @Override
    public String toString() {
        return describe();
    }

    /** Configures a {@link UnixSocketTransport}. */
    public static final class Builder {
        private Path path;
        private BearerTokenProvider bearerToken;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration sendTimeout = Duration.ofSeconds(30);
        private Duration closeTimeout = Transport.DEFAULT_CLOSE_TIMEOUT;
        private int maxMessageBytes = LineFramer.DEFAULT_MAX_LINE_BYTES;
        private OptionalInt maxFrameBytes = OptionalInt.empty();

        private Builder() {
        }

        /**
         * The socket to connect to, e.g. what {@code codex app-server --listen unix://PATH} was given.
         *
         * @param socketPath the socket's path
         * @return this builder
         */
        public Builder path(Path socketPath) {
            this.path = Objects.requireNonNull(socketPath, "socketPath");
            return this;
        }

        /**
         * The control socket of the daemon that uses {@code codexHome}; see {@link #daemonSocketPath(Path)}.
         *
         * @param codexHome the daemon's {@code CODEX_HOME}
         * @return this builder
         */
        public Builder daemonSocket(Path codexHome) {
            return path(daemonSocketPath(codexHome));
        }

        /**
         * Sends {@code Authorization: Bearer <token>} with the handshake. The token is masked in every log line and
         * error message.
         *
         * @param token the token, without the {@code Bearer } prefix
         * @return this builder
         * @throws IllegalArgumentException when the token is blank
         */
        public Builder bearerToken(String token) {
            return bearerToken(BearerTokenProvider.of(token));
        }

        /**
         * Asks {@code provider} for a token at each connection attempt (e.g. {@link SignedBearerTokens}).
         *
         * @param provider the source of tokens
         * @return this builder
         */
        public Builder bearerToken(BearerTokenProvider provider) {
            this.bearerToken = Objects.requireNonNull(provider, "provider");
            return this;
        }

        /**
         * How long connecting and the opening handshake may take together (default 10 s).
         *
         * @param timeout the time, positive
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is zero or negative
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /**
         * How long one send may wait for the socket (default 30 s); on expiry the connection is aborted.
         *
         * @param timeout the time, positive
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is zero or negative
         */
        public Builder sendTimeout(Duration timeout) {
            this.sendTimeout = positive(timeout, "sendTimeout");
            return this;
        }

        /**
         * How long {@link UnixSocketTransport#close()} waits for the server's close frame (default
         * {@link Transport#DEFAULT_CLOSE_TIMEOUT}).
         *
         * @param timeout the time, positive
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is zero or negative
         */
        public Builder closeTimeout(Duration timeout) {
            this.closeTimeout = positive(timeout, "closeTimeout");
            return this;
        }

        /**
         * The longest message accepted, in bytes (default 128 MiB, at least 1 KiB). A longer one is discarded as it
         * arrives and reported through {@link MessageSink#onOversizedMessage(long)}; the connection stays usable.
         *
         * @param bytes the limit in bytes
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is below 1 KiB
         */
        public Builder maxMessageBytes(int bytes) {
            if (bytes < LineFramer.MIN_MAX_LINE_BYTES) {
                throw new IllegalArgumentException("maxMessageBytes must be at least " + LineFramer.MIN_MAX_LINE_BYTES
                        + " but was " + bytes);
            }
            this.maxMessageBytes = bytes;
            return this;
        }

        /**
         * The longest frame sent, in bytes; longer messages go out in fragments (default: what the server
         * advertises in the handshake, else 16 MiB). Only needed for a proxy with a lower limit than codex.
         *
         * @param bytes the limit in bytes, at least 125
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is below 125
         */
        public Builder maxFrameBytes(int bytes) {
            if (bytes < 125) {
                throw new IllegalArgumentException("maxFrameBytes must be at least 125 but was " + bytes);
            }
            this.maxFrameBytes = OptionalInt.of(bytes);
            return this;
        }

        /**
         * Builds the transport; nothing connects until {@link UnixSocketTransport#start(MessageSink)}.
         *
         * @return a new, unstarted transport
         * @throws IllegalStateException when no path was set
         */
        public UnixSocketTransport build() {
            if (path == null) {
                throw new IllegalStateException("the socket path is required: call path(...) or daemonSocket(...)");
            }
            Path absolute = path.toAbsolutePath().normalize();
            String description = "unix socket: " + absolute;
            ChannelWebSocketEngine.Config config = new ChannelWebSocketEngine.Config(
                    () -> UnixDomainSocketAddress.of(addressable(absolute)), description, "localhost", "/",
                    "Is `codex app-server --listen unix://" + absolute + "` (or `codex app-server daemon start`) "
                            + "running?",
                    "codex-uds-reader-", Optional.ofNullable(bearerToken), connectTimeout, sendTimeout,
                    closeTimeout, maxMessageBytes, maxFrameBytes, new Redactor());
            return new UnixSocketTransport(new ChannelWebSocketEngine(config));
        }

        /**
         * A path the OS accepts as a socket address, worked out at each connect: a long path (a deep CODEX_HOME) is
         * replaced by its real path, since codex's socket is a symbolic link to a short one.
         */
        private static Path addressable(Path path) throws IOException {
            if (path.toString().getBytes(StandardCharsets.UTF_8).length <= MAX_SOCKET_PATH_BYTES) {
                return path;
            }
            Path real = path.toRealPath();
            if (real.toString().getBytes(StandardCharsets.UTF_8).length <= MAX_SOCKET_PATH_BYTES) {
                return real;
            }
            throw new IOException("the socket path is longer than the " + MAX_SOCKET_PATH_BYTES
                    + " bytes a Unix socket address can hold, and does not resolve to a shorter one");
        }

        private static Duration positive(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + d);
            }
            return d;
        }
    }
}

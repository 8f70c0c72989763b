package dev.codexclient.transport;

import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.transport.LineFramer;
import dev.codexclient.internal.transport.WebSocketConnection;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Connects to a running {@code codex app-server --listen ws://127.0.0.1:PORT}, one JSON message per text frame.
 *
 * <pre>{@code
 * Transport transport = WebSocketTransport.builder(URI.create("ws://127.0.0.1:4500"))
 *         .bearerToken(token)
 *         .build();
 * }</pre>
 *
 * <p>Fragmented messages are reassembled; the next message is requested only after the sink took the previous
 * one. {@link #close()} performs the close handshake, bounded by {@link Builder#closeTimeout(Duration)}.
 */
public final class WebSocketTransport implements Transport {

    private final WebSocketConnection connection;

    private WebSocketTransport(WebSocketConnection connection) {
        this.connection = connection;
    }

    /** A builder for a connection to {@code uri} ({@code ws://} or {@code wss://}). */
    public static Builder builder(URI uri) {
        return new Builder(uri);
    }

    /**
     * Connects and starts delivering messages.
     *
     * @throws dev.codexclient.errors.CodexTransportException when the connection cannot be established within the
     *                                                        connect timeout; the sink is then never called
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

    @Override
    public String describe() {
        return connection.describe();
    }

    @Override
    public String toString() {
        return describe();
    }

    /** Configures a {@link WebSocketTransport}. */
    public static final class Builder {
        private final URI uri;
        private String bearerToken;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration sendTimeout = Duration.ofSeconds(30);
        private Duration closeTimeout = Duration.ofSeconds(5);
        private int maxMessageBytes = LineFramer.DEFAULT_MAX_LINE_BYTES;

        private Builder(URI uri) {
            Objects.requireNonNull(uri, "uri");
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("ws") && !scheme.equals("wss")) {
                throw new IllegalArgumentException("expected a ws:// or wss:// URI but got " + uri.getScheme()
                        + "://...");
            }
            if (uri.getHost() == null) {
                throw new IllegalArgumentException("the WebSocket URI has no host");
            }
            this.uri = uri;
        }

        /**
         * Sends {@code Authorization: Bearer <token>} with the handshake (codex {@code --ws-auth}). The token is
         * masked in every log line and error message.
         */
        public Builder bearerToken(String token) {
            Objects.requireNonNull(token, "token");
            if (token.isBlank()) {
                throw new IllegalArgumentException("bearer token is blank");
            }
            this.bearerToken = token.strip();
            return this;
        }

        /** How long the TCP connect and the opening handshake may take (default 10 s). */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /** How long one send may wait for the socket (default 30 s); on expiry the connection is aborted. */
        public Builder sendTimeout(Duration timeout) {
            this.sendTimeout = positive(timeout, "sendTimeout");
            return this;
        }

        /** How long {@link WebSocketTransport#close()} waits for the server's close frame (default 5 s). */
        public Builder closeTimeout(Duration timeout) {
            this.closeTimeout = positive(timeout, "closeTimeout");
            return this;
        }

        /**
         * The longest message accepted, in bytes (default 128 MiB, at least 1 KiB). A longer one is discarded and
         * reported through {@link MessageSink#onOversizedMessage(long)}.
         */
        public Builder maxMessageBytes(int bytes) {
            if (bytes < LineFramer.MIN_MAX_LINE_BYTES) {
                throw new IllegalArgumentException("maxMessageBytes must be at least " + LineFramer.MIN_MAX_LINE_BYTES
                        + " but was " + bytes);
            }
            this.maxMessageBytes = bytes;
            return this;
        }

        /** Builds the transport; nothing connects until {@link WebSocketTransport#start(MessageSink)}. */
        public WebSocketTransport build() {
            Redactor redactor = new Redactor();
            if (bearerToken != null) {
                redactor.register(bearerToken);
            }
            return new WebSocketTransport(new WebSocketConnection(new WebSocketConnection.Config(uri,
                    Optional.ofNullable(bearerToken), connectTimeout, sendTimeout, closeTimeout, maxMessageBytes,
                    redactor)));
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

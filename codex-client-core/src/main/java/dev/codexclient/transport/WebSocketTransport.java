package dev.codexclient.transport;

import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.transport.BearerTokens;
import dev.codexclient.internal.transport.WebSocketEngine;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * Connects to a running {@code codex app-server --listen ws://127.0.0.1:PORT}, one JSON message per text frame, or
 * to a {@code wss://} endpoint in front of one (codex itself serves no TLS).
 *
 * <pre>{@code
 * Transport transport = WebSocketTransport.builder(URI.create("ws://127.0.0.1:4500"))
 *         .bearerToken(token)
 *         .build();
 * }</pre>
 *
 * <p>Fragmented messages are reassembled; the next message is requested only after the sink took the previous
 * one. Messages are sent as 16 KiB frames, well below codex's 16 MiB frame limit. {@link #close()} performs the
 * close handshake, bounded by {@link Builder#closeTimeout(Duration)}.
 *
 * <p>A bearer token travels only where it cannot be read on the way: over {@code wss://} or to a loopback address.
 * Sending one in cleartext to another host needs {@link Builder#allowCleartextBearerToken()}.
 */
public final class WebSocketTransport implements Transport {

    private final WebSocketEngine connection;

    private WebSocketTransport(WebSocketEngine connection) {
        this.connection = connection;
    }

    /**
     * A builder for a connection to {@code uri} ({@code ws://} or {@code wss://}).
     *
     * @param uri the server's URI, e.g. what {@code codex app-server --listen ws://127.0.0.1:4500} was given
     * @return a new builder
     * @throws IllegalArgumentException when the URI is not a {@code ws://} or {@code wss://} URI with a host
     */
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

    /** Performs the close handshake, bounded by {@link Builder#closeTimeout(Duration)}, then drops the connection. */
    @Override
    public void close() {
        connection.close();
    }

    /** Like {@link #close()} with {@code timeout} as the bound; zero drops the connection without a handshake. */
    @Override
    public void close(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative: " + timeout);
        }
        connection.close(timeout);
    }

    /** {@code "websocket"}. */
    @Override
    public String kind() {
        return "websocket";
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
        private BearerTokenProvider bearerToken;
        private boolean allowCleartextBearerToken;
        private SSLContext sslContext;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration sendTimeout = Duration.ofSeconds(30);
        private Duration closeTimeout = Transport.DEFAULT_CLOSE_TIMEOUT;
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
         * Sends {@code Authorization: Bearer <token>} with the handshake (codex {@code --ws-auth capability-token}).
         * The token is masked in every log line and error message.
         *
         * @param token the token, without the {@code Bearer } prefix
         * @return this builder
         * @throws IllegalArgumentException when the token is blank
         */
        public Builder bearerToken(String token) {
            return bearerToken(BearerTokenProvider.of(token));
        }

        /**
         * Asks {@code provider} for the token at each connection attempt: {@link SignedBearerTokens} mints a fresh
         * one for codex {@code --ws-auth signed-bearer-token}.
         *
         * @param provider the source of tokens
         * @return this builder
         */
        public Builder bearerToken(BearerTokenProvider provider) {
            this.bearerToken = Objects.requireNonNull(provider, "provider");
            return this;
        }

        /**
         * Allows a bearer token over {@code ws://} to a host that is not a loopback address, where anyone on the
         * path can read and replay it. Without this, {@link #build()} refuses that combination.
         *
         * @return this builder
         */
        public Builder allowCleartextBearerToken() {
            this.allowCleartextBearerToken = true;
            return this;
        }

        /**
         * The TLS setup for a {@code wss://} endpoint, e.g. one that trusts a private certificate authority (default:
         * the JVM's default context).
         *
         * @param context the context; only for a {@code wss://} URI
         * @return this builder
         */
        public Builder sslContext(SSLContext context) {
            this.sslContext = Objects.requireNonNull(context, "context");
            return this;
        }

        /**
         * How long the TCP connect and the opening handshake may take (default 10 s).
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
         * How long {@link WebSocketTransport#close()} waits for the server's close frame (default
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
         * The longest message accepted, in bytes (default 128 MiB, at least 1 KiB). A longer one is discarded and
         * reported through {@link MessageSink#onOversizedMessage(long)}.
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
         * Builds the transport; nothing connects until {@link WebSocketTransport#start(MessageSink)}.
         *
         * @return a new, unstarted transport
         * @throws IllegalStateException when a bearer token would go in cleartext to a host that is not a loopback
         *                               address without {@link #allowCleartextBearerToken()}, or an SSL context was
         *                               given for a {@code ws://} URI
         */
        public WebSocketTransport build() {
            boolean tls = uri.getScheme().equalsIgnoreCase("wss");
            if (bearerToken != null && !tls && !allowCleartextBearerToken
                    && !BearerTokens.isLoopbackHost(uri.getHost())) {
                throw new IllegalStateException("Refusing to send a bearer token in cleartext to ws://"
                        + uri.getHost() + (uri.getPort() >= 0 ? ":" + uri.getPort() : "") + ": anyone on the way "
                        + "could read and replay it. Use wss://, connect to a loopback address (e.g. through an SSH "
                        + "tunnel), or opt in with WebSocketTransport.Builder.allowCleartextBearerToken().");
            }
            if (sslContext != null && !tls) {
                throw new IllegalStateException("an SSL context was given for " + uri.getScheme()
                        + "://, which does not use TLS; use a wss:// URI");
            }
            return new WebSocketTransport(new WebSocketEngine(new WebSocketEngine.Config(uri,
                    Optional.ofNullable(bearerToken), Optional.ofNullable(sslContext), connectTimeout, sendTimeout,
                    closeTimeout, maxMessageBytes, new Redactor())));
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

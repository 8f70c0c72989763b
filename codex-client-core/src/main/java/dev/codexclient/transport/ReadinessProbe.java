package dev.codexclient.transport;

import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.Redactor;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLContext;

/**
 * Asks a codex WebSocket listener whether it is up: {@code codex app-server --listen ws://IP:PORT} answers
 * {@code GET /readyz} and {@code GET /healthz} on the same port with {@code 200} (no credentials needed, even with
 * {@code --ws-auth}). For code that starts a server and must wait until it accepts connections.
 *
 * <pre>{@code
 * Process server = new ProcessBuilder("codex", "app-server", "--listen", "ws://127.0.0.1:4500").start();
 * ReadinessProbe.of(URI.create("ws://127.0.0.1:4500")).awaitReady(Duration.ofSeconds(15));
 * }</pre>
 *
 * <p>A {@code wss://} URI is probed over {@code https://} (a TLS front end must pass the paths through). Probes are
 * plain HTTP/1.1 requests without credentials, so nothing secret is sent.
 */
public final class ReadinessProbe {
    /** Masks what the built-in patterns recognise: a probe sends no credential of its own to register. */
    private static final Redactor REDACTOR = new Redactor();


    /** One look at an endpoint: whether it answered 200, and what was seen otherwise. */
    record Observation(boolean ok, String detail) {
    }

    /** Waits between attempts; a parameter so that tests can advance a fake clock instead of sleeping. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    private final URI readyUri;
    private final URI healthUri;
    private final Duration pollInterval;
    private final Function<URI, Observation> observer;
    private final LongSupplier nanoTime;
    private final Sleeper sleeper;

    ReadinessProbe(URI webSocketUri, Duration pollInterval, Function<URI, Observation> observer,
                   LongSupplier nanoTime, Sleeper sleeper) {
        this.readyUri = endpoint(webSocketUri, "/readyz");
        this.healthUri = endpoint(webSocketUri, "/healthz");
        this.pollInterval = pollInterval;
        this.observer = observer;
        this.nanoTime = nanoTime;
        this.sleeper = sleeper;
    }

    /**
     * A probe of the listener behind {@code webSocketUri}, with default settings.
     *
     * @param webSocketUri the server's {@code ws://} or {@code wss://} URI; the probe asks the same host and port
     * @return the probe
     * @throws IllegalArgumentException when the URI is not a {@code ws://} or {@code wss://} URI with a host
     */
    public static ReadinessProbe of(URI webSocketUri) {
        return builder(webSocketUri).build();
    }

    /**
     * A builder for a probe of the listener behind {@code webSocketUri} ({@code ws://} or {@code wss://}).
     *
     * @param webSocketUri the server's {@code ws://} or {@code wss://} URI; the probe asks the same host and port
     * @return a new builder
     * @throws IllegalArgumentException when the URI is not a {@code ws://} or {@code wss://} URI with a host
     */
    public static Builder builder(URI webSocketUri) {
        return new Builder(webSocketUri);
    }

    /** {@return the URI asked by {@link #isReady()}, e.g. {@code http://127.0.0.1:4500/readyz}} */
    public URI readyUri() {
        return readyUri;
    }

    /** {@return the URI asked by {@link #isHealthy()}, e.g. {@code http://127.0.0.1:4500/healthz}} */
    public URI healthUri() {
        return healthUri;
    }

    /**
     * {@return whether the listener answers {@code /readyz} with 200 now; false when it answers otherwise or not at
     * all} Waits at most the request timeout.
     */
    public boolean isReady() {
        return observer.apply(readyUri).ok();
    }

    /**
     * {@return whether the listener answers {@code /healthz} with 200 now; false when it answers otherwise or not at
     * all} Waits at most the request timeout.
     */
    public boolean isHealthy() {
        return observer.apply(healthUri).ok();
    }

    /**
     * Asks {@code /readyz} until it answers 200, at the poll interval.
     *
     * @param timeout the longest wait
     * @throws CodexTimeoutException   when it is not ready within {@code timeout}; the message says what the last
     *                                 attempt saw (connection refused, a status, ...)
     * @throws CodexTransportException when the waiting thread is interrupted (its interrupt flag is kept)
     */
    public void awaitReady(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        long deadline = nanoTime.getAsLong() + timeout.toNanos();
        while (true) {
            Observation seen = observer.apply(readyUri);
            if (seen.ok()) {
                return;
            }
            long left = deadline - nanoTime.getAsLong();
            if (left <= 0) {
                throw CodexTimeoutException.waitingFor("readiness of " + readyUri + " (last attempt: "
                        + seen.detail() + ")", timeout);
            }
            try {
                sleeper.sleep(Duration.ofNanos(Math.min(left, pollInterval.toNanos())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CodexTransportException("Interrupted while waiting for " + readyUri, e);
            }
        }
    }

    @Override
    public String toString() {
        return "ReadinessProbe[" + readyUri + "]";
    }

    private static URI endpoint(URI webSocketUri, String path) {
        String scheme = webSocketUri.getScheme().toLowerCase(Locale.ROOT).equals("wss") ? "https" : "http";
        // Never the user info or query of the WebSocket URI: either may carry a credential.
        return URI.create(scheme + "://" + webSocketUri.getHost()
                + (webSocketUri.getPort() >= 0 ? ":" + webSocketUri.getPort() : "") + path);
    }

    /** JDK 17's HttpClient cannot be closed; probes share one so that its selector thread does not multiply. */
    private static final class SharedClient {
        static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    /** Configures a {@link ReadinessProbe}. */
    public static final class Builder {
        private final URI uri;
        private Duration requestTimeout = Duration.ofSeconds(2);
        private Duration pollInterval = Duration.ofMillis(50);
        private SSLContext sslContext;

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
         * How long one probe may take, connect included (default 2 s).
         *
         * @param timeout the time, positive
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is zero or negative
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive(timeout, "requestTimeout");
            return this;
        }

        /**
         * How long {@link ReadinessProbe#awaitReady(Duration)} waits between attempts (default 50 ms).
         *
         * @param interval the time, positive
         * @return this builder
         * @throws IllegalArgumentException when {@code interval} is zero or negative
         */
        public Builder pollInterval(Duration interval) {
            this.pollInterval = positive(interval, "pollInterval");
            return this;
        }

        /**
         * The TLS setup for probing a {@code wss://} endpoint over {@code https://}.
         *
         * @param context the context, e.g. one that trusts a private certificate authority (default: the JVM's default)
         * @return this builder
         */
        public Builder sslContext(SSLContext context) {
            this.sslContext = Objects.requireNonNull(context, "context");
            return this;
        }

        /** {@return a new probe with this builder's settings} */
        public ReadinessProbe build() {
            HttpClient http = sslContext == null ? SharedClient.CLIENT
                    : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(sslContext).build();
            Duration timeout = requestTimeout;
            Function<URI, Observation> observer = target -> observe(http, target, timeout);
            return new ReadinessProbe(uri, pollInterval, observer, System::nanoTime, d -> Thread.sleep(d.toMillis(),
                    d.toNanosPart() % 1_000_000));
        }

        private static Observation observe(HttpClient http, URI target, Duration timeout) {
            HttpRequest request = HttpRequest.newBuilder(target).timeout(timeout).GET().build();
            try {
                int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                return new Observation(status == 200, "HTTP " + status);
            } catch (IOException e) {
                String m = Optional.ofNullable(e.getMessage()).orElse("");
                return new Observation(false, REDACTOR.redact(e.getClass().getSimpleName()
                        + (m.isEmpty() ? "" : ": " + m)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Observation(false, "interrupted");
            }
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

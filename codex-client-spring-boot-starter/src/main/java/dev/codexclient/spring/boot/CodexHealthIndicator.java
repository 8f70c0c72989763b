package dev.codexclient.spring.boot;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexVersion;
import dev.codexclient.ServerInfo;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.ClientRequestMethods;
import dev.codexclient.protocol.ThreadLoadedListParams;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The health of a {@link CodexClient}'s app-server: UP while the client is open and its server is there; DOWN when
 * the server was lost (with the cause: its exit code and the tail of its stderr), while a restart policy restarts it
 * ({@code restarting: true}), or when the client is closed. Back UP once a restart replaced the server.
 *
 * <p>By default the check costs the server nothing: it reads the client's state (the connection open, no restart
 * under way), which the client learns from the connection itself (a server that exits ends its output at once). With
 * {@code codex.health.probe=true} it also sends {@code thread/loaded/list} (limit one), which the server answers
 * from memory, and is DOWN when no answer comes within the indicator's timeout; that request is traffic like any
 * other ({@code codex.client.requests} counts it). Any answer counts, an error reply included.
 *
 * <p>Details: {@code codexVersion} (the server's, from its user agent), {@code userAgent}, {@code platform},
 * and {@code sdkCodexVersion} (the codex version this SDK was generated from), so a version mismatch shows up next
 * to the status; when the server was lost, {@code reason}, {@code exitCode} and {@code stderr}.
 */
public final class CodexHealthIndicator implements HealthIndicator {

    private final Supplier<CodexClient> client;
    private final Optional<CodexConnectionMonitor> monitor;
    private final Duration timeout;
    private final boolean probe;

    /**
     * An indicator of {@code client}'s server that sends the liveness request at every check and knows only the
     * client's own state.
     *
     * @param client  the client to check
     * @param timeout how long a check waits for the server's answer; positive
     */
    public CodexHealthIndicator(CodexClient client, Duration timeout) {
        this(client, Optional.empty(), timeout, true);
    }

    /**
     * An indicator of {@code client}'s server.
     *
     * @param client  the client to check
     * @param monitor what the client's events said about its connection (a restart under way, the last loss)
     * @param timeout how long a probe waits for the server's answer; positive
     * @param probe   whether every check also sends the liveness request
     */
    public CodexHealthIndicator(CodexClient client, Optional<CodexConnectionMonitor> monitor, Duration timeout,
                                boolean probe) {
        this(supplierOf(Objects.requireNonNull(client, "client")), monitor, timeout, probe);
    }

    /**
     * An indicator of a client made when first asked for ({@code codex.lazy=true}): the first check connects it, so
     * a codex that cannot start makes the health DOWN with its error rather than the application's start fail.
     */
    CodexHealthIndicator(Supplier<CodexClient> client, Optional<CodexConnectionMonitor> monitor, Duration timeout,
                         boolean probe) {
        this.client = Objects.requireNonNull(client, "client");
        this.monitor = Objects.requireNonNull(monitor, "monitor");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeout = timeout;
        this.probe = probe;
    }

    private static Supplier<CodexClient> supplierOf(CodexClient client) {
        return () -> client;
    }

    @Override
    public Health health() {
        CodexClient client;
        try {
            client = this.client.get();
        } catch (RuntimeException e) {
            // A lazy client that could not be made: codex missing, or its handshake failed.
            return new Health.Builder().down(e).withDetail("sdkCodexVersion", CodexVersion.pinned().text()).build();
        }
        Health.Builder health = details(client, new Health.Builder());
        CodexConnectionMonitor.State state = monitor.map(CodexConnectionMonitor::state)
                .orElse(new CodexConnectionMonitor.State(Optional.empty(), false));
        if (state.restarting()) {
            cause(health.down(), state.cause());
            return health.withDetail("restarting", true)
                    .withDetail("reason", "the app-server was lost; restarting it (codex.restart)").build();
        }
        if (client.isClosed()) {
            cause(health.down(), state.cause());
            return health.withDetail("reason", state.cause().isPresent() ? "the app-server was lost"
                    : "the client is closed").build();
        }
        return probe ? probe(client, health) : health.up().build();
    }

    private static void cause(Health.Builder health, Optional<CodexException> cause) {
        cause.ifPresent(c -> {
            health.withDetail("error", c.getClass().getName() + ": " + c.getMessage());
            if (c instanceof CodexTransportException transport) {
                transport.exitCode().ifPresent(code -> health.withDetail("exitCode", code));
                if (!transport.stderrTail().isBlank()) {
                    health.withDetail("stderr", transport.stderrTail());
                }
            }
        });
    }

    private Health probe(CodexClient client, Health.Builder health) {
        CompletableFuture<?> answer = client.rpc().withTimeout(timeout)
                .call(ClientRequestMethods.THREAD_LOADED_LIST, ThreadLoadedListParams.builder().limit(1L).build());
        try {
            // The call times out on its own after `timeout`; the wait's bound only backs that up.
            answer.get(timeout.toMillis() * 2 + 100, TimeUnit.MILLISECONDS);
            return health.up().build();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof CodexRpcException) {
                // An error reply is an answer: the server is there and reading.
                return health.up().build();
            }
            return health.down(asException(cause)).build();
        } catch (TimeoutException e) {
            answer.cancel(true);
            return health.down().withDetail("reason", "no answer within " + timeout).build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer.cancel(true);
            return health.down().withDetail("reason", "interrupted while waiting for the server").build();
        }
    }

    private static Health.Builder details(CodexClient client, Health.Builder health) {
        ServerInfo info = client.serverInfo();
        info.codexVersion().ifPresent(v -> health.withDetail("codexVersion", v.text()));
        info.userAgent().ifPresent(a -> health.withDetail("userAgent", a));
        info.platformOs().ifPresent(os -> health.withDetail("platform", info.platformFamily()
                .map(family -> family + "/" + os).orElse(os)));
        return health.withDetail("sdkCodexVersion", CodexVersion.pinned().text());
    }

    private static Exception asException(Throwable cause) {
        return cause instanceof Exception e ? e : new RuntimeException(cause);
    }
}

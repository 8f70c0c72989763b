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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The health of a {@link CodexClient}'s app-server, apart from any Spring Boot line: UP while the client is open and
 * its server is there; DOWN when the server was lost (with the cause: its exit code and the tail of its stderr),
 * while a restart policy restarts it ({@code restarting: true}), or when the client is closed. Back UP once a restart
 * replaced the server. The Actuator indicator of each Spring Boot line reports it as it is
 * ({@link dev.codexclient.spring.boot.actuate.CodexHealthIndicator} on 3.5,
 * {@link dev.codexclient.spring.boot.health.CodexHealthIndicator} on 4.0).
 *
 * <p>By default the check costs the server nothing: it reads the client's state (the connection open, no restart
 * under way), which the client learns from the connection itself (a server that exits ends its output at once). With
 * {@code codex.health.probe=true} it also sends {@code thread/loaded/list} (limit one), which the server answers
 * from memory, and is DOWN when no answer comes within the timeout; that request is traffic like any other
 * ({@code codex.client.requests} counts it). Any answer counts, an error reply included.
 *
 * <p>Details: {@code codexVersion} (the server's, from its user agent), {@code userAgent}, {@code platform},
 * and {@code sdkCodexVersion} (the codex version this SDK was generated from), so a version mismatch shows up next
 * to the status; when the server was lost, {@code reason}, {@code error}, {@code exitCode} and {@code stderr}.
 */
public final class CodexHealthCheck {

    /**
     * What one check found.
     *
     * @param up      whether the server is there
     * @param details what Actuator shows next to the status, in order
     */
    public record Result(boolean up, Map<String, Object> details) {
        /**
         * Keeps an unmodifiable copy of the details.
         *
         * @param up      whether the server is there
         * @param details what Actuator shows next to the status
         */
        public Result {
            details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
        }
    }

    private final Supplier<CodexClient> client;
    private final Optional<CodexConnectionMonitor> monitor;
    private final Duration timeout;
    private final boolean probe;

    /**
     * A check of {@code client}'s server that sends the liveness request every time and knows only the client's own
     * state: for a client of the application's own, which no {@link CodexConnectionMonitor} follows.
     *
     * @param client  the client to check
     * @param timeout how long a check waits for the server's answer; positive
     */
    public CodexHealthCheck(CodexClient client, Duration timeout) {
        this(client, Optional.empty(), timeout, true);
    }

    /**
     * A check of {@code client}'s server.
     *
     * @param client  the client to check
     * @param monitor what the client's events said about its connection (a restart under way, the last loss)
     * @param timeout how long a probe waits for the server's answer; positive
     * @param probe   whether every check also sends the liveness request
     */
    public CodexHealthCheck(CodexClient client, Optional<CodexConnectionMonitor> monitor, Duration timeout,
                            boolean probe) {
        this(supplierOf(Objects.requireNonNull(client, "client")), monitor, timeout, probe);
    }

    /**
     * A check of a client made when first asked for ({@code codex.lazy=true}): the first check connects it, so a codex
     * that cannot start makes the health DOWN with its error rather than the application's start fail.
     */
    CodexHealthCheck(Supplier<CodexClient> client, Optional<CodexConnectionMonitor> monitor, Duration timeout,
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

    /**
     * Checks the server now.
     *
     * @return the status and its details
     */
    public Result check() {
        Map<String, Object> details = new LinkedHashMap<>();
        CodexClient client;
        try {
            client = this.client.get();
        } catch (RuntimeException e) {
            // A lazy client that could not be made: codex missing, or its handshake failed.
            error(details, e);
            details.put("sdkCodexVersion", CodexVersion.pinned().text());
            return new Result(false, details);
        }
        serverInfo(client, details);
        CodexConnectionMonitor.State state = monitor.map(CodexConnectionMonitor::state)
                .orElse(new CodexConnectionMonitor.State(Optional.empty(), false));
        if (state.restarting()) {
            cause(details, state.cause());
            details.put("restarting", true);
            details.put("reason", "the app-server was lost; restarting it (codex.restart)");
            return new Result(false, details);
        }
        // A cause without a restart under way is a loss for good: DOWN even before the client has marked itself
        // closed, which it does just after its listeners heard that the restart gave up.
        if (client.isClosed() || state.cause().isPresent()) {
            cause(details, state.cause());
            details.put("reason", state.cause().isPresent() ? "the app-server was lost" : "the client is closed");
            return new Result(false, details);
        }
        return new Result(!probe || probe(client, details), details);
    }

    /** As Actuator's {@code Health.Builder.withException} writes it, so both lines show the same. */
    private static void error(Map<String, Object> details, Throwable e) {
        details.put("error", e.getClass().getName() + ": " + e.getMessage());
    }

    private static void cause(Map<String, Object> details, Optional<CodexException> cause) {
        cause.ifPresent(c -> {
            error(details, c);
            if (c instanceof CodexTransportException transport) {
                transport.exitCode().ifPresent(code -> details.put("exitCode", code));
                if (!transport.stderrTail().isBlank()) {
                    details.put("stderr", transport.stderrTail());
                }
            }
        });
    }

    /** Sends the liveness request; true when any answer came in time. */
    private boolean probe(CodexClient client, Map<String, Object> details) {
        CompletableFuture<?> answer = client.rpc().withTimeout(timeout)
                .call(ClientRequestMethods.THREAD_LOADED_LIST, ThreadLoadedListParams.builder().limit(1L).build());
        try {
            // The call times out on its own after `timeout`; the wait's bound only backs that up.
            answer.get(timeout.toMillis() * 2 + 100, TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof CodexRpcException) {
                // An error reply is an answer: the server is there and reading.
                return true;
            }
            error(details, cause);
            return false;
        } catch (TimeoutException e) {
            answer.cancel(true);
            details.put("reason", "no answer within " + timeout);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer.cancel(true);
            details.put("reason", "interrupted while waiting for the server");
            return false;
        }
    }

    private static void serverInfo(CodexClient client, Map<String, Object> details) {
        ServerInfo info = client.serverInfo();
        info.codexVersion().ifPresent(v -> details.put("codexVersion", v.text()));
        info.userAgent().ifPresent(a -> details.put("userAgent", a));
        info.platformOs().ifPresent(os -> details.put("platform", info.platformFamily()
                .map(family -> family + "/" + os).orElse(os)));
        details.put("sdkCodexVersion", CodexVersion.pinned().text());
    }
}

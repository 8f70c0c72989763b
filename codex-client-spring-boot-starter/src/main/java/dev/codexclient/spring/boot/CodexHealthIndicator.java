package dev.codexclient.spring.boot;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexVersion;
import dev.codexclient.ServerInfo;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.protocol.ClientRequestMethods;
import dev.codexclient.protocol.ThreadLoadedListParams;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The health of a {@link CodexClient}'s app-server: UP while the client is open and the server answers a cheap
 * request in time, DOWN when the client is closed (or its connection ended), or the server does not answer.
 *
 * <p>The liveness request is {@code thread/loaded/list} with a limit of one: the server answers it from memory,
 * without touching its session store or the model. Any answer counts, an error reply included (a server that
 * replies "method not found" is alive, just of another version). The request is bounded by the indicator's timeout,
 * so the health endpoint never waits on a server that stopped answering.
 *
 * <p>Details: {@code codexVersion} (the server's, from its user agent), {@code userAgent}, {@code platform},
 * and {@code sdkCodexVersion} (the codex version this SDK was generated from), so a version mismatch shows up next
 * to the status.
 */
public final class CodexHealthIndicator implements HealthIndicator {

    private final CodexClient client;
    private final Duration timeout;

    /**
     * An indicator of {@code client}'s server.
     *
     * @param client  the client to check
     * @param timeout how long a check waits for the server's answer; positive
     */
    public CodexHealthIndicator(CodexClient client, Duration timeout) {
        this.client = Objects.requireNonNull(client, "client");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeout = timeout;
    }

    @Override
    public Health health() {
        Health.Builder health = details(new Health.Builder());
        if (client.isClosed()) {
            return health.down().withDetail("reason", "the client is closed").build();
        }
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

    private Health.Builder details(Health.Builder health) {
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

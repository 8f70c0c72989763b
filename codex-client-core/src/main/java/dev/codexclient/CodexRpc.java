package dev.codexclient;

import dev.codexclient.errors.CodexException;
import dev.codexclient.protocol.ClientRequestApi;
import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.ParamsPresence;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A typed call for every client request of the protocol, each returning a {@link CompletableFuture} of its typed
 * result: {@code codex.rpc().modelList(params)}, {@code codex.rpc().configRead(params)}, …
 *
 * <p>Every method of {@link ClientRequestApi} is generated from the schema. Calls time out after the client's
 * request timeout unless a view with another one is used: {@code codex.rpc().withTimeout(Duration.ofMinutes(5))}.
 * Experimental methods fail fast unless the client was built with {@code experimentalApi(true)}.
 */
public final class CodexRpc implements ClientRequestApi {
    private final ConnectionSupervisor connection;
    private final boolean experimentalApi;
    private final Duration timeout;

    CodexRpc(ConnectionSupervisor connection, boolean experimentalApi, Duration timeout) {
        this.connection = connection;
        this.experimentalApi = experimentalApi;
        this.timeout = timeout;
    }

    /**
     * A view of the same connection whose calls time out after {@code timeout}.
     *
     * @param timeout the time each call of the view waits for its response, positive
     * @return the view; this one is unchanged
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    public CodexRpc withTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        return new CodexRpc(connection, experimentalApi, timeout);
    }

    /** {@return the time each call of this view waits for its response} */
    public Duration timeout() {
        return timeout;
    }

    @Override
    public <P, R> CompletableFuture<R> call(MethodDescriptor<P, R> method, P params) {
        Objects.requireNonNull(method, "method");
        if (method.experimental() && !experimentalApi) {
            return CompletableFuture.failedFuture(new CodexException(method.method()
                    + " is experimental: build the client with CodexClient.builder().experimentalApi(true) to use it"));
        }
        if (params == null && method.paramsPresence() == ParamsPresence.REQUIRED) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(method.method()
                    + " requires params of type " + method.paramsType().getSimpleName()));
        }
        return connection.call(method.method(), params, method.resultType(), timeout);
    }
}

package dev.codexclient.internal.session;

import dev.codexclient.errors.CodexException;
import dev.codexclient.protocol.ClientRequestApi;
import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.ParamsPresence;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Typed calls of every client request, sent on the supervised connection with one timeout. The public
 * {@code CodexRpc} is a view of this; the runtime's own calls (login, interrupts, the watchdog's reads) go through
 * it too, so every request is checked the same way.
 */
public final class Calls implements ClientRequestApi {
    private final ConnectionSupervisor connection;
    private final boolean experimentalApi;
    private final Duration timeout;

    Calls(ConnectionSupervisor connection, boolean experimentalApi, Duration timeout) {
        this.connection = connection;
        this.experimentalApi = experimentalApi;
        this.timeout = timeout;
    }

    /**
     * {@return calls of the same connection that time out after {@code timeout}}
     *
     * @param timeout the time each call waits for its response, positive
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    public Calls withTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        return new Calls(connection, experimentalApi, timeout);
    }

    /** {@return the time each call waits for its response} */
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

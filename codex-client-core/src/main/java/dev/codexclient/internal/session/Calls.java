package dev.codexclient.internal.session;

import dev.codexclient.ServerInfo;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexMethodNotSupportedException;
import dev.codexclient.internal.rpc.ResponseLane;
import dev.codexclient.protocol.ClientRequestApi;
import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.ParamsPresence;
import dev.codexclient.protocol.RequestId;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Typed calls of every client request, sent on the supervised connection with one timeout. The public
 * {@code CodexRpc} is a view of this; the runtime's own calls (login, interrupts, the watchdog's reads) go through
 * it too, so every request is checked the same way.
 */
public final class Calls implements ClientRequestApi {
    private final ConnectionSupervisor connection;
    private final boolean experimentalApi;
    /** The setting that turns the experimental API on, as the application's users write it. */
    private final String experimentalApiSetting;
    private final Duration timeout;
    /** What the server said about itself: a request its version certainly lacks is refused unsent. */
    private final Supplier<ServerInfo> server;

    Calls(ConnectionSupervisor connection, boolean experimentalApi, String experimentalApiSetting, Duration timeout,
          Supplier<ServerInfo> server) {
        this.connection = connection;
        this.experimentalApi = experimentalApi;
        this.experimentalApiSetting = experimentalApiSetting;
        this.timeout = timeout;
        this.server = server;
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
        return new Calls(connection, experimentalApi, experimentalApiSetting, timeout, server);
    }

    /** {@return the time each call waits for its response} */
    public Duration timeout() {
        return timeout;
    }

    @Override
    public <P, R> CompletableFuture<R> call(MethodDescriptor<P, R> method, P params) {
        return send(method, params, null, null);
    }

    /**
     * {@link #call(MethodDescriptor, Object)} that tells {@code onAttempt} the id of each attempt before it is sent:
     * a streamed request's notifications carry it.
     *
     * @param onAttempt takes each attempt's id; null when nobody asks
     */
    public <P, R> CompletableFuture<R> call(MethodDescriptor<P, R> method, P params, Consumer<RequestId> onAttempt) {
        return send(method, params, onAttempt, null);
    }

    /**
     * {@link #call(MethodDescriptor, Object)} whose result is handed over on a delivery lane, in wire order with the
     * notifications, {@code lane.first()} running there before the future completes (see {@link ResponseLane}).
     *
     * @param lane where the result is handed over
     */
    <P, R> CompletableFuture<R> callOnLane(MethodDescriptor<P, R> method, P params, ResponseLane<? super R> lane) {
        return send(method, params, null, Objects.requireNonNull(lane, "lane"));
    }

    private <P, R> CompletableFuture<R> send(MethodDescriptor<P, R> method, P params, Consumer<RequestId> onAttempt,
                                             ResponseLane<? super R> lane) {
        Objects.requireNonNull(method, "method");
        if (method.experimental() && !experimentalApi) {
            return CompletableFuture.failedFuture(new CodexException(method.method()
                    + " is experimental: set " + experimentalApiSetting + " to use it"));
        }
        if (params == null && method.paramsPresence() == ParamsPresence.REQUIRED) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(method.method()
                    + " requires params of type " + method.paramsType().getSimpleName()));
        }
        Optional<CodexMethodNotSupportedException> refused = UnknownMethodErrors.refusal(method, server.get());
        if (refused.isPresent()) {
            return CompletableFuture.failedFuture(refused.get());
        }
        return connection.call(method.method(), params, method.resultType(), timeout, onAttempt, lane);
    }
}

package dev.codexclient;

import dev.codexclient.internal.session.Calls;
import dev.codexclient.protocol.ClientRequestApi;
import dev.codexclient.protocol.MethodDescriptor;
import java.time.Duration;
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
    private final Calls calls;

    CodexRpc(Calls calls) {
        this.calls = calls;
    }

    /**
     * A view of the same connection whose calls time out after {@code timeout}.
     *
     * @param timeout the time each call of the view waits for its response, positive
     * @return the view; this one is unchanged
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    public CodexRpc withTimeout(Duration timeout) {
        return new CodexRpc(calls.withTimeout(timeout));
    }

    /** {@return the time each call of this view waits for its response} */
    public Duration timeout() {
        return calls.timeout();
    }

    @Override
    public <P, R> CompletableFuture<R> call(MethodDescriptor<P, R> method, P params) {
        return calls.call(method, params);
    }
}

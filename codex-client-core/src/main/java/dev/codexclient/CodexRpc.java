package dev.codexclient;

import dev.codexclient.internal.session.Calls;
import dev.codexclient.protocol.ClientRequestApi;
import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadResumeResponse;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.ThreadStartResponse;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.protocol.TurnStartResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;


/**
 * A typed call for every client request of the protocol, each returning a {@link CompletableFuture} of its typed
 * result: {@code codex.rpc().modelList(params)}, {@code codex.rpc().configRead(params)}, …
 *
 * <p>Every method of {@link ClientRequestApi} is generated from the schema. Calls time out after the client's
 * request timeout unless a view with another one is used: {@code codex.rpc().withTimeout(Duration.ofMinutes(5))}.
 * Experimental methods fail fast unless the client was built with {@code experimentalApi(true)}.
 *
 * <p>Each call sends its request as given and does nothing else: the three that the handles also make
 * ({@link #threadStart}, {@link #threadResume}, {@link #turnStart}) say what the handles do besides.
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

    /**
     * Sends {@code thread/start} as given, and nothing more: unlike {@link CodexClient#startThread}, it declares
     * none of the client's dynamic tools ({@link CodexClientBuilder#tool}) on the thread, so codex does not offer
     * them to its model there, and the response is the protocol's, no {@link CodexThread}. A handle of the thread:
     * {@link CodexClient#resumeThread(String)}.
     *
     * @param params the params
     * @return the future {@link ThreadStartResponse}
     */
    @Override
    public CompletableFuture<ThreadStartResponse> threadStart(ThreadStartParams params) {
        return ClientRequestApi.super.threadStart(params);
    }

    /**
     * Sends {@code thread/resume} as given, and nothing more: unlike {@link CodexClient#resumeThread}, it sends
     * {@code excludeTurns} as given (also to a server that refuses it), answers the thread's own tools' calls with
     * nothing (give them to {@link CodexClient#resumeThread(ThreadResumeParams, java.util.List)}), and leaves the
     * thread unmarked as loaded, so that after a restart the client resumes it again before a turn of its own.
     *
     * @param params the params
     * @return the future {@link ThreadResumeResponse}
     */
    @Override
    public CompletableFuture<ThreadResumeResponse> threadResume(ThreadResumeParams params) {
        return ClientRequestApi.super.threadResume(params);
    }

    /**
     * Sends {@code turn/start} as given, and nothing more: unlike {@link CodexThread#startTurn}, the turn is no
     * {@link CodexTurn}. The client does not hold the thread for it, routes none of its events to a turn, keeps no
     * replay, folds no {@link TurnResult}, arms no watchdog, and after a restart does not resume the thread first.
     * Its events reach the client's notification listeners ({@link CodexClient#onNotification}), and the thread's
     * listeners while something else holds the thread.
     *
     * @param params the params
     * @return the future {@link TurnStartResponse}
     */
    @Override
    public CompletableFuture<TurnStartResponse> turnStart(TurnStartParams params) {
        return ClientRequestApi.super.turnStart(params);
    }
}

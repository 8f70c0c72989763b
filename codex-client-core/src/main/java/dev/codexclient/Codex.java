package dev.codexclient;

import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ExtensionTelemetry;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Where codex threads run: one app-server ({@link CodexClient}) or a pool of them ({@code CodexPool}). Start or resume
 * a thread and get its {@link CodexThread}; from there on, turns, listeners and reads are the same on both. Code that
 * only runs threads (a framework bridge, an agent runner, a conversation store, an application service) takes a
 * {@code Codex}, so that it runs on a single client in a test and on a pool in production without a change.
 *
 * <pre>{@code
 * Codex codex = CodexClient.builder().build();          // or: CodexPool.builder()...build()
 * CodexThread thread = codex.startThread(ThreadStartParams.builder().cwd("/work/repo").build());
 * TurnResult r = thread.startTurn("Summarise README.md").await(Duration.ofMinutes(2));
 * }</pre>
 *
 * <p>{@link #mask(CharSequence)} and {@link #publishTelemetry(ExtensionTelemetry)} are for code built on the SDK: the
 * masking of the secrets the SDK knows, and a place in the SDK's telemetry.
 *
 * <p>What is particular to one server (typed calls of every method, its process, its stderr, listing threads) stays on
 * {@link CodexClient}; what is particular to a pool (its members, draining) on the pool. Closing is the owner's: the
 * interface has no {@code close()}, so code handed a {@code Codex} cannot end what it does not own.
 *
 * <p>Threading: as {@link CodexClient} says. Every blocking method waits at most the request timeout of the server
 * that answers (a pool's start also waits for its member to be chosen); each has an {@code …Async} twin that never
 * blocks. The SDK implements this interface; new methods may be added to it, with default implementations where
 * they can be written over the others.
 */
public interface Codex {
    /**
     * Starts a thread with the server's defaults.
     *
     * @return the handle of the new thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request
     */
    default CodexThread startThread() {
        return startThread(ThreadStartParams.builder().build());
    }

    /**
     * Starts a thread. The tools of the client that serves it ({@link CodexClientBuilder#tool(DynamicTool)}) are
     * declared on it, after any the params already declare.
     *
     * @param params the {@code thread/start} params (model, working directory, sandbox, ...)
     * @return the handle of the new thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request
     */
    default CodexThread startThread(ThreadStartParams params) {
        return startThread(params, List.of());
    }

    /**
     * Starts a thread with tools of its own: declared to codex on this thread only, beside the client's own tools,
     * and answered for this thread only (see {@link CodexClient#startThread(ThreadStartParams, List)}). Dynamic tools
     * need {@link CodexClientBuilder#experimentalApi(boolean) experimentalApi(true)}.
     *
     * @param params the {@code thread/start} params
     * @param tools  the thread's own tools; empty for none
     * @return the handle of the new thread
     * @throws IllegalArgumentException when two tools share a name or one has the name of a tool of the client
     * @throws IllegalStateException   when tools are given and the client was built without the experimental API
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request
     */
    @CodexExperimental("dynamicTools")
    CodexThread startThread(ThreadStartParams params, List<DynamicTool> tools);

    /**
     * {@link #startThread()} without blocking.
     *
     * @return a future of the new thread's handle; it fails with the exceptions {@link #startThread()} throws
     */
    default CompletableFuture<CodexThread> startThreadAsync() {
        return startThreadAsync(ThreadStartParams.builder().build());
    }

    /**
     * {@link #startThread(ThreadStartParams)} without blocking.
     *
     * @param params the {@code thread/start} params
     * @return a future of the new thread's handle; it fails with the exceptions
     *         {@link #startThread(ThreadStartParams)} throws
     */
    default CompletableFuture<CodexThread> startThreadAsync(ThreadStartParams params) {
        return startThreadAsync(params, List.of());
    }

    /**
     * {@link #startThread(ThreadStartParams, List)} without blocking.
     *
     * @param params the {@code thread/start} params
     * @param tools  the thread's own tools; empty for none
     * @return a future of the new thread's handle; it fails with the exceptions
     *         {@link #startThread(ThreadStartParams, List)} throws
     */
    @CodexExperimental("dynamicTools")
    CompletableFuture<CodexThread> startThreadAsync(ThreadStartParams params, List<DynamicTool> tools);

    /**
     * Resumes a stored thread by id, with the settings it was stored with: {@code thread/resume} with the id alone,
     * answered with the thread and its turns, which {@link CodexThread#info()} then holds. To go on with a long
     * thread without fetching its history, {@link #resumeThreadWithoutTurns(String)}.
     *
     * @param threadId the id of the stored thread
     * @return the handle of the resumed thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request, e.g. for an unknown id
     */
    CodexThread resumeThread(String threadId);

    /**
     * Resumes a stored thread with overrides (see {@link CodexClient#resumeThread(ThreadResumeParams)}).
     *
     * @param params the {@code thread/resume} params: the thread id and the settings to change
     * @return the handle of the resumed thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request, e.g. for an unknown id
     */
    default CodexThread resumeThread(ThreadResumeParams params) {
        return resumeThread(params, List.of());
    }

    /**
     * Resumes a stored thread that has tools of its own (see {@link #startThread(ThreadStartParams, List)}): codex
     * kept their declarations with the thread, and the client answers their calls with {@code tools} from now on.
     *
     * @param params the {@code thread/resume} params: the thread id and the settings to change
     * @param tools  the thread's own tools; empty for none
     * @return the handle of the resumed thread
     * @throws IllegalArgumentException when two tools share a name or one has the name of a tool of the client
     * @throws IllegalStateException   when tools are given and the client was built without the experimental API
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request, e.g. for an unknown id
     */
    @CodexExperimental("dynamicTools")
    CodexThread resumeThread(ThreadResumeParams params, List<DynamicTool> tools);

    /**
     * Resumes a stored thread by id to go on with it, without its turns where the server can leave them out
     * ({@code excludeTurns}: codex 0.125.0 and later; 0.129.0 to 0.150.x only with
     * {@link CodexClientBuilder#experimentalApi(boolean) experimentalApi(true)}), so that resuming costs the same
     * after ten turns or ten thousand. The handle's {@link CodexThread#info()} then holds no turns: an empty
     * {@code turns()} there means "not fetched", not "none"; {@link CodexThread#read()} gives the history. A server
     * that cannot leave them out answers with the turns, as {@link #resumeThread(String)} does.
     *
     * @param threadId the id of the stored thread
     * @return the handle of the resumed thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request, e.g. for an unknown id
     */
    default CodexThread resumeThreadWithoutTurns(String threadId) {
        return resumeThread(withoutTurns(threadId));
    }

    /**
     * {@link #resumeThreadWithoutTurns(String)} without blocking.
     *
     * @param threadId the id of the stored thread
     * @return a future of the resumed thread's handle; it fails with the exceptions
     *         {@link #resumeThreadWithoutTurns(String)} throws
     */
    default CompletableFuture<CodexThread> resumeThreadWithoutTurnsAsync(String threadId) {
        return resumeThreadAsync(withoutTurns(threadId));
    }

    /** The params of a resume that asks for the thread without its turns; the server may answer with them. */
    private static ThreadResumeParams withoutTurns(String threadId) {
        Objects.requireNonNull(threadId, "threadId");
        return ThreadResumeParams.builder().threadId(threadId).excludeTurns(true).build();
    }

    /**
     * {@link #resumeThread(String)} without blocking.
     *
     * @param threadId the id of the stored thread
     * @return a future of the resumed thread's handle; it fails with the exceptions {@link #resumeThread(String)}
     *         throws
     */
    CompletableFuture<CodexThread> resumeThreadAsync(String threadId);

    /**
     * {@link #resumeThread(ThreadResumeParams)} without blocking.
     *
     * @param params the {@code thread/resume} params
     * @return a future of the resumed thread's handle; it fails with the exceptions
     *         {@link #resumeThread(ThreadResumeParams)} throws
     */
    default CompletableFuture<CodexThread> resumeThreadAsync(ThreadResumeParams params) {
        return resumeThreadAsync(params, List.of());
    }

    /**
     * {@link #resumeThread(ThreadResumeParams, List)} without blocking.
     *
     * @param params the {@code thread/resume} params
     * @param tools  the thread's own tools; empty for none
     * @return a future of the resumed thread's handle; it fails with the exceptions
     *         {@link #resumeThread(ThreadResumeParams, List)} throws
     */
    @CodexExperimental("dynamicTools")
    CompletableFuture<CodexThread> resumeThreadAsync(ThreadResumeParams params, List<DynamicTool> tools);

    /**
     * Every notification of every connection, in wire order per codex thread, on the lane of its thread, from now on
     * (see {@link CodexClient#onNotification(Consumer)}). A pool delivers those of all its members, the members it
     * takes in later included.
     *
     * @param listener called with each notification, on a callback thread; it may call back into the client
     * @return the subscription, whose {@code close()} removes the listener
     */
    Subscription onNotification(Consumer<? super ServerNotification> listener);

    /**
     * {@return {@code text} with every secret masked that the clients behind this {@code Codex} mask} See
     * {@link CodexClient#mask(CharSequence)}: an integration passes what it builds from the server's words (a failed
     * turn's message, a command line) through this before it logs or shows it. {@code null} gives the empty string.
     *
     * @param text the text to mask
     */
    String mask(CharSequence text);

    /**
     * Publishes telemetry of the caller's own (an integration's: an agent run started, a tool invoked) to the
     * telemetry listener of this {@code Codex} ({@link CodexClientBuilder#telemetryListener}, or the pool's), after
     * the records queued before it and on the same thread rules (see {@link CodexTelemetryListener}), so that one
     * listener sees the SDK's records and the integration's in the order they happened. Does nothing when there is
     * no listener, and does not even look at the record then. Never blocks; works once closed too.
     *
     * <pre>{@code
     * codex.publishTelemetry(new MyRunStarted(runId));   // MyRunStarted implements ExtensionTelemetry
     * }</pre>
     *
     * @param telemetry the record
     */
    void publishTelemetry(ExtensionTelemetry telemetry);

}

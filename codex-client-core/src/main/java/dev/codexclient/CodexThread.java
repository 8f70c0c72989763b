package dev.codexclient;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.errors.CodexProtocolException;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.session.ClientRuntime;
import dev.codexclient.internal.session.FlowPublishers;
import dev.codexclient.internal.session.Listeners;
import dev.codexclient.internal.session.ThreadLink;
import dev.codexclient.internal.session.ThreadState;
import dev.codexclient.internal.session.Waits;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadArchiveParams;
import dev.codexclient.protocol.ThreadCompactStartParams;
import dev.codexclient.protocol.ThreadForkParams;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadReadParams;
import dev.codexclient.protocol.ThreadReadResponse;
import dev.codexclient.protocol.ThreadRevertParams;
import dev.codexclient.protocol.ThreadRevertResponse;
import dev.codexclient.protocol.ThreadSetNameParams;
import dev.codexclient.protocol.ThreadUnarchiveParams;
import dev.codexclient.protocol.ThreadUnsubscribeParams;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.protocol.TurnStartResponse;
import dev.codexclient.protocol.UserInput;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Consumer;

/**
 * A codex thread (a conversation): start turns on it, read it, name, archive, revert or compact it, and listen to
 * its events.
 *
 * <pre>{@code
 * CodexThread thread = codex.startThread();
 * TurnResult r = thread.startTurn("Summarise README.md").await(Duration.ofMinutes(2));
 * }</pre>
 *
 * <p>Every method that waits for the server has an {@code …Async} twin that returns a {@link CompletableFuture}
 * and never blocks; the blocking form waits at most the client's request timeout. Inside listeners and handlers,
 * both work (see the "Threading" section of the README); the async twins keep the thread that delivers events
 * free.
 *
 * <p>A handle is a thread id plus the client: it never goes stale. The client keeps routing state for the thread
 * only while something needs it (a turn starting or running, a listener added with {@link #onEvent}); it lets go
 * of that state when the thread is idle, unsubscribed, archived or closed by the server
 * ({@code thread/closed}). A handle used after that works as before: calls go to the server, and starting a turn
 * or adding a listener takes hold of the thread again. (A thread the server closed has to be
 * {@link CodexClient#resumeThread(String) resumed} before the server accepts turns on it.)
 */
public final class CodexThread {
    private final ClientRuntime runtime;
    /** What every handle of this thread shares while the client holds it: its description, where it is loaded. */
    private final ThreadLink link;
    private final String id;

    CodexThread(ClientRuntime runtime, ThreadLink link) {
        this.runtime = runtime;
        this.link = link;
        this.id = link.id();
    }

    /** {@return the thread id} It never changes. */
    public String id() {
        return id;
    }

    /**
     * {@return the thread as the server last described it to this handle} That is the answer to start, resume or fork,
     * or of the latest {@link #read()} or {@link #revertTo(String)}; it is not refreshed by events.
     */
    public ThreadInfo info() {
        return link.info();
    }

    // ------------------------------------------------------------------------------------------------ turns

    /**
     * Starts a turn with one text input, and returns once the server has accepted it.
     *
     * @param text the user's message
     * @return the running turn; its events may already be arriving
     */
    public CodexTurn startTurn(String text) {
        return startTurn(List.of(Inputs.text(text)));
    }

    /**
     * Starts a turn with the given inputs (text, images, skills, mentions; see {@link Inputs}), and returns once the
     * server has accepted it.
     *
     * @param input the inputs, in order
     * @return the running turn; its events may already be arriving
     */
    public CodexTurn startTurn(List<UserInput> input) {
        return startTurn(params(input));
    }

    /**
     * Starts a turn with full control over its overrides (model, effort, sandbox, approval policy, output schema,
     * …). {@code params.threadId()} must be this thread's id; {@link #turnParams()} gives a builder with it set.
     * Returns once the server has accepted the turn; its events may already be arriving.
     *
     * @param params the {@code turn/start} params
     * @return the running turn
     */
    public CodexTurn startTurn(TurnStartParams params) {
        StartingTurn s = begin(params);
        TurnStartResponse response;
        try {
            response = runtime.waits().call(s.response(), "turn/start on thread " + id);
        } catch (RuntimeException e) {
            s.failed(e);
            throw e;
        }
        // Claimed here rather than in a dependent of the response: the blocking form needs no callback thread.
        return s.claim(response);
    }

    /**
     * {@link #startTurn(String)} without blocking: completes with the turn once the server has accepted it.
     *
     * @param text the user's message
     * @return a future of the running turn; it fails when the server rejects the turn or the connection ends
     */
    public CompletableFuture<CodexTurn> startTurnAsync(String text) {
        return startTurnAsync(List.of(Inputs.text(text)));
    }

    /**
     * {@link #startTurn(List)} without blocking.
     *
     * @param input the inputs, in order
     * @return a future of the running turn; it fails when the server rejects the turn or the connection ends
     */
    public CompletableFuture<CodexTurn> startTurnAsync(List<UserInput> input) {
        return startTurnAsync(params(input));
    }

    /**
     * {@link #startTurn(TurnStartParams)} without blocking.
     *
     * @param params the {@code turn/start} params
     * @return a future of the running turn; it fails when the server rejects the turn or the connection ends
     */
    public CompletableFuture<CodexTurn> startTurnAsync(TurnStartParams params) {
        StartingTurn s;
        try {
            s = begin(params);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return s.response().handle((r, e) -> {
            if (e != null) {
                Throwable cause = RpcConnection.unwrap(e);
                s.failed(cause);
                throw Waits.asCompletionException(cause);
            }
            return s.claim(r);
        });
    }

    private TurnStartParams params(List<UserInput> input) {
        return TurnStartParams.builder().threadId(id).input(List.copyOf(input)).build();
    }

    /** A turn whose start request is on its way. */
    private final class StartingTurn {
        final ThreadState state;
        final CodexTurn turn;
        final CompletableFuture<TurnStartResponse> response;

        StartingTurn(ThreadState state, CodexTurn turn, CompletableFuture<TurnStartResponse> response) {
            this.state = state;
            this.turn = turn;
            this.response = response;
        }

        CompletableFuture<TurnStartResponse> response() {
            return response;
        }

        CodexTurn claim(TurnStartResponse r) {
            String turnId = r.turn() == null ? null : r.turn().id();
            if (turnId == null) {
                CodexProtocolException e = new CodexProtocolException("the turn/start response of thread " + id
                        + " names no turn");
                failed(e);
                throw e;
            }
            if (!state.claim(turn.routed(), turnId)) {
                // The thread was let go of while the request was out (closed by the server): the turn already
                // failed with the reason; it still gets its id.
                turn.routed().bind(turnId, List.of());
            }
            runtime.settings().turnWatchdog().ifPresent(turn::watchdog);
            return turn;
        }

        void failed(Throwable cause) {
            state.startFailed(turn.routed());
            turn.routed().fail(cause);
        }
    }

    private StartingTurn begin(TurnStartParams params) {
        Objects.requireNonNull(params, "params");
        if (!id.equals(params.threadId())) {
            throw new IllegalArgumentException("TurnStartParams.threadId is " + params.threadId()
                    + ", not this thread's id " + id);
        }
        ThreadState state = runtime.held().hold(link);
        CodexTurn turn = new CodexTurn(this, runtime, state);
        // Registered before the request leaves, so events racing the response are held for this turn.
        if (!state.starting(turn.routed())) {
            runtime.held().unhold(state);
            state = runtime.held().hold(link);
            state.starting(turn.routed());
        }
        return new StartingTurn(state, turn, runtime.turnStart(link, params));
    }

    /** {@return a new builder for {@link #startTurn(TurnStartParams)}, with this thread's id already set} */
    public TurnStartParams.Builder turnParams() {
        return TurnStartParams.builder().threadId(id);
    }

    /**
     * Starts a turn whose final message must be JSON matching the schema derived from {@code outputType} (a record,
     * typically), and parses it into that type.
     *
     * @param <T>        the type of the output
     * @param text       the user's message
     * @param outputType the class of the output; its schema is sent as the turn's {@code outputSchema}
     * @return the running turn, whose result parses the final message into {@code outputType}
     */
    public <T> StructuredTurn<T> startTurn(String text, Class<T> outputType) {
        return startTurn(turnParams().input(List.of(Inputs.text(text))), outputType);
    }

    /**
     * Like {@link #startTurn(String, Class)}, with the other turn parameters from {@code params}.
     *
     * @param <T>        the type of the output
     * @param params     the turn parameters, from {@link #turnParams()}; its output schema is replaced
     * @param outputType the class of the output; its schema is sent as the turn's {@code outputSchema}
     * @return the running turn, whose result parses the final message into {@code outputType}
     */
    public <T> StructuredTurn<T> startTurn(TurnStartParams.Builder params, Class<T> outputType) {
        return structured(startTurn(withSchema(params, outputType)), outputType);
    }

    /**
     * {@link #startTurn(TurnStartParams.Builder, Class)} without blocking.
     *
     * @param <T>        the type of the output
     * @param params     the turn parameters, from {@link #turnParams()}; its output schema is replaced
     * @param outputType the class of the output; its schema is sent as the turn's {@code outputSchema}
     * @return a future of the running turn; it fails when the server rejects the turn or the connection ends
     */
    public <T> CompletableFuture<StructuredTurn<T>> startTurnAsync(TurnStartParams.Builder params,
                                                                   Class<T> outputType) {
        return startTurnAsync(withSchema(params, outputType)).thenApply(t -> structured(t, outputType));
    }

    private static TurnStartParams withSchema(TurnStartParams.Builder params, Class<?> outputType) {
        Objects.requireNonNull(outputType, "outputType");
        ObjectNode schema = dev.codexclient.internal.schema.RecordSchemas.schemaOf(outputType);
        return params.outputSchema(schema).build();
    }

    private <T> StructuredTurn<T> structured(CodexTurn turn, Class<T> outputType) {
        return new StructuredTurn<>(turn, outputType, runtime.userMapper());
    }

    // ------------------------------------------------------------------------------------------------ thread ops
    // Each blocking form waits for the call itself and finishes on the calling thread; each async twin finishes in
    // a dependent of the call. So a blocking call needs nothing but the answer: no callback thread.

    /**
     * Reads the thread from the server, with its turns, and refreshes {@link #info()}.
     *
     * @return the thread as the server stores it now
     */
    public ThreadInfo read() {
        return remember(runtime.waits().call(readCall(), "thread/read").thread());
    }

    /**
     * {@link #read()} without blocking.
     *
     * @return a future of the thread as the server stores it now
     */
    public CompletableFuture<ThreadInfo> readAsync() {
        return readCall().thenApply(r -> remember(r.thread()));
    }

    private CompletableFuture<ThreadReadResponse> readCall() {
        return runtime.calls().threadRead(ThreadReadParams.builder().threadId(id).includeTurns(true).build());
    }

    private ThreadInfo remember(ThreadInfo t) {
        return link.remember(t);
    }

    /**
     * Sets the thread's name.
     *
     * @param name the new name
     */
    public void setName(String name) {
        runtime.waits().call(setNameCall(name), "thread/name/set");
    }

    /**
     * {@link #setName(String)} without blocking.
     *
     * @param name the new name
     * @return a future that completes when the server has set the name
     */
    public CompletableFuture<Void> setNameAsync(String name) {
        return setNameCall(name).thenApply(r -> null);
    }

    private CompletableFuture<?> setNameCall(String name) {
        return runtime.calls().threadNameSet(ThreadSetNameParams.builder().threadId(id).name(name).build());
    }

    /**
     * Archives the thread. Codex unloads an archived thread: the client lets go of it, failing turns still running
     * on it and closing its listeners.
     */
    public void archive() {
        runtime.waits().call(archiveCall(), "thread/archive");
        runtime.held().release(id, "was archived");
    }

    /**
     * {@link #archive()} without blocking.
     *
     * @return a future that completes when the server has archived the thread
     */
    public CompletableFuture<Void> archiveAsync() {
        return archiveCall().thenApply(r -> {
            runtime.held().release(id, "was archived");
            return null;
        });
    }

    private CompletableFuture<?> archiveCall() {
        return runtime.calls().threadArchive(ThreadArchiveParams.builder().threadId(id).build());
    }

    /** Brings an archived thread back. */
    public void unarchive() {
        runtime.waits().call(unarchiveCall(), "thread/unarchive");
    }

    /**
     * {@link #unarchive()} without blocking.
     *
     * @return a future that completes when the server has unarchived the thread
     */
    public CompletableFuture<Void> unarchiveAsync() {
        return unarchiveCall().thenApply(r -> null);
    }

    private CompletableFuture<?> unarchiveCall() {
        return runtime.calls().threadUnarchive(ThreadUnarchiveParams.builder().threadId(id).build());
    }

    /**
     * Rolls the thread's stored history back to just before {@code turnId}: that turn and every later one are
     * dropped ({@code thread/revert}, the successor of the older {@code thread/rollback}). Local file changes the
     * dropped turns made are not undone. Refreshes {@link #info()}; its {@code turns} are empty, as codex reports.
     *
     * @param turnId the first turn to drop
     * @return the thread after the revert
     */
    public ThreadInfo revertTo(String turnId) {
        return remember(runtime.waits().call(revertCall(turnId), "thread/revert").thread());
    }

    /**
     * {@link #revertTo(String)} without blocking.
     *
     * @param turnId the first turn to drop
     * @return a future of the thread after the revert
     */
    public CompletableFuture<ThreadInfo> revertToAsync(String turnId) {
        return revertCall(turnId).thenApply(r -> remember(r.thread()));
    }

    private CompletableFuture<ThreadRevertResponse> revertCall(String turnId) {
        Objects.requireNonNull(turnId, "turnId");
        return runtime.calls().threadRevert(ThreadRevertParams.builder().threadId(id).beforeTurnId(turnId).build());
    }

    /** Starts compacting the thread's history; progress arrives as events on this thread. */
    public void compact() {
        runtime.waits().call(compactCall(), "thread/compact/start");
    }

    /**
     * {@link #compact()} without blocking.
     *
     * @return a future that completes when the server has started compacting
     */
    public CompletableFuture<Void> compactAsync() {
        return compactCall().thenApply(r -> null);
    }

    private CompletableFuture<?> compactCall() {
        return runtime.calls().threadCompactStart(ThreadCompactStartParams.builder().threadId(id).build());
    }

    /**
     * Forks the thread into a new one with the same history.
     *
     * @return the handle of the new thread
     */
    public CodexThread fork() {
        ThreadForkParams params = ThreadForkParams.builder().threadId(id).build();
        return handle(runtime.waits().call(runtime.calls().threadFork(params), "thread/fork").thread());
    }

    /**
     * {@link #fork()} without blocking.
     *
     * @return a future of the new thread's handle
     */
    public CompletableFuture<CodexThread> forkAsync() {
        return runtime.calls().threadFork(ThreadForkParams.builder().threadId(id).build())
                .thenApply(r -> handle(r.thread()));
    }

    /**
     * Stops this connection's subscription to the thread's events. The client lets go of the thread: turns still
     * running on it fail, its listeners are closed.
     */
    public void unsubscribe() {
        runtime.waits().call(unsubscribeCall(), "thread/unsubscribe");
        runtime.held().release(id, "was unsubscribed");
    }

    /**
     * {@link #unsubscribe()} without blocking.
     *
     * @return a future that completes when the server has ended the subscription and the client has let go of the
     *         thread
     */
    public CompletableFuture<Void> unsubscribeAsync() {
        return unsubscribeCall().thenApply(r -> {
            runtime.held().release(id, "was unsubscribed");
            return null;
        });
    }

    private CompletableFuture<?> unsubscribeCall() {
        return runtime.calls().threadUnsubscribe(ThreadUnsubscribeParams.builder().threadId(id).build());
    }

    /**
     * Every event of this thread, in wire order (turn events included), from now on. The client holds the thread
     * while the subscription is open; {@link Subscription#close()} stops the deliveries.
     *
     * @param listener called with each event of the thread, on the thread's delivery lane; it may call back into the
     *                 client
     * @return the subscription, whose {@code close()} removes the listener
     */
    public Subscription onEvent(Consumer<? super ServerNotification> listener) {
        Objects.requireNonNull(listener, "listener");
        ThreadState state = runtime.held().hold(link);
        Listeners.Entry<ServerNotification> entry = state.listeners().entry(listener,
                () -> runtime.held().unhold(state));
        state.listeners().add(entry);
        return entry;
    }

    /**
     * The events of this thread (turn events included) as a hot {@link Flow.Publisher}: each subscriber gets the
     * events that arrive from its {@code subscribe} call on, in wire order. The client holds the thread while a
     * subscription is open. The stream ends with {@code onComplete} when the thread's events stop (the server
     * closed the thread, it was archived or {@link #unsubscribe() unsubscribed}, or the client was closed) and with
     * {@code onError(}{@link dev.codexclient.errors.CodexTransportException}{@code )} when the connection fails.
     * Backpressure, threading and cancellation as for {@link CodexTurn#publisher()}: a subscriber that lets more
     * than {@link CodexClientBuilder#publisherBufferSize(int)} events wait ends with
     * {@link dev.codexclient.errors.CodexBackpressureException}.
     *
     * @return a hot publisher of this thread's events
     */
    public Flow.Publisher<ServerNotification> publisher() {
        return FlowPublishers.thread(runtime, link);
    }

    void onLane(Runnable task) {
        runtime.onLane(id, task);
    }

    private CodexThread handle(ThreadInfo described) {
        return of(runtime, runtime.held().linkFor(described));
    }

    /** The handle over {@code link}: the one made first, so a held thread has one handle object. */
    static CodexThread of(ClientRuntime runtime, ThreadLink link) {
        return link.handle(new CodexThread(runtime, link));
    }

    @Override
    public String toString() {
        return "CodexThread[" + id + "]";
    }
}

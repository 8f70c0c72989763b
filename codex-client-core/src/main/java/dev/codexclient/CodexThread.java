package dev.codexclient;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.errors.CodexProtocolException;
import dev.codexclient.internal.session.ThreadLink;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.TurnStartParams;
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
    /** The thread's engine, which every handle of this thread shares while the client holds it. */
    private final ThreadLink link;
    private final String id;

    private CodexThread(ThreadLink link) {
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
        return new CodexTurn(this, link.startTurn(params));
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
        return link.startTurnAsync(params).thenApply(state -> new CodexTurn(this, state));
    }

    private TurnStartParams params(List<UserInput> input) {
        return TurnStartParams.builder().threadId(id).input(List.copyOf(input)).build();
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
        return new StructuredTurn<>(turn, outputType, link.userMapper());
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
        return link.read();
    }

    /**
     * {@link #read()} without blocking.
     *
     * @return a future of the thread as the server stores it now
     */
    public CompletableFuture<ThreadInfo> readAsync() {
        return link.readAsync();
    }

    /**
     * Sets the thread's name.
     *
     * @param name the new name
     */
    public void setName(String name) {
        link.setName(name);
    }

    /**
     * {@link #setName(String)} without blocking.
     *
     * @param name the new name
     * @return a future that completes when the server has set the name
     */
    public CompletableFuture<Void> setNameAsync(String name) {
        return link.setNameAsync(name);
    }

    /**
     * Archives the thread. Codex unloads an archived thread: the client lets go of it, failing turns still running
     * on it and closing its listeners.
     */
    public void archive() {
        link.archive();
    }

    /**
     * {@link #archive()} without blocking.
     *
     * @return a future that completes when the server has archived the thread
     */
    public CompletableFuture<Void> archiveAsync() {
        return link.archiveAsync();
    }

    /** Brings an archived thread back. */
    public void unarchive() {
        link.unarchive();
    }

    /**
     * {@link #unarchive()} without blocking.
     *
     * @return a future that completes when the server has unarchived the thread
     */
    public CompletableFuture<Void> unarchiveAsync() {
        return link.unarchiveAsync();
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
        return link.revertTo(turnId);
    }

    /**
     * {@link #revertTo(String)} without blocking.
     *
     * @param turnId the first turn to drop
     * @return a future of the thread after the revert
     */
    public CompletableFuture<ThreadInfo> revertToAsync(String turnId) {
        return link.revertToAsync(turnId);
    }

    /** Starts compacting the thread's history; progress arrives as events on this thread. */
    public void compact() {
        link.compact();
    }

    /**
     * {@link #compact()} without blocking.
     *
     * @return a future that completes when the server has started compacting
     */
    public CompletableFuture<Void> compactAsync() {
        return link.compactAsync();
    }

    /**
     * Forks the thread into a new one with the same history.
     *
     * @return the handle of the new thread
     */
    public CodexThread fork() {
        return of(link.fork());
    }

    /**
     * {@link #fork()} without blocking.
     *
     * @return a future of the new thread's handle
     */
    public CompletableFuture<CodexThread> forkAsync() {
        return link.forkAsync().thenApply(CodexThread::of);
    }

    /**
     * Stops this connection's subscription to the thread's events. The client lets go of the thread: turns still
     * running on it fail, its listeners are closed.
     */
    public void unsubscribe() {
        link.unsubscribe();
    }

    /**
     * {@link #unsubscribe()} without blocking.
     *
     * @return a future that completes when the server has ended the subscription and the client has let go of the
     *         thread
     */
    public CompletableFuture<Void> unsubscribeAsync() {
        return link.unsubscribeAsync();
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
        return link.subscribe(listener);
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
        return link.publisher();
    }

    void onLane(Runnable task) {
        link.onLane(task);
    }

    /** The handle over {@code link}: the one made first, so a held thread has one handle object. */
    static CodexThread of(ThreadLink link) {
        return link.handle(new CodexThread(link));
    }

    @Override
    public String toString() {
        return "CodexThread[" + id + "]";
    }
}

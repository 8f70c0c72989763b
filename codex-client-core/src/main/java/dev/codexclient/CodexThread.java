package dev.codexclient;

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
 * and never blocks; the blocking form waits at most the client's request timeout (a pool's turn start also waits for
 * a place, at most the pool's queue timeout). Inside listeners and handlers,
 * both work (see the threading guide, docs/threading.md); the async twins keep the thread that delivers events
 * free.
 *
 * <p>A handle is a thread id plus the client: it never goes stale. The client keeps routing state for the thread
 * only while something needs it (a turn starting or running, a listener added with {@link #onEvent}); it lets go
 * of that state when the thread is idle, unsubscribed, archived or closed by the server
 * ({@code thread/closed}). A handle used after that works as before: calls go to the server, and starting a turn
 * or adding a listener takes hold of the thread again. (A thread the server closed has to be
 * {@link CodexClient#resumeThread(String) resumed} before the server accepts turns on it.)
 *
 * <p>The same interface serves every place threads run: the threads of a {@link CodexClient} (one server) and those
 * of a pool of servers ({@code CodexPool}, in the {@code codex-client-pool} artifact), whose turns go through the
 * pool's places. Code written against it runs on either (see {@link Codex}). The SDK implements it; new methods may
 * be added to it, with default implementations where they can be written over the others.
 */
public interface CodexThread {
    /**
     * {@return the thread id} A client's thread keeps its id for good; a pool's thread keeps it too, except when a
     * thread that had no turn yet had to be started again on a restarted server (see {@code PooledThread}).
     */
    String id();

    /**
     * {@return the thread as the server last described it to this handle} That is the answer to start, resume or fork,
     * or of the latest {@link #read()} or {@link #revertTo(String)}; it is not refreshed by events.
     */
    ThreadInfo info();

    /**
     * Starts a turn with one text input, and returns once the server has accepted it.
     *
     * @param text the user's message
     * @return the running turn; its events may already be arriving
     */
    default CodexTurn startTurn(String text) {
        return startTurn(List.of(Inputs.text(text)));
    }

    /**
     * Starts a turn with the given inputs (text, images, skills, mentions; see {@link Inputs}), and returns once the
     * server has accepted it.
     *
     * @param input the inputs, in order
     * @return the running turn; its events may already be arriving
     */
    default CodexTurn startTurn(List<UserInput> input) {
        Objects.requireNonNull(input, "input");
        return startTurn(turnParams().input(List.copyOf(input)).build());
    }

    /**
     * Starts a turn with full control over its overrides (model, effort, sandbox, approval policy, output schema,
     * …). {@code params.threadId()} must be this thread's id; {@link #turnParams()} gives a builder with it set.
     * Returns once the server has accepted the turn; its events may already be arriving.
     *
     * @param params the {@code turn/start} params
     * @return the running turn
     */
    CodexTurn startTurn(TurnStartParams params);

    /**
     * {@link #startTurn(String)} without blocking: completes with the turn once the server has accepted it.
     *
     * @param text the user's message
     * @return a future of the running turn; it fails when the server rejects the turn or the connection ends
     */
    default CompletableFuture<CodexTurn> startTurnAsync(String text) {
        return startTurnAsync(List.of(Inputs.text(text)));
    }

    /**
     * {@link #startTurn(List)} without blocking.
     *
     * @param input the inputs, in order
     * @return a future of the running turn; it fails when the server rejects the turn or the connection ends
     */
    default CompletableFuture<CodexTurn> startTurnAsync(List<UserInput> input) {
        Objects.requireNonNull(input, "input");
        return startTurnAsync(turnParams().input(List.copyOf(input)).build());
    }

    /**
     * {@link #startTurn(TurnStartParams)} without blocking.
     *
     * @param params the {@code turn/start} params
     * @return a future of the running turn; it fails when the server rejects the turn or the connection ends
     */
    CompletableFuture<CodexTurn> startTurnAsync(TurnStartParams params);

    /** {@return a new builder for {@link #startTurn(TurnStartParams)}, with this thread's id already set} */
    default TurnStartParams.Builder turnParams() {
        return TurnStartParams.builder().threadId(id());
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
    default <T> StructuredTurn<T> startTurn(String text, Class<T> outputType) {
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
    <T> StructuredTurn<T> startTurn(TurnStartParams.Builder params, Class<T> outputType);

    /**
     * {@link #startTurn(TurnStartParams.Builder, Class)} without blocking.
     *
     * @param <T>        the type of the output
     * @param params     the turn parameters, from {@link #turnParams()}; its output schema is replaced
     * @param outputType the class of the output; its schema is sent as the turn's {@code outputSchema}
     * @return a future of the running turn; it fails when the server rejects the turn or the connection ends
     */
    <T> CompletableFuture<StructuredTurn<T>> startTurnAsync(TurnStartParams.Builder params, Class<T> outputType);

    /**
     * Reads the thread from the server, with its turns, and refreshes {@link #info()}.
     *
     * @return the thread as the server stores it now
     */
    ThreadInfo read();

    /**
     * {@link #read()} without blocking.
     *
     * @return a future of the thread as the server stores it now
     */
    CompletableFuture<ThreadInfo> readAsync();

    /**
     * Sets the thread's name.
     *
     * @param name the new name
     */
    void setName(String name);

    /**
     * {@link #setName(String)} without blocking.
     *
     * @param name the new name
     * @return a future that completes when the server has set the name
     */
    CompletableFuture<Void> setNameAsync(String name);

    /**
     * Archives the thread. Codex unloads an archived thread: the client lets go of it, failing turns still running
     * on it and closing its listeners.
     */
    void archive();

    /**
     * {@link #archive()} without blocking.
     *
     * @return a future that completes when the server has archived the thread
     */
    CompletableFuture<Void> archiveAsync();

    /** Brings an archived thread back. */
    void unarchive();

    /**
     * {@link #unarchive()} without blocking.
     *
     * @return a future that completes when the server has unarchived the thread
     */
    CompletableFuture<Void> unarchiveAsync();

    /**
     * Rolls the thread's stored history back to just before {@code turnId}: that turn and every later one are
     * dropped ({@code thread/revert}, the successor of the older {@code thread/rollback}). Local file changes the
     * dropped turns made are not undone. Refreshes {@link #info()}; its {@code turns} are empty, as codex reports.
     *
     * @param turnId the first turn to drop
     * @return the thread after the revert
     */
    ThreadInfo revertTo(String turnId);

    /**
     * {@link #revertTo(String)} without blocking.
     *
     * @param turnId the first turn to drop
     * @return a future of the thread after the revert
     */
    CompletableFuture<ThreadInfo> revertToAsync(String turnId);

    /** Starts compacting the thread's history; progress arrives as events on this thread. */
    void compact();

    /**
     * {@link #compact()} without blocking.
     *
     * @return a future that completes when the server has started compacting
     */
    CompletableFuture<Void> compactAsync();

    /**
     * Compacts the thread's history and waits until codex has finished, so that the next turn can start at once:
     * {@link #compact()} returns when codex has started, and codex refuses a turn started while it still compacts.
     * Codex replaces what the model sees of the history with a summary and the thread's recent user messages; the
     * stored turns stay, and a restart or a resume then reads the history back only to that point (see
     * docs/restarts.md). It costs a model request. Call it while no turn runs on the thread.
     *
     * @param timeout how long to wait for the compaction to end
     * @throws dev.codexclient.errors.CodexTimeoutException when it has not ended within {@code timeout}
     * @throws dev.codexclient.errors.CodexDeadlockException when called inside a listener of this thread, whose events
     *         the wait would hold up ({@link #compactAndAwaitAsync()} works there)
     */
    default void compactAndAwait(java.time.Duration timeout) {
        Compaction.await(this, timeout);
    }

    /**
     * {@link #compactAndAwait(java.time.Duration)} without blocking.
     *
     * @return a future that completes when codex has finished compacting; it fails when the compaction failed, or
     *         when the thread's events ended before it did (the connection failed, the thread or the client closed)
     */
    default CompletableFuture<Void> compactAndAwaitAsync() {
        return Compaction.start(this);
    }

    /**
     * Forks the thread into a new one with the same history.
     *
     * @return the handle of the new thread
     */
    CodexThread fork();

    /**
     * {@link #fork()} without blocking.
     *
     * @return a future of the new thread's handle
     */
    CompletableFuture<CodexThread> forkAsync();

    /**
     * Stops this connection's subscription to the thread's events. The client lets go of the thread: turns still
     * running on it fail, its listeners are closed.
     */
    void unsubscribe();

    /**
     * {@link #unsubscribe()} without blocking.
     *
     * @return a future that completes when the server has ended the subscription and the client has let go of the
     *         thread
     */
    CompletableFuture<Void> unsubscribeAsync();

    /**
     * Every event of this thread, in wire order (turn events included), from now on. The client holds the thread
     * while the subscription is open; {@link Subscription#close()} stops the deliveries.
     *
     * @param listener called with each event of the thread, on the thread's delivery lane; it may call back into the
     *                 client
     * @return the subscription, whose {@code close()} removes the listener
     */
    Subscription onEvent(Consumer<? super ServerNotification> listener);

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
    Flow.Publisher<ServerNotification> publisher();
}

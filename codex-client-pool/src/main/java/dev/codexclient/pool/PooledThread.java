package dev.codexclient.pool;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.StructuredTurn;
import dev.codexclient.Subscription;
import dev.codexclient.errors.CodexException;
import dev.codexclient.pool.internal.Joins;
import dev.codexclient.pool.internal.PlacedThread;
import dev.codexclient.pool.internal.PoolRuntime;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.TurnStartParams;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A thread of a {@link CodexPool}, placed on one member: a {@link CodexThread}, so that code written against the
 * interface runs on a pool as on a client. Its turns go through the member's cap and queue: {@link #startTurn(String)}
 * returns the turn once a place is free and the server accepted it (the twin {@link #startTurnAsync(String)} returns a
 * future of it and never blocks), and fails with {@link dev.codexclient.errors.CodexPoolRejectedException} when the
 * member's queue is full. Its other operations go to its handle on the member's client of the moment.
 *
 * <p><b>Across a replacement.</b> When the member's client gave up restarting its server and was replaced, the thread
 * is resumed on the new client when next used (a turn, a read, any call), with the {@code ThreadOptions} it was
 * started or resumed with. Its listeners ({@link #onEvent}) and the subscribers of its {@link #publisher()} stay: they
 * get the thread's events from the new client on, without a call of theirs. What they miss is what happens nowhere:
 * between the loss of the old client and the thread's next use, the thread is loaded on no server and has no events.
 * The handle of the moment is {@link #memberThread()}; a listener added to that handle is the member client's own, and
 * ends with that client.
 *
 * <p>A thread stays on its member, except in a pool whose members share their storage
 * ({@link CodexPool.Builder#sharedStorage(boolean)}): there a thread whose member is lost for good (ejected, dropped
 * by its resolver, closed) moves to a healthy member when next used and is resumed there with its conversation; its
 * listeners and subscribers follow it.
 *
 * <p>A thread that has had no turn yet has nothing stored on its server (codex writes a thread's session file with
 * its first turn), so a restarted server cannot resume it. A thread started by {@link CodexPool#startThread} is then
 * started again on its member with the same {@code thread/start} params and options, and its {@link #id()} changes to
 * the new thread's (reported as {@link dev.codexclient.telemetry.PooledThreadRecreated}). A thread that had turns, or
 * one taken in by {@link CodexPool#resumeThread(String)}, is not re-created: its turn fails at once with the server's
 * reason.
 *
 * <p>Threading: every {@code …Async} method never blocks; each blocking one joins its twin, bounded by the pool's
 * queue timeout (a turn) and the member's request timeout, and is refused where it could never end (see
 * {@link #startTurn(TurnStartParams)}).
 */
public final class PooledThread implements CodexThread {
    private final PoolRuntime pool;
    private final PlacedThread placed;

    PooledThread(PoolRuntime pool, PlacedThread placed) {
        this.pool = pool;
        this.placed = placed;
    }

    /**
     * {@return the thread's id} It stays the same across replacements of the member's client and restarts of its
     * server, except when a thread with no turn yet had to be started again there (see the class description).
     */
    @Override
    public String id() {
        return placed.id();
    }

    /**
     * {@return the thread as the server last described it to one of its handles} That is the answer to its start,
     * resume or fork, or of its latest {@link #read()}; it never waits for a resume.
     */
    @Override
    public ThreadInfo info() {
        return placed.info();
    }

    /**
     * {@return the name of the member the thread is placed on} It changes only when the thread moved off a member
     * lost for good, in a pool whose members share their storage.
     */
    public String memberName() {
        return placed.memberName();
    }

    /**
     * {@return the thread's handle on its member's client of the moment} After the member's client was replaced, this
     * resumes the thread on the new client first (blocking for the {@code thread/resume}, at most the client's
     * request timeout), so the handle is valid right after a replacement. A listener added to it is the member
     * client's own and is not carried over to a later client: add listeners to this pooled thread instead.
     *
     * @throws CodexException when the thread cannot be resumed on the new client, with the server's reason
     */
    public CodexThread memberThread() {
        pool.checkMayBlock("memberThread");
        return Joins.join(pool.handle(placed), "thread " + id() + " to be resumed on its member's new client");
    }

    /**
     * {@return the client of the thread's member at this moment} The pool owns it: use it for calls of its own, not
     * to close it. After the member's client was replaced, this is the new one.
     */
    public CodexClient client() {
        return placed.client();
    }

    // ------------------------------------------------------------------------------------------------ turns
    // Each blocking form waits for a place in the member's queue (at most the pool's queue timeout) and for the
    // server's answer to turn/start (at most the member's request timeout); each async twin never blocks.

    /**
     * Starts a turn once the member had a place for it and the server accepted it, like
     * {@link CodexThread#startTurn(TurnStartParams)}; {@code params.threadId()} must be this thread's id
     * ({@link #turnParams()} gives a builder with it set). A turn that has to wait for a place waits in the member's
     * queue, at most the pool's {@link CodexPool.Builder#queueTimeout(java.time.Duration) queue timeout};
     * {@link #startTurnAsync(TurnStartParams)} never blocks.
     *
     * @param params the {@code turn/start} params: this thread's id, the input and any overrides
     * @return the running turn; it holds its place until it ends
     * @throws dev.codexclient.errors.CodexPoolRejectedException when the member's queue is full or the pool is
     *         draining or closed (also when it closes while the turn waits)
     * @throws dev.codexclient.errors.CodexTimeoutException when no place freed up within the queue timeout, or the
     *         server did not answer {@code turn/start} within the member's request timeout
     * @throws dev.codexclient.errors.CodexDeadlockException when called while delivering an event of this thread
     *         whose running turn holds a place on a member with no free place, or on the pool's own thread: that wait
     *         could never end
     */
    @Override
    public CodexTurn startTurn(TurnStartParams params) {
        Objects.requireNonNull(params, "params");
        return started(params, CodexThread::startTurnAsync, Function.identity());
    }

    /**
     * Starts a turn whose final message must be JSON matching the schema derived from {@code outputType}, like
     * {@link CodexThread#startTurn(TurnStartParams.Builder, Class)}, once the member has a place for it (as
     * {@link #startTurn(TurnStartParams)} waits for one).
     *
     * @param <T>        the type of the output
     * @param params     the turn parameters, from {@link #turnParams()}; its output schema is replaced
     * @param outputType the class of the output; its schema is sent as the turn's {@code outputSchema}
     * @return the running turn, whose result parses the final message into {@code outputType}
     * @throws dev.codexclient.errors.CodexPoolRejectedException as {@link #startTurn(TurnStartParams)}
     */
    @Override
    public <T> StructuredTurn<T> startTurn(TurnStartParams.Builder params, Class<T> outputType) {
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(outputType, "outputType");
        return started(params.build(), structured(outputType), StructuredTurn::turn);
    }

    /**
     * Starts a turn once the member has a place for it; {@code params.threadId()} must be this thread's id. It does
     * not wait for anything: a turn that has to wait is queued, and the future completes when it starts.
     *
     * @param params the {@code turn/start} params: this thread's id, the input and any overrides
     * @return a future of the turn: it completes once a place is free and the server accepted the turn, and fails
     *         with {@link dev.codexclient.errors.CodexPoolRejectedException} when the member's queue is full or the
     *         pool is draining or closed (also when it closes while the turn waits), with
     *         {@link dev.codexclient.errors.CodexTimeoutException} when no place freed up within the queue timeout,
     *         or as {@link CodexThread#startTurnAsync(TurnStartParams)} fails; the turn holds its place until it
     *         ends. Cancelling the future takes a waiting turn out of the queue.
     */
    @Override
    public CompletableFuture<CodexTurn> startTurnAsync(TurnStartParams params) {
        Objects.requireNonNull(params, "params");
        return pool.startTurn(placed, params, CodexThread::startTurnAsync, Function.identity());
    }

    /**
     * {@link #startTurn(TurnStartParams.Builder, Class)} without blocking, as {@link #startTurnAsync(TurnStartParams)}.
     *
     * @param <T>        the type of the output
     * @param params     the turn parameters, from {@link #turnParams()}; its output schema is replaced
     * @param outputType the class of the output; its schema is sent as the turn's {@code outputSchema}
     * @return a future of the running turn, as {@link #startTurnAsync(TurnStartParams)} returns it
     */
    @Override
    public <T> CompletableFuture<StructuredTurn<T>> startTurnAsync(TurnStartParams.Builder params,
                                                                   Class<T> outputType) {
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(outputType, "outputType");
        return pool.startTurn(placed, params.build(), structured(outputType), StructuredTurn::turn);
    }

    /**
     * {@return a new builder for {@link #startTurn(TurnStartParams)}, with this thread's id of the moment set}
     * Turn params naming an id the thread had before it was started again go to its current id.
     */
    @Override
    public TurnStartParams.Builder turnParams() {
        return TurnStartParams.builder().threadId(id());
    }

    /** A blocking start: refused where its wait could never end, else the async twin joined. */
    private <T> T started(TurnStartParams params,
                          BiFunction<CodexThread, TurnStartParams, CompletableFuture<T>> start,
                          Function<T, CodexTurn> turnOf) {
        pool.checkMayWaitForPlace(placed);
        return Joins.join(pool.startTurn(placed, params, start, turnOf), "a turn of thread " + id() + " to start");
    }

    /** Starts a structured turn on the handle of the moment: its schema from {@code outputType}, its parse too. */
    private static <T> BiFunction<CodexThread, TurnStartParams, CompletableFuture<StructuredTurn<T>>> structured(
            Class<T> outputType) {
        return (thread, params) -> thread.startTurnAsync(params.toBuilder(), outputType);
    }

    // ------------------------------------------------------------------------------------------------ the thread
    // On the member's handle of the moment, resumed first after a replacement: each blocking form waits for that
    // resume and then calls the handle's own blocking method, with its bounds and checks; each async twin never
    // blocks.

    /**
     * Reads the thread from its member's server, with its turns, and refreshes {@link #info()}.
     *
     * @return the thread as the server stores it now
     */
    @Override
    public ThreadInfo read() {
        return memberThread().read();
    }

    /**
     * {@link #read()} without blocking.
     *
     * @return a future of the thread as the server stores it now
     */
    @Override
    public CompletableFuture<ThreadInfo> readAsync() {
        return onHandle(CodexThread::readAsync);
    }

    /**
     * Sets the thread's name.
     *
     * @param name the new name
     */
    @Override
    public void setName(String name) {
        memberThread().setName(name);
    }

    /**
     * {@link #setName(String)} without blocking.
     *
     * @param name the new name
     * @return a future that completes when the server has set the name
     */
    @Override
    public CompletableFuture<Void> setNameAsync(String name) {
        return onHandle(t -> t.setNameAsync(name));
    }

    /**
     * Archives the thread. Codex unloads an archived thread: its member's client lets go of it, failing turns still
     * running on it, and the pool lets go of its listeners; its subscribers complete.
     */
    @Override
    public void archive() {
        memberThread().archive();
        placed.ended();
    }

    /**
     * {@link #archive()} without blocking.
     *
     * @return a future that completes when the server has archived the thread
     */
    @Override
    public CompletableFuture<Void> archiveAsync() {
        return onHandle(CodexThread::archiveAsync).thenRun(placed::ended);
    }

    /** Brings an archived thread back. */
    @Override
    public void unarchive() {
        memberThread().unarchive();
    }

    /**
     * {@link #unarchive()} without blocking.
     *
     * @return a future that completes when the server has unarchived the thread
     */
    @Override
    public CompletableFuture<Void> unarchiveAsync() {
        return onHandle(CodexThread::unarchiveAsync);
    }

    /**
     * Rolls the thread's stored history back to just before {@code turnId}, as {@link CodexThread#revertTo(String)}.
     *
     * @param turnId the first turn to drop
     * @return the thread after the revert
     */
    @Override
    public ThreadInfo revertTo(String turnId) {
        return memberThread().revertTo(turnId);
    }

    /**
     * {@link #revertTo(String)} without blocking.
     *
     * @param turnId the first turn to drop
     * @return a future of the thread after the revert
     */
    @Override
    public CompletableFuture<ThreadInfo> revertToAsync(String turnId) {
        return onHandle(t -> t.revertToAsync(turnId));
    }

    /** Starts compacting the thread's history; progress arrives as events on this thread. */
    @Override
    public void compact() {
        memberThread().compact();
    }

    /**
     * {@link #compact()} without blocking.
     *
     * @return a future that completes when the server has started compacting
     */
    @Override
    public CompletableFuture<Void> compactAsync() {
        return onHandle(CodexThread::compactAsync);
    }

    /**
     * Forks the thread into a new one with the same history, on the same member: a pooled thread too, whose turns
     * go through the member's places. It has none of this thread's options, as a fork on a client has not.
     *
     * @return the new thread
     */
    @Override
    public PooledThread fork() {
        pool.checkMayBlock("fork");
        return Joins.join(forked(), "thread " + id() + " to be forked");
    }

    /**
     * {@link #fork()} without blocking.
     *
     * @return a future of the new thread, a {@link PooledThread}
     */
    @Override
    public CompletableFuture<CodexThread> forkAsync() {
        return forked().thenApply(t -> t);
    }

    private CompletableFuture<PooledThread> forked() {
        return pool.fork(placed).thenApply(f -> new PooledThread(pool, f));
    }

    /**
     * Stops the subscription of the member's connection to the thread's events: its member's client lets go of the
     * thread, failing turns still running on it, and the pool lets go of its listeners; its subscribers complete.
     */
    @Override
    public void unsubscribe() {
        memberThread().unsubscribe();
        placed.ended();
    }

    /**
     * {@link #unsubscribe()} without blocking.
     *
     * @return a future that completes when the server has ended the subscription and the pool has let go of the
     *         thread's listeners
     */
    @Override
    public CompletableFuture<Void> unsubscribeAsync() {
        return onHandle(CodexThread::unsubscribeAsync).thenRun(placed::ended);
    }

    /**
     * Every event of this thread, in wire order (turn events included), from now on, wherever it runs: on its
     * member's client of the moment, and after a replacement or a move on the next one (see the class description).
     * The member's client holds the thread while a listener is registered; the listener is let go of when the thread
     * ends for its client (the server closed it, it was unsubscribed or archived).
     *
     * @param listener called with each event of the thread, on the thread's delivery lane of its member's client; it
     *                 may call back into the pool
     * @return the subscription, whose {@code close()} removes the listener
     */
    @Override
    public Subscription onEvent(Consumer<? super ServerNotification> listener) {
        return placed.onEvent(listener);
    }

    /**
     * The events of this thread as a hot {@link Flow.Publisher}, as {@link CodexThread#publisher()} describes it, that
     * outlives the member's handle: each subscription is relayed from the publisher of the handle of the moment, with
     * its demand, its buffer bound and its threading, and goes on with the next handle's after a replacement of the
     * member's client or a move. It ends with {@code onComplete} when the thread's events stop for good (the server
     * closed the thread, it was archived or unsubscribed, or the pool closed) and with {@code onError} as the
     * handle's publisher ends otherwise (a subscriber too slow for its buffer, a connection that failed and was not
     * replaced).
     *
     * @return a hot publisher of this thread's events
     */
    @Override
    public Flow.Publisher<ServerNotification> publisher() {
        return subscriber -> {
            Objects.requireNonNull(subscriber, "subscriber");
            pool.subscribed(placed);
            placed.subscribe(subscriber);
        };
    }

    private <T> CompletableFuture<T> onHandle(Function<CodexThread, CompletableFuture<T>> call) {
        return pool.handle(placed).thenCompose(call);
    }

    /** {@return whether the member's client of the moment holds this handle} For tests. */
    boolean current() {
        return placed.current();
    }
}

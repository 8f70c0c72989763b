package dev.codexclient.pool;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.Inputs;
import dev.codexclient.errors.CodexException;
import dev.codexclient.internal.pool.PlacedThread;
import dev.codexclient.internal.pool.PoolRuntime;
import dev.codexclient.StructuredTurn;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.protocol.UserInput;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A thread of a {@link CodexPool}, placed on one member. Its turns go through the member's cap and queue:
 * {@link #startTurn(String)} returns the turn once a place is free and the server accepted it (the twin
 * {@link #startTurnAsync(String)} returns a future of it), and fails with
 * {@link dev.codexclient.errors.CodexPoolRejectedException} when the member's queue is full.
 * After the member's client was replaced, the thread is resumed on the new one when next used (by
 * {@link #thread()} or a turn).
 *
 * <p>A thread stays on its member, except in a pool whose members share their storage
 * ({@link CodexPool.Builder#sharedStorage(boolean)}): there a thread whose member is lost for good (ejected, dropped
 * by its resolver, closed) moves to a healthy member when next used and is resumed there with its conversation.
 *
 * <p>A thread that has had no turn yet has nothing stored on its server (codex writes a thread's session file with
 * its first turn), so a restarted server cannot resume it. A thread started by {@link CodexPool#startThread} is then
 * started again on its member with the same {@code thread/start} params, and its {@link #id()} changes to the new
 * thread's (reported as {@link dev.codexclient.telemetry.PooledThreadRecreated}). A thread that had turns, or one
 * taken in by {@link CodexPool#resumeThread(String)}, is not re-created: its turn fails at once with the server's
 * reason.
 */
public final class PooledThread {
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
    public String id() {
        return placed.id();
    }

    /**
     * {@return the name of the member the thread is placed on} It changes only when the thread moved off a member
     * lost for good, in a pool whose members share their storage.
     */
    public String memberName() {
        return placed.memberName();
    }

    /**
     * {@return the thread's handle on its member's client, for reads, listeners, and the rest of its API} After the
     * member's client was replaced, this resumes the thread on the new client first (blocking for the
     * {@code thread/resume}, at most the client's request timeout), so the handle is valid right after a
     * replacement; a listener added to the old handle is not carried over.
     *
     * @throws CodexException when the thread cannot be resumed on the new client, with the server's reason
     */
    public CodexThread thread() {
        return pool.thread(placed);
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
     * Starts a turn with one text input and returns it once the member had a place for it and the server accepted
     * it, like {@link CodexThread#startTurn(String)}. A turn that has to wait for a place waits in the member's
     * queue, at most the pool's {@link CodexPool.Builder#queueTimeout(java.time.Duration) queue timeout};
     * {@link #startTurnAsync(String)} never blocks.
     *
     * @param text the user's message
     * @return the running turn; it holds its place until it ends
     * @throws dev.codexclient.errors.CodexPoolRejectedException when the member's queue is full or the pool is
     *         draining or closed (also when it closes while the turn waits)
     * @throws dev.codexclient.errors.CodexTimeoutException when no place freed up within the queue timeout, or the
     *         server did not answer {@code turn/start} within the member's request timeout
     * @throws dev.codexclient.errors.CodexDeadlockException when called while delivering an event of this thread
     *         whose running turn holds a place on a member with no free place: that wait could never end
     */
    public CodexTurn startTurn(String text) {
        return startTurn(List.of(Inputs.text(text)));
    }

    /**
     * Starts a turn with the given inputs (text, images, skills, mentions; see {@link Inputs}), like
     * {@link #startTurn(String)}.
     *
     * @param input the inputs, in order
     * @return the running turn; it holds its place until it ends
     * @throws dev.codexclient.errors.CodexPoolRejectedException as {@link #startTurn(String)}
     */
    public CodexTurn startTurn(List<UserInput> input) {
        return startTurn(params(input));
    }

    /**
     * Starts a turn with full control over its overrides, like {@link #startTurn(String)}; {@code params.threadId()}
     * must be this thread's id ({@link #turnParams()} gives a builder with it set).
     *
     * @param params the {@code turn/start} params: this thread's id, the input and any overrides
     * @return the running turn; it holds its place until it ends
     * @throws dev.codexclient.errors.CodexPoolRejectedException as {@link #startTurn(String)}
     */
    public CodexTurn startTurn(TurnStartParams params) {
        Objects.requireNonNull(params, "params");
        return pool.startTurnAndWait(placed, params, CodexThread::startTurnAsync, Function.identity());
    }

    /**
     * Starts a turn whose final message must be JSON matching the schema derived from {@code outputType}, like
     * {@link CodexThread#startTurn(String, Class)}, once the member has a place for it (as
     * {@link #startTurn(String)} waits for one).
     *
     * @param <T>        the type of the output
     * @param text       the user's message
     * @param outputType the class of the output; its schema is sent as the turn's {@code outputSchema}
     * @return the running turn, whose result parses the final message into {@code outputType}
     * @throws dev.codexclient.errors.CodexPoolRejectedException as {@link #startTurn(String)}
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
     * @throws dev.codexclient.errors.CodexPoolRejectedException as {@link #startTurn(String)}
     */
    public <T> StructuredTurn<T> startTurn(TurnStartParams.Builder params, Class<T> outputType) {
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(outputType, "outputType");
        return pool.startTurnAndWait(placed, params.build(), structured(outputType), StructuredTurn::turn);
    }

    /**
     * Starts a turn with one text input, once the member has a place for it. It does not wait for the place: a
     * turn that has to wait is queued, and the future completes when it starts.
     *
     * @param text the user's message
     * @return a future of the turn: it completes once a place is free and the server accepted the turn, and fails
     *         with {@link dev.codexclient.errors.CodexPoolRejectedException} when the member's queue is full or the
     *         pool is draining or closed (also when it closes while the turn waits), with
     *         {@link dev.codexclient.errors.CodexTimeoutException} when no place freed up within the queue timeout,
     *         or as {@link CodexThread#startTurnAsync(TurnStartParams)} fails; the turn holds its place until it
     *         ends. Cancelling the future takes a waiting turn out of the queue.
     */
    public CompletableFuture<CodexTurn> startTurnAsync(String text) {
        return startTurnAsync(List.of(Inputs.text(text)));
    }

    /**
     * {@link #startTurn(List)} without blocking, as {@link #startTurnAsync(String)}.
     *
     * @param input the inputs, in order
     * @return a future of the turn, as {@link #startTurnAsync(String)} returns it
     */
    public CompletableFuture<CodexTurn> startTurnAsync(List<UserInput> input) {
        return startTurnAsync(params(input));
    }

    /**
     * Starts a turn, once the member has a place for it; {@code params.threadId()} must be this thread's id. It does
     * not wait for the place: a turn that has to wait is queued, and the future completes when it starts.
     *
     * @param params the {@code turn/start} params: this thread's id, the input and any overrides
     * @return a future of the turn, as {@link #startTurnAsync(String)} returns it
     */
    public CompletableFuture<CodexTurn> startTurnAsync(TurnStartParams params) {
        Objects.requireNonNull(params, "params");
        return pool.startTurn(placed, params, CodexThread::startTurnAsync, Function.identity());
    }

    /**
     * {@link #startTurn(TurnStartParams.Builder, Class)} without blocking, as {@link #startTurnAsync(String)}.
     *
     * @param <T>        the type of the output
     * @param params     the turn parameters, from {@link #turnParams()}; its output schema is replaced
     * @param outputType the class of the output; its schema is sent as the turn's {@code outputSchema}
     * @return a future of the running turn, as {@link #startTurnAsync(String)} returns it
     */
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
    public TurnStartParams.Builder turnParams() {
        return TurnStartParams.builder().threadId(id());
    }

    /** Starts a structured turn on the handle of the moment: its schema from {@code outputType}, its parse too. */
    private static <T> BiFunction<CodexThread, TurnStartParams, CompletableFuture<StructuredTurn<T>>> structured(
            Class<T> outputType) {
        return (thread, params) -> thread.startTurnAsync(params.toBuilder(), outputType);
    }

    private TurnStartParams params(List<UserInput> input) {
        return TurnStartParams.builder().threadId(id()).input(List.copyOf(input)).build();
    }

    /** {@return whether the member's client of the moment holds this handle} For tests. */
    boolean current() {
        return placed.current();
    }
}

package dev.codexclient.pool;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.Inputs;
import dev.codexclient.errors.CodexException;
import dev.codexclient.internal.pool.PlacedThread;
import dev.codexclient.internal.pool.PoolRuntime;
import dev.codexclient.internal.session.Waits;
import dev.codexclient.protocol.TurnStartParams;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A thread of a {@link CodexPool}, placed on one member. Its turns go through the member's cap and queue:
 * {@link #startTurn(String)} returns the turn once a place is free and the server accepted it (the twin
 * {@link #startTurnAsync(String)} returns a future of it), and fails with
 * {@link dev.codexclient.errors.CodexPoolRejectedException} when the member's queue is full.
 * After the member's client was replaced, the thread is resumed on the new one when next used (by
 * {@link #thread()} or a turn).
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

    /** {@return the name of the member the thread is placed on; a thread stays on its member} */
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
        return placed.thread();
    }

    /**
     * {@return the client of the thread's member at this moment} The pool owns it: use it for calls of its own, not
     * to close it. After the member's client was replaced, this is the new one.
     */
    public CodexClient client() {
        return placed.client();
    }

    /**
     * Starts a turn with one text input and returns it once the member had a place for it and the server accepted
     * it, like {@link CodexThread#startTurn(String)}. A turn that has to wait for a place waits in the member's
     * queue, so this can block for as long as the turns ahead of it run; {@link #startTurnAsync(String)} never
     * blocks.
     *
     * @param text the user's message
     * @return the running turn; it holds its place until it ends
     * @throws dev.codexclient.errors.CodexPoolRejectedException when the member's queue is full or the pool is
     *         draining or closed (also when it closes while the turn waits)
     */
    public CodexTurn startTurn(String text) {
        return startTurn(params(text));
    }

    /**
     * Starts a turn, like {@link #startTurn(String)}; {@code params.threadId()} must be this thread's id.
     *
     * @param params the {@code turn/start} params: this thread's id, the input and any overrides
     * @return the running turn; it holds its place until it ends
     * @throws dev.codexclient.errors.CodexPoolRejectedException when the member's queue is full or the pool is
     *         draining or closed (also when it closes while the turn waits)
     */
    public CodexTurn startTurn(TurnStartParams params) {
        CompletableFuture<CodexTurn> started = startTurnAsync(params);
        try {
            return started.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            started.cancel(true);
            throw new CodexException("interrupted while waiting for a turn of thread " + id() + " to start", e);
        } catch (ExecutionException e) {
            throw Waits.rethrow(e.getCause());
        }
    }

    /**
     * Starts a turn with one text input, once the member has a place for it. It does not wait for the place: a
     * turn that has to wait is queued, and the future completes when it starts.
     *
     * @param text the user's message
     * @return a future of the turn: it completes once a place is free and the server accepted the turn, and fails
     *         with {@link dev.codexclient.errors.CodexPoolRejectedException} when the member's queue is full or the
     *         pool is draining or closed (also when it closes while the turn waits), or as
     *         {@link CodexThread#startTurnAsync(TurnStartParams)} fails; the turn holds its place until it ends
     */
    public CompletableFuture<CodexTurn> startTurnAsync(String text) {
        return startTurnAsync(params(text));
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
        return pool.startTurn(placed, params);
    }

    private TurnStartParams params(String text) {
        return TurnStartParams.builder().threadId(id()).input(List.of(Inputs.text(text))).build();
    }

    /** {@return whether the member's client of the moment holds this handle} For tests. */
    boolean current() {
        return placed.current();
    }
}

package dev.codexclient;

import dev.codexclient.protocol.TurnStartParams;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A thread of a {@link CodexPool}, placed on one member. Its turns go through the member's cap and queue, so
 * {@link #startTurn} returns a future: it completes with the turn once a place is free and the server accepted
 * it, or fails with {@link dev.codexclient.errors.CodexPoolRejectedException} when the member's queue is full.
 * After the member's client was replaced, the thread is resumed on the new one when next used.
 */
public final class PooledThread {
    private final CodexPool pool;
    private final PoolMember member;
    private final String id;
    private volatile CodexThread thread;
    private volatile long placedOn;

    PooledThread(CodexPool pool, PoolMember member, CodexThread thread) {
        this.pool = pool;
        this.member = member;
        this.thread = thread;
        this.id = thread.id();
        this.placedOn = member.generation();
        member.placed(id);
    }

    /** The thread id. */
    public String id() {
        return id;
    }

    /** The name of the member the thread runs on. */
    public String memberName() {
        return member.name();
    }

    /** The thread's handle on its member's current client (for reads, listeners, and the rest of its API). */
    public CodexThread thread() {
        return thread;
    }

    /** Starts a turn with one text input, once the member has a place for it. */
    public CompletableFuture<CodexTurn> startTurn(String text) {
        return startTurn(TurnStartParams.builder().threadId(id).input(List.of(Inputs.text(text))).build());
    }

    /** Starts a turn, once the member has a place for it; {@code params.threadId()} must be this thread's id. */
    public CompletableFuture<CodexTurn> startTurn(TurnStartParams params) {
        Objects.requireNonNull(params, "params");
        return pool.startTurn(this, params);
    }

    PoolMember member() {
        return member;
    }

    /** The handle on the member's current client, resuming the thread there after a replacement. */
    CompletableFuture<CodexThread> handle() {
        long now = member.generation();
        if (placedOn == now) {
            return CompletableFuture.completedFuture(thread);
        }
        return member.client().resumeThreadAsync(id).thenApply(t -> {
            thread = t;
            placedOn = now;
            return t;
        });
    }
}

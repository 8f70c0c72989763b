package dev.codexclient.internal.pool;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexException;
import dev.codexclient.events.PooledThreadRecreated;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.session.Waits;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.BiFunction;

/**
 * The state behind one pooled thread: the member it is placed on, its handle on that member's client of the moment,
 * and what it takes to use it again after the client changed (a {@code thread/resume} on the new client, or, for a
 * thread the server never stored, a new {@code thread/start} with the same params).
 */
public final class PlacedThread {
    private final PoolMember member;
    private final PoolEvents events;
    /** What the user started it with; null for a resumed thread, which is never re-created. */
    private final ThreadStartParams startParams;
    private volatile String id;
    private volatile CodexThread thread;
    private volatile long placedOn;
    private volatile boolean hadTurn;
    /** The ids it had before it was started again: turn params naming one are aimed at the current id. */
    private final Set<String> formerIds = ConcurrentHashMap.newKeySet();
    // Guarded by this: one re-creation however many turns find the thread lost.
    private CompletableFuture<CodexThread> recreating;

    PlacedThread(PoolMember member, PoolEvents events, CodexThread thread, ThreadStartParams startParams) {
        this.member = member;
        this.events = events;
        this.thread = thread;
        this.id = thread.id();
        this.startParams = startParams;
        this.hadTurn = startParams == null;
        this.placedOn = member.generation();
        member.placed(id);
    }

    /** {@return the thread's id of the moment} */
    public String id() {
        return id;
    }

    /** {@return the name of the member it is placed on} */
    public String memberName() {
        return member.name();
    }

    /** {@return the client of its member at this moment} */
    public CodexClient client() {
        return member.client();
    }

    /** {@return whether the member's client of the moment holds the handle} */
    public boolean current() {
        return placedOn == member.generation();
    }

    PoolMember member() {
        return member;
    }

    /**
     * {@return the handle on the member's client of the moment} Blocks for the {@code thread/resume} after a
     * replacement of the client.
     */
    public CodexThread thread() {
        if (current()) {
            return thread;
        }
        try {
            return handle().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CodexException("interrupted while resuming thread " + id + " on its member's new client", e);
        } catch (ExecutionException e) {
            throw Waits.rethrow(e.getCause());
        }
    }

    /**
     * Starts the turn on the thread's current handle with {@code start}; when the server lost a thread that had no
     * turn, starts the thread again with its params and the turn on the new one.
     */
    <T> CompletableFuture<T> launch(TurnStartParams params,
                                    BiFunction<CodexThread, TurnStartParams, CompletableFuture<T>> start) {
        String asked = params.threadId();
        return handle().thenCompose(t -> start.apply(t, retarget(params, asked, t)))
                .exceptionallyCompose(e -> {
                    Throwable cause = RpcConnection.unwrap(e);
                    if (!lost(cause) || hadTurn || startParams == null) {
                        return CompletableFuture.failedFuture(cause);
                    }
                    return recreate().thenCompose(t -> start.apply(t, retarget(params, asked, t)));
                })
                .whenComplete((turn, e) -> {
                    if (e == null) {
                        hadTurn = true;
                    }
                });
    }

    /** The params of a turn of this thread, aimed at the thread's current id when they name a former one. */
    private TurnStartParams retarget(TurnStartParams params, String asked, CodexThread now) {
        return asked.equals(now.id()) || !formerIds.contains(asked) ? params
                : params.toBuilder().threadId(now.id()).build();
    }

    /** codex's answer to resuming a thread it never stored: "no rollout found for thread id …". */
    private static boolean lost(Throwable failure) {
        String message = failure.getMessage();
        return failure instanceof CodexException && message != null
                && message.toLowerCase(Locale.ROOT).contains("no rollout found");
    }

    private synchronized CompletableFuture<CodexThread> recreate() {
        if (recreating != null && !recreating.isCompletedExceptionally()) {
            return recreating;
        }
        String old = id;
        long now = member.generation();
        recreating = member.client().startThreadAsync(startParams).thenApply(t -> {
            formerIds.add(old);
            thread = t;
            id = t.id();
            placedOn = now;
            member.replacedThread(old, t.id());
            events.emit(l -> l.pooledThreadRecreated(new PooledThreadRecreated(member.name(), old, t.id())));
            return t;
        });
        return recreating;
    }

    /** The handle on the member's current client, resuming the thread there after a replacement. */
    private CompletableFuture<CodexThread> handle() {
        long now = member.generation();
        if (placedOn == now) {
            return CompletableFuture.completedFuture(thread);
        }
        if (!hadTurn && startParams != null) {
            return member.client().resumeThreadAsync(id).handle((t, e) -> {
                if (e == null) {
                    thread = t;
                    placedOn = now;
                    return CompletableFuture.completedFuture(t);
                }
                Throwable cause = RpcConnection.unwrap(e);
                return lost(cause) ? recreate() : CompletableFuture.<CodexThread>failedFuture(cause);
            }).thenCompose(f -> f);
        }
        return member.client().resumeThreadAsync(id).thenApply(t -> {
            thread = t;
            placedOn = now;
            return t;
        });
    }
}

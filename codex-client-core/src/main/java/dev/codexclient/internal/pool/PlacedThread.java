package dev.codexclient.internal.pool;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.session.Waits;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.telemetry.PooledThreadRecreated;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiFunction;

/**
 * The state behind one pooled thread: the member it is placed on, its handle on that member's client of the moment,
 * and what it takes to use it again after the client changed (a {@code thread/resume} on the new client, or, for a
 * thread the server never stored, a new {@code thread/start} with the same params).
 */
public final class PlacedThread {
    private volatile PoolMember member;
    private final PoolTelemetry events;
    /** The pool's clock, for the pauses between resumes a lost server's writer still blocks. */
    private final Scheduler scheduler;
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

    PlacedThread(PoolMember member, PoolTelemetry events, Scheduler scheduler, CodexThread thread,
                 ThreadStartParams startParams) {
        this.member = member;
        this.events = events;
        this.scheduler = scheduler;
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
     * Places the thread on {@code to}, if it is still on {@code from}: its next use resumes it there (from the storage
     * the members share), or starts it again when it never had a turn.
     *
     * @return whether it moved
     */
    synchronized boolean moveTo(PoolMember from, PoolMember to) {
        if (member != from) {
            return false;
        }
        from.forget(id);
        to.placed(id);
        member = to;
        placedOn = -1; // no generation of the new member holds a handle yet
        return true;
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
        PoolMember m = member;
        long now = m.generation();
        recreating = m.client().startThreadAsync(startParams).thenApply(t -> {
            formerIds.add(old);
            thread = t;
            id = t.id();
            placedOn = now;
            m.replacedThread(old, t.id());
            events.emit(l -> l.pooledThreadRecreated(new PooledThreadRecreated(m.name(), old, t.id())));
            return t;
        });
        return recreating;
    }

    /** The handle on the member's current client, resuming the thread there after a replacement. */
    private CompletableFuture<CodexThread> handle() {
        PoolMember m = member;
        long now = m.generation();
        if (placedOn == now) {
            return CompletableFuture.completedFuture(thread);
        }
        if (!hadTurn && startParams != null) {
            return resume(m, 1).handle((t, e) -> {
                if (e == null) {
                    thread = t;
                    placedOn = now;
                    return CompletableFuture.completedFuture(t);
                }
                Throwable cause = RpcConnection.unwrap(e);
                return lost(cause) ? recreate() : CompletableFuture.<CodexThread>failedFuture(cause);
            }).thenCompose(f -> f);
        }
        return resume(m, 1).thenApply(t -> {
            thread = t;
            placedOn = now;
            return t;
        });
    }

    /** Resumes a thread the writer of a lost server still holds, at most this many times. */
    private static final int WRITER_ATTEMPTS = 8;
    private static final Duration WRITER_FIRST_PAUSE = Duration.ofMillis(100);
    private static final Duration WRITER_MAX_PAUSE = Duration.ofMillis(1600);

    /**
     * Resumes the thread on {@code m}'s client. codex lets one server at a time write a thread of a storage several
     * share, and lets go when that server's process ends; right after a server was lost its process may not have
     * ended yet (a SIGKILL takes effect, a launcher's child exits after it), so a resume refused with "already has an
     * active writer" is sent again after a short, growing pause, for about six seconds in all.
     */
    private CompletableFuture<CodexThread> resume(PoolMember m, int attempt) {
        return m.client().resumeThreadWithoutTurnsAsync(id).exceptionallyCompose(e -> {
            Throwable cause = RpcConnection.unwrap(e);
            if (attempt >= WRITER_ATTEMPTS || !writerHeld(cause)) {
                return CompletableFuture.failedFuture(cause);
            }
            long pause = Math.min(WRITER_FIRST_PAUSE.toNanos() << (attempt - 1), WRITER_MAX_PAUSE.toNanos());
            CompletableFuture<Void> waited = new CompletableFuture<>();
            try {
                scheduler.schedule(() -> waited.complete(null), Duration.ofNanos(pause));
            } catch (RejectedExecutionException closed) {
                return CompletableFuture.failedFuture(cause);
            }
            return waited.thenCompose(v -> resume(m, attempt + 1));
        });
    }

    /** codex's refusal to resume a thread another live server writes: "thread … already has an active writer". */
    static boolean writerHeld(Throwable failure) {
        String message = failure.getMessage();
        return failure instanceof CodexRpcException && message != null
                && message.toLowerCase(Locale.ROOT).contains("already has an active writer");
    }
}

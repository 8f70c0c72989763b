package dev.codexclient.pool.internal;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.Subscription;
import dev.codexclient.ThreadOptions;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.telemetry.PooledThreadRecreated;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The state behind one pooled thread: the member it is placed on, its handle on that member's client of the moment,
 * what it takes to use it again after the client changed (a {@code thread/resume} on the new client with the thread's
 * options, or, for a thread the server never stored, a new {@code thread/start} with the same params and options),
 * and its listeners and subscribers ({@link ThreadEvents}), which follow it from handle to handle.
 *
 * <p>Threading: the handle, its generation and the resume or re-creation in flight are guarded by this object; the
 * calls to the member's client are made outside it, and never block.
 */
public final class PlacedThread {
    /**
     * What every thread of one pool shares.
     *
     * @param events        the pool's telemetry
     * @param timer         the pool's clock, for the pauses between resumes a lost server's writer still blocks
     * @param open          whether the pool is open
     * @param sharedStorage whether the members share their storage (a thread outlives its member's loss)
     */
    public record Context(PoolTelemetry events, PoolTimer timer, java.util.function.BooleanSupplier open,
                          boolean sharedStorage) {
    }

    private final Context context;
    /** What the user started it with; null for a resumed or forked thread, which is never re-created. */
    private final ThreadStartParams startParams;
    /** What the user resumed it with (its id replaced when it is resumed again); null for a started thread. */
    private final ThreadResumeParams resumeParams;
    private final ThreadOptions options;
    private final ThreadEvents events;
    private volatile PoolMember member;
    private volatile String id;
    private volatile CodexThread thread;
    /** The client {@link #thread} is a handle of. */
    private volatile CodexClient handleClient;
    /** The member's generation {@link #thread} is valid on; -1 after a move, when no generation holds one yet. */
    private volatile long placedOn;
    private volatile boolean hadTurn;
    /** The ids it had before it was started again: turn params naming one are aimed at the current id. */
    private final Set<String> formerIds = ConcurrentHashMap.newKeySet();
    // Guarded by this: one resume, or one re-creation, however many uses find the handle outlived.
    private CompletableFuture<CodexThread> renewing;
    private long renewingFor = -1;
    private PoolMember renewingOn;
    private CompletableFuture<CodexThread> recreating;
    /** The id {@link #recreating} replaces. */
    private String recreatingFrom;

    /**
     * A thread placed on {@code member}, whose client of generation {@code on} gave {@code thread}.
     *
     * @param startParams  the params it was started with, which start it again where its server never stored it;
     *                     null for a thread that was not started by the pool (resumed, forked)
     * @param resumeParams the params it was resumed with; null for one the pool did not resume
     * @param options      its own tools and approval policy, given again wherever it is resumed
     */
    PlacedThread(PoolMember member, PoolMember.Current on, CodexThread thread, ThreadStartParams startParams,
                 ThreadResumeParams resumeParams, ThreadOptions options, Context context) {
        this.member = member;
        this.context = context;
        this.thread = thread;
        this.handleClient = on.client();
        this.id = thread.id();
        this.startParams = startParams;
        this.resumeParams = resumeParams;
        this.options = options;
        this.hadTurn = startParams == null;
        this.placedOn = on.generation();
        this.events = new ThreadEvents(this::outlived);
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

    /** {@return the thread as the server last described it to one of its handles} Never waits. */
    public ThreadInfo info() {
        return thread.info();
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
     * {@return the handle on the member's client of the moment} The thread is resumed on a new client first (or
     * started again there, when its server never stored it), without blocking.
     */
    public CompletableFuture<CodexThread> handle() {
        PoolMember m = member;
        return m.clientAsync().thenCompose(now -> handleOn(m, now));
    }

    private CompletableFuture<CodexThread> handleOn(PoolMember m, PoolMember.Current now) {
        CompletableFuture<CodexThread> renewed;
        synchronized (this) {
            if (m != member) {
                return handle(); // moved meanwhile: the handle is the new member's
            }
            if (placedOn == now.generation()) {
                return CompletableFuture.completedFuture(thread);
            }
            if (renewing != null && renewingOn == m && renewingFor == now.generation()
                    && !renewing.isCompletedExceptionally()) {
                return renewing;
            }
            renewed = new CompletableFuture<>();
            renewing = renewed;
            renewingOn = m;
            renewingFor = now.generation();
        }
        CompletableFuture<CodexThread> resumed = resume(now.client(), 1);
        if (!hadTurn && startParams != null) {
            // A thread without a turn has nothing stored: a server that lost it cannot resume it, so it starts again.
            resumed = resumed.exceptionallyCompose(e -> lost(Joins.unwrap(e)) ? recreate(m, now)
                    : CompletableFuture.failedFuture(Joins.unwrap(e)));
        }
        resumed.whenComplete((t, e) -> {
            if (e != null) {
                renewed.completeExceptionally(Joins.unwrap(e));
                return;
            }
            renewed(m, now, t, false);
            renewed.complete(t);
        });
        return renewed;
    }

    /**
     * The thread has a new handle, on the member's client of generation {@code now}: its events follow it there. A
     * resume's handle replaces an outlived one; a re-created thread's replaces the lost one on the same client too.
     */
    private void renewed(PoolMember m, PoolMember.Current now, CodexThread t, boolean recreated) {
        synchronized (this) {
            if (m == member && (recreated || placedOn != now.generation())) {
                thread = t;
                handleClient = now.client();
                placedOn = now.generation();
            }
        }
        events.attach(t);
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
                    Throwable cause = Joins.unwrap(e);
                    if (!lost(cause) || hadTurn || startParams == null) {
                        return CompletableFuture.failedFuture(cause);
                    }
                    PoolMember m = member;
                    return m.clientAsync().thenCompose(now -> recreate(m, now))
                            .thenCompose(t -> start.apply(t, retarget(params, asked, t)));
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

    /**
     * Starts the thread again on {@code now}'s client, with the params and options it was started with: once, however
     * many uses find it lost.
     */
    private CompletableFuture<CodexThread> recreate(PoolMember m, PoolMember.Current now) {
        String old;
        CompletableFuture<CodexThread> started = new CompletableFuture<>();
        synchronized (this) {
            old = id;
            if (recreating != null && old.equals(recreatingFrom) && !recreating.isCompletedExceptionally()) {
                return recreating;
            }
            recreating = started;
            recreatingFrom = old;
        }
        now.client().startThreadAsync(startParams, options).whenComplete((t, e) -> {
            if (e != null) {
                started.completeExceptionally(Joins.unwrap(e));
                return;
            }
            synchronized (this) {
                formerIds.add(old);
                id = t.id();
            }
            m.replacedThread(old, t.id());
            context.events().emit(l -> l.pooledThreadRecreated(new PooledThreadRecreated(m.name(), old, t.id())));
            renewed(m, now, t, true);
            started.complete(t);
        });
        return started;
    }

    /** Resumes a thread the writer of a lost server still holds, at most this many times. */
    private static final int WRITER_ATTEMPTS = 8;
    private static final Duration WRITER_FIRST_PAUSE = Duration.ofMillis(100);
    private static final Duration WRITER_MAX_PAUSE = Duration.ofMillis(1600);

    /**
     * Resumes the thread on {@code client}, with its options. codex lets one server at a time write a thread of a
     * storage several share, and lets go when that server's process ends; right after a server was lost its process
     * may not have ended yet (a SIGKILL takes effect, a launcher's child exits after it), so a resume refused with
     * "already has an active writer" is sent again after a short, growing pause on the pool's clock, for about six
     * seconds in all.
     */
    private CompletableFuture<CodexThread> resume(CodexClient client, int attempt) {
        ThreadResumeParams params = (resumeParams == null ? ThreadResumeParams.builder() : resumeParams.toBuilder())
                .threadId(id).excludeTurns(true).build();
        return client.resumeThreadAsync(params, options).exceptionallyCompose(e -> {
            Throwable cause = Joins.unwrap(e);
            if (attempt >= WRITER_ATTEMPTS || !writerHeld(cause)) {
                return CompletableFuture.failedFuture(cause);
            }
            long pause = Math.min(WRITER_FIRST_PAUSE.toNanos() << (attempt - 1), WRITER_MAX_PAUSE.toNanos());
            CompletableFuture<Void> waited = new CompletableFuture<>();
            try {
                context.timer().schedule(() -> waited.complete(null), Duration.ofNanos(pause));
            } catch (RejectedExecutionException closed) {
                return CompletableFuture.failedFuture(cause);
            }
            return waited.thenCompose(v -> resume(client, attempt + 1));
        });
    }

    /** codex's refusal to resume a thread another live server writes: "thread … already has an active writer". */
    static boolean writerHeld(Throwable failure) {
        String message = failure.getMessage();
        return failure instanceof CodexRpcException && message != null
                && message.toLowerCase(Locale.ROOT).contains("already has an active writer");
    }

    // ------------------------------------------------------------------------------------------------ events

    /** Adds a user's listener, on the handle of the moment and every later one. */
    public Subscription onEvent(Consumer<? super ServerNotification> listener) {
        return events.onEvent(listener, valid());
    }

    /** Subscribes a user's subscriber to the events of the handle of the moment and every later one. */
    public void subscribe(Flow.Subscriber<? super ServerNotification> subscriber) {
        events.subscribe(subscriber, valid());
    }

    /** The thread ended for its client (unsubscribed, archived): its listeners are let go of. */
    public void ended() {
        events.ended();
    }

    /** The pool closed: the subscribers still waiting for a handle complete. */
    void poolClosed() {
        events.poolClosed();
    }

    /** {@return whether a user's subscriber waits on this thread} */
    boolean hasSubscribers() {
        return events.hasSubscribers();
    }

    /** {@return the handle of the moment when it is valid now, else null (the next use renews it)} */
    private CodexThread valid() {
        return current() && !handleClient.isClosed() ? thread : null;
    }

    /**
     * Whether the stream of {@code handle} ended because the thread has, or will get, another handle: the member's
     * client was replaced (or gave up, to be replaced), or the thread moved; not when the thread ended there (closed,
     * unsubscribed, archived), the pool closed, or the thread's member is gone with nowhere to go.
     */
    private boolean outlived(CodexThread handle) {
        if (!context.open().getAsBoolean()) {
            return false;
        }
        if (handle != thread) {
            return true;
        }
        PoolMember m = member;
        return handleClient.isClosed() && (!m.closed() || context.sharedStorage());
    }
}

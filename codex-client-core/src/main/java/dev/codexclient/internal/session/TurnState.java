package dev.codexclient.internal.session;

import dev.codexclient.Subscription;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.json.ProtocolText;
import dev.codexclient.protocol.CodexErrorInfo;
import dev.codexclient.internal.rpc.Callbacks;
import dev.codexclient.internal.telemetry.TelemetryEmitter;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.telemetry.TokenCounts;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.TurnCompletedNotification;
import dev.codexclient.protocol.TurnError;
import dev.codexclient.protocol.TurnInterruptParams;
import dev.codexclient.protocol.TurnPlanStep;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.protocol.TurnSteerParams;
import dev.codexclient.protocol.TurnSteerResponse;
import dev.codexclient.protocol.UserInput;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one turn, and everything its public handle does: its id once named, the events routed to it on its
 * thread's lane, its listeners and replay, steering, its timers (deadline, interrupt grace, watchdog), the waits for
 * its end, and its end, once. The public turn handle is a view of it: each of the handle's methods is one call here.
 * {@link TurnStarts} makes it, with the collaborators of its {@link Context}.
 *
 * <p>Threading: events arrive on the thread's delivery lane; the end is decided once, by whichever comes first
 * (completion on the lane, a failure from any thread); the result completes on the callback executor.
 */
public final class TurnState implements RoutedTurn {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(TurnState.class);
    }

    /** How long an interrupt waits for the turn's first event (codex refuses an interrupt before it). */
    private static final Duration INTERRUPT_WAITS_FOR_START = Duration.ofSeconds(2);

    /**
     * How a turn ended, everything its result is made of.
     *
     * @param threadId         the turn's thread
     * @param turnId           the turn id; null when it was never named
     * @param status           the status
     * @param turn             the server's report of the turn, when there is one
     * @param finalText        the final message
     * @param items            the items the turn completed
     * @param usage            the latest token usage, or null
     * @param tokens           the tokens the turn spent, or null without a usage report
     * @param diff             the latest aggregated diff, or null
     * @param plan             the latest plan, or null
     * @param error            the turn's error, or null
     * @param deadlineExceeded whether the turn was interrupted for passing its deadline
     * @param stalled          whether the client gave up waiting for an interrupted turn
     * @param redactor         masks the client's secrets in what is made of the end (its failure's message)
     */
    public record End(String threadId, String turnId, TurnStatus status, Turn turn, String finalText,
                      List<ThreadItem> items, ThreadTokenUsage usage, TokenCounts tokens, String diff,
                      List<TurnPlanStep> plan, TurnError error, boolean deadlineExceeded, boolean stalled,
                      Redactor redactor) {

        /** {@return the failure of a turn that failed so: its error, secrets masked} */
        public CodexTurnFailedException failure() {
            return failure(threadId, turnId, error, redactor);
        }

        /**
         * {@return the failure of a turn of {@code threadId} that failed with {@code error}} The server's text can
         * quote the credential that failed ("incorrect API key …"): it is masked before it becomes a message.
         *
         * @param threadId the turn's thread
         * @param turnId   the turn id; null when it was never named
         * @param error    the turn's error; null when it failed without one
         * @param redactor the client's masking
         */
        public static CodexTurnFailedException failure(String threadId, String turnId, TurnError error,
                                                       Redactor redactor) {
            String message = error == null ? "turn failed without an error message" : redactor.redact(error.message());
            CodexErrorInfo info = error == null ? null : error.codexErrorInfo();
            String infoText = info == null ? null : redactor.redact(ProtocolText.compact(info));
            String details = error == null || error.additionalDetails() == null ? null
                    : redactor.redact(error.additionalDetails());
            return new CodexTurnFailedException(threadId, turnId, message, info, infoText, details);
        }
    }

    /**
     * What every turn of a client works with, given once by the runtime.
     *
     * @param calls          the client's typed calls ({@code turn/steer}, {@code turn/interrupt}, the watchdog's reads)
     * @param waits          how the API blocks
     * @param scheduler      the clock and timer of deadlines, grace periods and watchdogs
     * @param callbacks      the client's lanes and callback executor
     * @param flows          the client's publishers
     * @param held           the threads held, to let go of the turn's thread when it ends
     * @param paging         what the server of the moment can list of a thread's turns (for the watchdog)
     * @param telemetry      where the turns' telemetry goes
     * @param interruptGrace how long an interrupted turn may take to settle
     * @param replayLimit    the most events a turn keeps for late listeners
     * @param replayBytes    the most bytes a turn keeps for late listeners
     * @param redactor       the client's masking, for what is made of a turn's end
     */
    public record Context(Calls calls, Waits waits, Scheduler scheduler, Callbacks callbacks, FlowPublishers flows,
                          HeldThreads held, Supplier<TurnPaging> paging,
                          TelemetryEmitter telemetry, Duration interruptGrace, int replayLimit, long replayBytes,
                          Redactor redactor) {
    }

    private final Context context;
    private final String threadId;
    /** Set on the lane when the turn/start response names the turn, before the handle is handed out. */
    private volatile String id;
    private final CompletableFuture<End> result = new CompletableFuture<>();
    /**
     * Completes once the replays to the listeners added so far have run. A listener added from outside the lane gets
     * its replay on the lane, possibly after the turn ended there: a wait for the result also waits for these, so
     * code that adds a listener and then awaits the turn sees every event in the listener before the wait returns.
     */
    private final AtomicReference<CompletableFuture<Void>> replays =
            new AtomicReference<>(CompletableFuture.completedFuture(null));
    /** Completes with the first event of the turn: codex rejects an interrupt sent before the turn is running. */
    private final CompletableFuture<Void> running = new CompletableFuture<>();
    /** Set once, by whichever ending comes first (completion, stall, failure). */
    private final AtomicBoolean ended = new AtomicBoolean();
    // Touched only from the thread's delivery lane (see ThreadState), hence no locking.
    private final Listeners<ServerNotification> listeners = new Listeners<>("turn");
    /** The parts of the result and the replay buffer. */
    private final TurnProgress progress;

    private volatile boolean deadlineExceeded;
    private volatile Scheduler.Task deadlineTask;
    private volatile Scheduler.Task graceTask;
    private volatile TurnWatchdog watchdog;
    /** The turn's telemetry; null without a telemetry listener, so that nothing is built. */
    private final TurnTelemetry telemetry;

    /**
     * @param context  what every turn of the client works with
     * @param threadId the turn's thread
     */
    TurnState(Context context, String threadId) {
        this.context = context;
        this.threadId = threadId;
        this.progress = new TurnProgress(threadId, context.replayLimit(), context.replayBytes());
        this.telemetry = context.telemetry().enabled() ? new TurnTelemetry(context.telemetry(), context.scheduler())
                : null;
    }

    @Override
    public String threadId() {
        return threadId;
    }

    @Override
    public String boundId() {
        return id;
    }

    @Override
    public boolean isDone() {
        return result.isDone();
    }

    /** {@return the turn id, or null while the {@code turn/start} response has not named it} */
    public String id() {
        return id;
    }

    /**
     * {@return the result, once the replays to the listeners added before this call have run too} On the thread's
     * own lane the replays run after the current task, so there it is the result alone (waiting would wait for
     * itself).
     */
    private CompletableFuture<End> settledResult() {
        CompletableFuture<Void> pending = replays.get();
        if (pending.isDone() || context.callbacks().isOnLane(threadId)) {
            return result;
        }
        return result.thenCombine(pending, (r, ignored) -> r);
    }

    /**
     * {@return the turn's end, to wait for: its result, once the listeners added before the wait began had their
     * replay} Refused on the turn's own lane.
     */
    public Outcome<End> end() {
        return new Outcome<>(context.waits(), what -> context.waits().checkMayAwait(threadId, what), "turn.await()",
                "completion of a turn of thread " + threadId, this::settledResult);
    }

    /** {@return the result, as {@link #end()} waits for it; for the client's own dependents} */
    CompletableFuture<End> ended() {
        return settledResult();
    }

    /** {@return the tokens the turn spent so far, or null before its first usage report} Any thread. */
    public TokenCounts tokens() {
        return progress.tokens();
    }

    /**
     * {@return the turn's events as a publisher, from its start (as far as the replay buffer reaches) to its end}
     * A failed turn ends its subscriptions with the failure its result reports.
     */
    public Flow.Publisher<ServerNotification> publisher() {
        return context.flows().turn(threadId, toString(), this::subscribe,
                result.thenApply(r -> r.status() == TurnStatus.FAILED ? r.failure() : null));
    }

    /**
     * {@return the turn's events as a blocking stream's engine, subscribed from now on}
     *
     * @param timeout the longest wait for each event; null for as long as the turn runs
     */
    public TurnEventQueue events(Duration timeout) {
        return new TurnEventQueue(this, context.waits(), context.scheduler(), timeout);
    }

    /** Runs {@code task} on the turn's thread's delivery lane, behind the events queued there. */
    void onLane(Runnable task) {
        context.callbacks().onLane(threadId, task);
    }

    /** {@return adding input to the turn ({@code turn/steer}): the server's answer} */
    public Operation<TurnSteerResponse> steer(List<UserInput> input) {
        TurnSteerParams params = TurnSteerParams.builder().threadId(threadId).expectedTurnId(boundIdOrThrow())
                .input(List.copyOf(input)).build();
        return Operation.of(context.waits(), "turn/steer on " + this, () -> context.calls().turnSteer(params));
    }

    /** {@return the turn id} @throws IllegalStateException before the server named the turn */
    public String boundIdOrThrow() {
        String turnId = id;
        if (turnId == null) {
            throw new IllegalStateException("the turn has no id yet");
        }
        return turnId;
    }

    /** {@return how many listeners the turn delivers to} */
    public int listenerCount() {
        return listeners.size();
    }

    // ------------------------------------------------------------------------------------------------ listeners

    /**
     * Adds a listener: the events the turn already saw are handed to {@code replayed} first (on the lane), the ones
     * that arrive from then on to {@code live}.
     *
     * @param replayed takes the replayed events
     * @param live     takes the live events
     * @return the subscription
     */
    public Subscription subscribe(Consumer<? super ServerNotification> replayed,
                                  Consumer<? super ServerNotification> live) {
        Listeners.Entry<ServerNotification> entry = listeners.entry(live, () -> { });
        CompletableFuture<Void> replayDone = new CompletableFuture<>();
        replays.accumulateAndGet(replayDone,
                (before, added) -> before.isDone() ? added : CompletableFuture.allOf(before, added));
        context.callbacks().onLane(threadId, () -> {
            try {
                replay(entry, replayed);
            } finally {
                replayDone.complete(null);
            }
        });
        return entry;
    }

    private void replay(Listeners.Entry<ServerNotification> entry, Consumer<? super ServerNotification> replayed) {
        for (Iterator<ServerNotification> it = progress.replay(); it.hasNext(); ) {
            ServerNotification event = it.next();
            if (entry.isClosed()) {
                return;
            }
            try {
                replayed.accept(event);
            } catch (RuntimeException e) {
                Log.LOG.warn("A turn listener threw; other listeners still get the event", e);
            }
        }
        // After the turn ended nothing more comes: keep no reference to the listener.
        if (!ended.get()) {
            listeners.add(entry);
        }
    }

    // ------------------------------------------------------------------------------------------------ control

    /** Asks the server to interrupt the turn, once it runs; the grace period starts with the first interrupt. */
    @Override
    public void interrupt() {
        if (result.isDone()) {
            return;
        }
        // The grace period runs from the first interrupt, whatever the server does with the requests.
        synchronized (this) {
            if (graceTask == null) {
                graceTask = scheduleGrace();
            }
        }
        // turn/start can answer before the turn runs; an interrupt in that window is refused with
        // "no active turn to interrupt", so wait (boundedly) for the turn's first event.
        CompletableFuture<Void> started = new CompletableFuture<>();
        running.whenComplete((v, e) -> started.complete(null));
        if (!started.isDone()) {
            try {
                Scheduler.Task t = context.scheduler().schedule(() -> started.complete(null),
                        INTERRUPT_WAITS_FOR_START);
                started.whenComplete((v, e) -> t.cancel());
            } catch (RejectedExecutionException closing) {
                started.complete(null);
            }
        }
        String turnId = id;
        started.thenCompose(x -> context.calls().turnInterrupt(TurnInterruptParams.builder()
                        .threadId(threadId).turnId(turnId).build()))
                .whenComplete((r, e) -> {
                    if (e != null && !result.isDone()) {
                        Log.LOG.debug("turn/interrupt failed for {}: {}", threadId, e.toString());
                    }
                });
    }

    /**
     * After an interrupt, gives the server a grace period to settle the turn before declaring it stalled.
     */
    private Scheduler.Task scheduleGrace() {
        Duration grace = context.interruptGrace();
        try {
            return context.scheduler().schedule(() -> onLane(() -> {
                if (!isDone()) {
                    Log.LOG.warn("turn {} did not settle within {} ms of its interrupt; completing it as stalled",
                            this, grace.toMillis());
                    stall();
                }
            }), grace);
        } catch (RejectedExecutionException closing) {
            // The client is closed: the turn fails with the connection.
            return () -> false;
        }
    }

    /** {@return the turn's end, to wait for, after asking the server to interrupt the turn (see {@link #end()})} */
    public Outcome<End> interrupting() {
        interrupt();
        return end();
    }

    /**
     * Interrupts the turn when {@code timeout} passes before it ends; a later call replaces the deadline.
     *
     * @param timeout the time from now the turn may take
     */
    public void deadline(Duration timeout) {
        Scheduler.Task previous = deadlineTask;
        if (previous != null) {
            previous.cancel();
        }
        if (result.isDone()) {
            return;
        }
        try {
            deadlineTask = context.scheduler().schedule(() -> {
                if (!result.isDone()) {
                    deadlineExceeded = true;
                    Log.LOG.debug("turn of thread {} passed its deadline of {}; interrupting", threadId, timeout);
                    interrupt();
                }
            }, timeout);
        } catch (RejectedExecutionException e) {
            // The client is closed: the turn fails with the connection, there is nothing left to interrupt.
            Log.LOG.debug("not arming the deadline of a turn of thread {}: the client is closed", threadId);
        }
    }

    /**
     * Watches the turn for silence, replacing an earlier watchdog.
     *
     * @param idle the longest silence the turn may have
     */
    public void watchdog(Duration idle) {
        TurnWatchdog next = new TurnWatchdog(this, context.scheduler(), context.calls(), context.callbacks(),
                context.paging(), idle);
        TurnWatchdog previous = watchdog;
        watchdog = next;
        if (previous != null) {
            previous.stop();
        }
        next.start();
    }

    // ------------------------------------------------------------------------------------------------ lane side

    @Override
    public void bound(String turnId) {
        this.id = turnId;
        if (telemetry != null) {
            telemetry.named(threadId, turnId);
        }
    }

    @Override
    public void accept(ServerNotification n, int bytes) {
        if (ended.get()) {
            return;
        }
        running.complete(null);
        TurnWatchdog w = watchdog;
        if (w != null) {
            w.touch();
        }
        progress.record(n, bytes);
        listeners.deliver(n);
        if (n instanceof ServerNotification.TurnCompleted c) {
            finish(c.params());
        }
    }

    private void finish(TurnCompletedNotification completed) {
        Turn turn = completed.turn();
        // A missing status reads as a value this SDK does not know (its known() is UNRECOGNIZED), as a new one would.
        TurnStatus status = turn == null || turn.status() == null ? TurnStatus.of("") : turn.status();
        TurnError error = turn != null && turn.error() != null ? turn.error() : progress.lastError();
        complete(status, turn, error, false);
    }

    /** Completes the turn (once). Runs on the lane. */
    private void complete(TurnStatus status, Turn turn, TurnError error, boolean stalled) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        stopTimers();
        String turnId = id != null ? id : turn != null ? turn.id() : null;
        End r = new End(threadId, turnId, status, turn, progress.finalText(), progress.items(turn), progress.usage(),
                progress.tokens(), progress.lastDiff(), progress.lastPlan(), error, deadlineExceeded, stalled,
                context.redactor());
        if (telemetry != null) {
            // The failure as the result's orThrow() gives it; an interruption keeps the error it had, if any.
            boolean failed = status == TurnStatus.FAILED || (status != TurnStatus.COMPLETED && error != null);
            telemetry.ended(status, failed ? Optional.of(r.failure()) : Optional.empty(), progress.usage(),
                    progress.tokens());
        }
        leaveThread();
        // Nothing more comes: let go of the listeners (a listener added later gets the replay only).
        listeners.closeAll();
        // Completed off the lane so callers' continuations never hold up this thread's events.
        context.callbacks().callback(() -> result.complete(r));
    }

    @Override
    public void completeFromServer(Turn turn) {
        complete(turn.status(), turn, turn.error() != null ? turn.error() : progress.lastError(), false);
    }

    @Override
    public void stall() {
        complete(TurnStatus.INTERRUPTED, null, progress.lastError(), true);
    }

    /**
     * The turn can no longer complete: its start failed, the connection ended, or the client let go of its thread
     * (closed by the server, archived, unsubscribed). Any thread.
     */
    @Override
    public void fail(Throwable cause) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        stopTimers();
        if (telemetry != null) {
            telemetry.ended(TurnStatus.FAILED, Optional.of(cause instanceof CodexException ce ? ce
                    : new CodexException("the turn could not complete: " + cause, cause)), progress.usage(),
                    progress.tokens());
        }
        leaveThread();
        context.callbacks().callback(() -> result.completeExceptionally(cause));
    }

    private void stopTimers() {
        Scheduler.Task d = deadlineTask;
        if (d != null) {
            d.cancel();
        }
        Scheduler.Task g = graceTask;
        if (g != null) {
            g.cancel();
        }
        TurnWatchdog w = watchdog;
        if (w != null) {
            w.stop();
        }
    }

    /** The turn no longer needs its thread's routing: the client may let go of the thread. */
    private void leaveThread() {
        context.held().turnEnded(threadId, this);
    }

    @Override
    public String toString() {
        return "turn " + (id != null ? id : "(starting)") + " of thread " + threadId;
    }
}

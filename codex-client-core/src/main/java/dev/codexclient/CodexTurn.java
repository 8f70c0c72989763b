package dev.codexclient;

import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.AgentMessageDeltaNotification;
import dev.codexclient.protocol.CommandExecutionOutputDeltaNotification;
import dev.codexclient.protocol.ErrorNotification;
import dev.codexclient.protocol.ItemCompletedNotification;
import dev.codexclient.protocol.ItemStartedNotification;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.protocol.ThreadTokenUsageUpdatedNotification;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.TurnCompletedNotification;
import dev.codexclient.protocol.TurnDiffUpdatedNotification;
import dev.codexclient.protocol.TurnError;
import dev.codexclient.protocol.TurnInterruptParams;
import dev.codexclient.protocol.TurnPlanStep;
import dev.codexclient.protocol.TurnPlanUpdatedNotification;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.protocol.TurnSteerParams;
import dev.codexclient.protocol.TurnSteerResponse;
import dev.codexclient.protocol.UserInput;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running turn: its ordered event stream, typed listeners, steering and interruption, and its result.
 *
 * <pre>{@code
 * CodexTurn turn = thread.startTurn("Run the tests and fix what fails");
 * turn.onAgentMessageDelta(delta -> System.out.print(delta.delta()));
 * TurnResult result = turn.await(Duration.ofMinutes(10));
 * }</pre>
 *
 * <p>Events are delivered in wire order on the thread's delivery lane (see the "Threading" section of the README;
 * never on the connection's reader thread). Nothing is missed by attaching a listener after {@code startTurn}
 * returns: the events the turn has already seen, including those that arrived before the {@code turn/start}
 * response, are replayed to each new listener first, as far as the replay buffer reaches (the client's replay
 * limits, in events and bytes).
 *
 * <p>Waiting: {@link #await(Duration)} blocks with a timeout, {@link #result()} is its non-blocking twin. Called on
 * the turn's own delivery lane (inside a listener of its thread, or of the client for one of its events),
 * {@code await} and the {@link #events()} iterator would wait for events that lane can only deliver once they
 * return; they throw {@link CodexDeadlockException} at once instead.
 *
 * <p>Memory: the result keeps every item the turn completed (it is the turn's outcome; codex sends them in
 * {@code turn/completed} too), so a turn's result is as large as its output. The replay buffer is bounded.
 */
public final class CodexTurn {
    private static final Logger LOG = LoggerFactory.getLogger(CodexTurn.class);
    /** How long an interrupt waits for the turn's first event (codex refuses an interrupt before it). */
    private static final Duration INTERRUPT_WAITS_FOR_START = Duration.ofSeconds(2);

    private final CodexThread thread;
    private final CodexClient client;
    private final ThreadRouter router;
    /** Set when the turn/start response names the turn, before the handle is handed out. */
    private volatile String id;
    private final CompletableFuture<TurnResult> result = new CompletableFuture<>();
    /** Completes with the first event of the turn: codex rejects an interrupt sent before the turn is running. */
    private final CompletableFuture<Void> running = new CompletableFuture<>();
    /** Set once, by whichever ending comes first (completion, stall, failure). */
    private final AtomicBoolean ended = new AtomicBoolean();
    /** Events that arrived before the turn was claimed, handed over by {@link #bind}. */
    private volatile List<ThreadRouter.Held> early = List.of();

    // Everything below is touched only from the thread's delivery lane (see ThreadRouter), hence no locking.
    private boolean earlyDelivered;
    private final ArrayDeque<Replayed> replay = new ArrayDeque<>();
    private long replayBytes;
    private long droppedFromReplay;
    private final Listeners<ServerNotification> listeners = new Listeners<>("turn");
    private final List<ThreadItem> completedItems = new ArrayList<>();
    private final Map<String, StringBuilder> agentText = new LinkedHashMap<>();
    private String lastAgentItemId;
    private String lastCompletedAgentText;
    /** Volatile only for the end event of a turn that fails off its lane; written on the lane. */
    private volatile ThreadTokenUsage usage;
    private String lastDiff;
    private List<TurnPlanStep> lastPlan;
    private TurnError lastError;

    private volatile boolean deadlineExceeded;
    private volatile Scheduler.Task deadlineTask;
    private volatile Scheduler.Task graceTask;
    private volatile TurnWatchdog watchdog;
    /** The turn's events; null without an event listener, so that no event is built. */
    private final TurnEvents events;

    /** An event in the replay buffer, with its approximate size (the length of its line). */
    private record Replayed(ServerNotification event, int bytes) {
    }

    CodexTurn(CodexThread thread, CodexClient client, ThreadRouter router) {
        this.thread = thread;
        this.client = client;
        this.router = router;
        this.events = client.events().enabled() ? new TurnEvents(client.events(), client.scheduler()) : null;
    }

    /** {@return the turn id, as the server assigned it} */
    public String id() {
        String turnId = id;
        if (turnId == null) {
            throw new IllegalStateException("the turn has no id yet");
        }
        return turnId;
    }

    /** {@return the thread the turn runs on} */
    public CodexThread thread() {
        return thread;
    }

    /** {@return the id of the thread the turn runs on} */
    public String threadId() {
        return thread.id();
    }

    // ------------------------------------------------------------------------------------------------ listeners

    /**
     * Every event of this turn, in wire order, replaying what already arrived. {@link Subscription#close()} stops
     * the deliveries, replay included: a listener closed before its replay ran receives nothing.
     *
     * @param listener called with each event, on the thread's callback lane; it may call back into the client
     * @return the subscription, whose {@code close()} removes the listener
     */
    public Subscription onEvent(Consumer<? super ServerNotification> listener) {
        Objects.requireNonNull(listener, "listener");
        return subscribe(listener, listener);
    }

    /**
     * Like {@link #onEvent}, with the replayed events handed to {@code replayed} and the ones that arrive from then
     * on to {@code live}.
     */
    Subscription subscribe(Consumer<? super ServerNotification> replayed, Consumer<? super ServerNotification> live) {
        Listeners.Entry<ServerNotification> entry = listeners.entry(live, () -> { });
        thread.onLane(() -> {
            deliverEarly();
            for (Replayed r : replay) {
                if (entry.isClosed()) {
                    return;
                }
                try {
                    replayed.accept(r.event());
                } catch (RuntimeException e) {
                    LOG.warn("A turn listener threw; other listeners still get the event", e);
                }
            }
            // After the turn ended nothing more comes: keep no reference to the listener.
            if (!ended.get()) {
                listeners.add(entry);
            }
        });
        return entry;
    }

    /**
     * Agent message text as it streams ({@code item/agentMessage/delta}), replaying what already arrived.
     *
     * @param listener called with each delta, in wire order, on the thread's callback lane
     * @return the subscription, whose {@code close()} removes the listener
     */
    public Subscription onAgentMessageDelta(Consumer<? super AgentMessageDeltaNotification> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.ItemAgentMessageDelta d) {
                listener.accept(d.params());
            }
        });
    }

    /**
     * Items as they start ({@code item/started}), replaying what already arrived.
     *
     * @param listener called with each item, in wire order, on the thread's callback lane
     * @return the subscription, whose {@code close()} removes the listener
     */
    public Subscription onItemStarted(Consumer<? super ThreadItem> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.ItemStarted s) {
                listener.accept(s.params().item());
            }
        });
    }

    /**
     * Items as they complete ({@code item/completed}), with their final state, replaying what already arrived.
     *
     * @param listener called with each item, in wire order, on the thread's callback lane
     * @return the subscription, whose {@code close()} removes the listener
     */
    public Subscription onItemCompleted(Consumer<? super ThreadItem> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.ItemCompleted c) {
                listener.accept(c.params().item());
            }
        });
    }

    /**
     * Command output as it streams ({@code item/commandExecution/outputDelta}), replaying what already arrived.
     *
     * @param listener called with each chunk of output, in wire order, on the thread's callback lane
     * @return the subscription, whose {@code close()} removes the listener
     */
    public Subscription onCommandOutputDelta(Consumer<? super CommandExecutionOutputDeltaNotification> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.ItemCommandExecutionOutputDelta d) {
                listener.accept(d.params());
            }
        });
    }

    /**
     * Plan updates ({@code turn/plan/updated}), replaying what already arrived.
     *
     * @param listener called with each update, in wire order, on the thread's callback lane
     * @return the subscription, whose {@code close()} removes the listener
     */
    public Subscription onPlanUpdated(Consumer<? super TurnPlanUpdatedNotification> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.TurnPlanUpdated p) {
                listener.accept(p.params());
            }
        });
    }

    /**
     * The turn's aggregated diff whenever it changes ({@code turn/diff/updated}), replaying what already arrived.
     *
     * @param listener called with each update, in wire order, on the thread's callback lane
     * @return the subscription, whose {@code close()} removes the listener
     */
    public Subscription onDiffUpdated(Consumer<? super TurnDiffUpdatedNotification> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.TurnDiffUpdated d) {
                listener.accept(d.params());
            }
        });
    }

    /**
     * Token usage updates ({@code thread/tokenUsage/updated}), replaying what already arrived.
     *
     * @param listener called with the usage after each update, in wire order, on the thread's callback lane
     * @return the subscription, whose {@code close()} removes the listener
     */
    public Subscription onTokenUsage(Consumer<? super ThreadTokenUsage> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.ThreadTokenUsageUpdated u) {
                listener.accept(u.params().tokenUsage());
            }
        });
    }

    /**
     * The turn's events as a blocking stream, in wire order from the first event still in the replay buffer,
     * ending after {@code turn/completed} (or when the turn otherwise settles). Each {@code hasNext()} waits as
     * long as the turn runs; see {@link #events(Duration)} for a bounded wait.
     *
     * <pre>{@code
     * try (TurnEventStream events = turn.events()) {
     *     for (ServerNotification e : events) { ... }
     * }
     * }</pre>
     *
     * <p>Closing the stream stops its subscription and frees what it holds; a stream left unclosed lets go of its
     * subscription when the turn settles.
     *
     * @return a new stream; close it when done
     * @throws CodexDeadlockException from {@code hasNext()} when it would wait on the turn's own delivery lane
     */
    public TurnEventStream events() {
        return new TurnEventStream(this, client, null);
    }

    /**
     * Like {@link #events()}, but each {@code hasNext()} waits at most {@code timeout} for the next event and then
     * throws {@link CodexTimeoutException} (the turn keeps running, the stream stays usable).
     *
     * @param timeout the longest wait for each event, positive
     * @return a new stream; close it when done
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    public TurnEventStream events(Duration timeout) {
        return new TurnEventStream(this, client, CodexClient.positive(timeout, "timeout"));
    }

    /**
     * The turn's events as a {@link Flow.Publisher}, for Reactor, Kotlin coroutines, RxJava, Mutiny or any
     * Reactive Streams consumer. Each subscriber gets the turn's events in wire order from its start (replayed, as
     * far as the client's {@link CodexClient.Builder#turnReplayLimit replay buffer} reaches, then live) and then
     * the turn's end:
     * <ul>
     *   <li>{@code onComplete} after the last event, {@code turn/completed}, when the turn completed or was
     *       interrupted (also when the client gave up waiting for an interrupted turn: {@link TurnResult#stalled()});
     *       a subscriber that comes after the end gets the replay, then {@code onComplete};</li>
     *   <li>{@code onError(}{@link dev.codexclient.errors.CodexTurnFailedException}{@code )} after
     *       {@code turn/completed} when the turn failed;</li>
     *   <li>{@code onError} with the cause {@link #result()} fails with when the turn cannot complete: the
     *       connection ended or the client was closed ({@link dev.codexclient.errors.CodexTransportException}), or
     *       the thread was let go of.</li>
     * </ul>
     *
     * <pre>{@code
     * Flux<ServerNotification> events = JdkFlowAdapter.flowPublisherToFlux(turn.publisher());
     * events.ofType(ServerNotification.ItemAgentMessageDelta.class)
     *       .limitRate(64)
     *       .subscribe(d -> System.out.print(d.params().delta()));
     * }</pre>
     *
     * <p>Backpressure: events are handed to {@code onNext} only as requested. Events beyond the outstanding demand
     * wait in the subscription's buffer; when more than {@link CodexClient.Builder#publisherBufferSize(int)} live
     * events wait there (the replayed ones do not count: the turn keeps them anyway), the subscription ends with
     * {@link dev.codexclient.errors.CodexBackpressureException}, at once, without waiting for demand. The connection is never slowed down and no event
     * is dropped in silence ({@link CodexClient.Builder#publisherOverflow} with
     * {@link PublisherOverflow#COALESCE_DELTAS} first merges waiting text deltas, for a slow reader). Signals come
     * one at a time, never on the connection's reader thread, each
     * subscription on a delivery lane of its own: a slow subscriber holds up neither the thread's listeners nor
     * other subscribers, and the client may be called from {@code onNext} or {@code onComplete}, blocking forms
     * included (for example {@code await} on this very turn, or starting the next turn). {@code cancel()} stops
     * the deliveries and removes the subscription's listener.
     *
     * <p>Each call to {@code subscribe} opens an independent subscription; the publisher may be subscribed to any
     * number of times.
     *
     * @return a publisher of this turn's events, from its start to its end
     */
    public Flow.Publisher<ServerNotification> publisher() {
        return FlowPublishers.turn(client, this);
    }

    // ------------------------------------------------------------------------------------------------ control

    /**
     * Adds input to the running turn ({@code turn/steer}).
     *
     * @param text the user's message to add
     * @return a future of the server's answer; it fails with a {@link dev.codexclient.errors.CodexRpcException}
     *         when the turn is no longer running
     */
    public CompletableFuture<TurnSteerResponse> steer(String text) {
        return steer(List.of(Inputs.text(text)));
    }

    /**
     * Adds input to the running turn ({@code turn/steer}).
     *
     * @param input the inputs to add, in order (see {@link Inputs})
     * @return a future of the server's answer; it fails with a {@link dev.codexclient.errors.CodexRpcException}
     *         when the turn is no longer running
     */
    public CompletableFuture<TurnSteerResponse> steer(List<UserInput> input) {
        return client.rpc().turnSteer(TurnSteerParams.builder()
                .threadId(thread.id()).expectedTurnId(id()).input(List.copyOf(input)).build());
    }

    /**
     * Asks the server to interrupt the turn. The returned future is the turn's result: it completes when
     * {@code turn/completed} arrives (normally with status {@code INTERRUPTED}), or after the client's grace period
     * with a {@link TurnResult#stalled() stalled} result if the server never settles the turn. Interrupting a turn
     * that has ended does nothing.
     *
     * @return the turn's result, like {@link #result()}
     */
    public CompletableFuture<TurnResult> interrupt() {
        if (!result.isDone()) {
            // The grace period runs from the first interrupt, whatever the server does with the requests.
            synchronized (this) {
                if (graceTask == null) {
                    graceTask = client.scheduleGrace(this);
                }
            }
            // turn/start can answer before the turn runs; an interrupt in that window is refused with
            // "no active turn to interrupt", so wait (boundedly) for the turn's first event.
            CompletableFuture<Void> started = new CompletableFuture<>();
            running.whenComplete((v, e) -> started.complete(null));
            if (!started.isDone()) {
                try {
                    Scheduler.Task t = client.schedule(() -> started.complete(null), INTERRUPT_WAITS_FOR_START);
                    started.whenComplete((v, e) -> t.cancel());
                } catch (RejectedExecutionException closing) {
                    started.complete(null);
                }
            }
            String turnId = id();
            started.thenCompose(x -> client.rpc().turnInterrupt(TurnInterruptParams.builder()
                            .threadId(thread.id()).turnId(turnId).build()))
                    .whenComplete((r, e) -> {
                        if (e != null && !result.isDone()) {
                            LOG.debug("turn/interrupt failed for {}: {}", thread.id(), e.toString());
                        }
                    });
        }
        return guarded();
    }

    /**
     * Interrupts the turn when {@code timeout} passes before it completes; its result then reports
     * {@link TurnResult#deadlineExceeded()}. A later call replaces the deadline, counted from that call.
     *
     * @param timeout the time from now the turn may take
     * @return this turn
     */
    public CodexTurn deadline(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        Scheduler.Task previous = deadlineTask;
        if (previous != null) {
            previous.cancel();
        }
        if (result.isDone()) {
            return this;
        }
        try {
            deadlineTask = client.schedule(() -> {
                if (!result.isDone()) {
                    deadlineExceeded = true;
                    LOG.debug("turn of thread {} passed its deadline of {}; interrupting", thread.id(), timeout);
                    interrupt();
                }
            }, timeout);
        } catch (RejectedExecutionException e) {
            // The client is closed: the turn fails with the connection, there is nothing left to interrupt.
            LOG.debug("not arming the deadline of a turn of thread {}: the client is closed", thread.id());
        }
        return this;
    }

    /**
     * Watches the turn for silence: when no event arrives for {@code idle}, the client reads the thread
     * ({@code thread/read} with turns); if the server reports the turn as over, the handle completes from that
     * report, otherwise the turn is {@link #interrupt() interrupted} and completes as
     * {@link TurnResult#stalled() stalled} if it still does not settle within the client's grace period.
     * Replaces the client's default ({@link CodexClient.Builder#turnWatchdog(Duration)}) for this turn.
     *
     * @param idle the longest silence the turn may have, positive
     * @return this turn
     * @throws IllegalArgumentException when {@code idle} is zero or negative
     */
    public CodexTurn watchdog(Duration idle) {
        Objects.requireNonNull(idle, "idle");
        if (idle.isNegative() || idle.isZero()) {
            throw new IllegalArgumentException("watchdog idle time must be positive: " + idle);
        }
        TurnWatchdog next = new TurnWatchdog(this, client, idle);
        TurnWatchdog previous = watchdog;
        watchdog = next;
        if (previous != null) {
            previous.stop();
        }
        next.start();
        return this;
    }

    // ------------------------------------------------------------------------------------------------ results

    /**
     * Completes when the turn ends, on the callback executor. Completes exceptionally only when the turn can no
     * longer end normally: the connection was lost, or the client let go of the thread (closed by the server,
     * archived, unsubscribed). Its {@code get()} and {@code join()} fail like {@link #await} on the turn's own
     * delivery lane.
     *
     * @return a future of the turn's result; each call returns a new future, so cancelling one changes nothing
     *         for the turn
     */
    public CompletableFuture<TurnResult> result() {
        return guarded();
    }

    /** A copy of the result whose blocking waits fail fast where they could never end. */
    private CompletableFuture<TurnResult> guarded() {
        WaitGuardedFuture<TurnResult> copy = new WaitGuardedFuture<>(() -> client.waits().checkMayAwait(this,
                "waiting for the result of " + this));
        result.whenComplete((r, e) -> {
            if (e == null) {
                copy.complete(r);
            } else {
                copy.completeExceptionally(e);
            }
        });
        return copy;
    }

    /** {@return whether the turn has ended, its result then being available at once} */
    public boolean isDone() {
        return result.isDone();
    }

    /**
     * Waits for the turn to end and returns its result, whatever its status; use {@link TurnResult#orThrow()} to
     * turn a failure into an exception. {@link #result()} is the non-blocking twin.
     *
     * @param timeout the longest wait
     * @return the turn's result
     * @throws CodexTimeoutException when the turn is still running after {@code timeout} (it keeps running)
     * @throws CodexDeadlockException when called on the turn's own delivery lane (in a listener of its thread, or
     *         a client listener handling one of its events), where the turn cannot complete while it waits
     */
    public TurnResult await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (!result.isDone()) {
            client.waits().checkMayAwait(this, "turn.await()");
        }
        return client.waits().within(result, timeout, () -> CodexTimeoutException.waitingFor(
                "completion of a turn of thread " + thread.id(), timeout), "a turn");
    }

    // ------------------------------------------------------------------------------------------------ lane side

    /**
     * Called (under the router's lock) when the server told us the turn id, before the handle is handed out:
     * {@code earlyEvents} arrived before that and are delivered ahead of any later event.
     */
    void bind(String turnId, List<ThreadRouter.Held> earlyEvents) {
        this.early = List.copyOf(earlyEvents);
        this.id = turnId;
        if (events != null) {
            events.named(thread.id(), turnId);
        }
    }

    /** The turn id once bound, else {@code fallback}. */
    String boundIdOr(String fallback) {
        String turnId = id;
        return turnId != null ? turnId : fallback;
    }

    String boundId() {
        return id;
    }

    /** For diagnostics: how many listeners this turn delivers to. */
    int listenerCount() {
        return listeners.size();
    }

    /** Delivers the events that arrived before the turn was claimed, once. Runs on the lane. */
    void deliverEarly() {
        if (earlyDelivered || id == null) {
            return;
        }
        earlyDelivered = true;
        List<ThreadRouter.Held> held = early;
        early = List.of();
        for (ThreadRouter.Held h : held) {
            handle(h.event(), h.bytes());
        }
    }

    /** Called on the thread's lane for every event of this turn, in wire order. */
    void accept(ServerNotification n, int bytes) {
        deliverEarly();
        handle(n, bytes);
    }

    private void handle(ServerNotification n, int bytes) {
        if (ended.get()) {
            return;
        }
        running.complete(null);
        TurnWatchdog w = watchdog;
        if (w != null) {
            w.touch();
        }
        accumulate(n);
        remember(n, bytes);
        listeners.deliver(n);
        if (n instanceof ServerNotification.TurnCompleted c) {
            finish(c.params());
        }
    }

    /**
     * Keeps the event for listeners added later, within the client's limits in events and bytes. The byte limit
     * never drops the newest event: a listener added after the turn ended still sees its {@code turn/completed}.
     */
    private void remember(ServerNotification n, int bytes) {
        replay.add(new Replayed(n, bytes));
        replayBytes += bytes;
        int maxEvents = client.replayLimit();
        long maxBytes = client.replayBytesLimit();
        while (!replay.isEmpty()
                && (replay.size() > maxEvents || (replayBytes > maxBytes && replay.size() > 1))) {
            replayBytes -= replay.poll().bytes();
            if (droppedFromReplay++ == 0) {
                LOG.debug("turn of thread {} exceeded the replay limit ({} events, {} bytes); late listeners miss "
                        + "the oldest events", thread.id(), maxEvents, maxBytes);
            }
        }
    }

    private void accumulate(ServerNotification n) {
        if (n instanceof ServerNotification.ItemAgentMessageDelta d) {
            AgentMessageDeltaNotification p = d.params();
            agentText.computeIfAbsent(p.itemId(), k -> new StringBuilder()).append(p.delta());
            lastAgentItemId = p.itemId();
        } else if (n instanceof ServerNotification.ItemCompleted c) {
            ItemCompletedNotification p = c.params();
            completedItems.add(p.item());
            if (p.item() instanceof ThreadItem.AgentMessage m) {
                lastCompletedAgentText = m.text();
                lastAgentItemId = m.id();
                agentText.remove(m.id());
            }
        } else if (n instanceof ServerNotification.ItemStarted s) {
            ItemStartedNotification p = s.params();
            if (p.item() instanceof ThreadItem.AgentMessage m) {
                lastAgentItemId = m.id();
            }
        } else if (n instanceof ServerNotification.ThreadTokenUsageUpdated u) {
            ThreadTokenUsageUpdatedNotification p = u.params();
            usage = p.tokenUsage();
            if (events != null) {
                events.usage(usage);
            }
        } else if (n instanceof ServerNotification.TurnDiffUpdated d) {
            lastDiff = d.params().diff();
        } else if (n instanceof ServerNotification.TurnPlanUpdated p) {
            lastPlan = p.params().plan();
        } else if (n instanceof ServerNotification.Error e) {
            ErrorNotification p = e.params();
            if (!Boolean.TRUE.equals(p.willRetry())) {
                lastError = p.error();
            }
        }
    }

    private void finish(TurnCompletedNotification completed) {
        Turn turn = completed.turn();
        // A missing status reads as a value this SDK does not know (its known() is UNRECOGNIZED), as a new one would.
        TurnStatus status = turn == null || turn.status() == null ? TurnStatus.of("") : turn.status();
        TurnError error = turn != null && turn.error() != null ? turn.error() : lastError;
        complete(status, turn, error, false);
    }

    private String finalText() {
        // A message still streaming when the turn ended (e.g. interrupted) is newer than any completed one.
        if (lastAgentItemId != null && agentText.containsKey(lastAgentItemId)) {
            return agentText.get(lastAgentItemId).toString();
        }
        return lastCompletedAgentText == null ? "" : lastCompletedAgentText;
    }

    /** Completes the handle (once). Runs on the lane. */
    void complete(TurnStatus status, Turn turn, TurnError error, boolean stalled) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        stopTimers();
        List<ThreadItem> items = completedItems;
        if (items.isEmpty() && turn != null && turn.items() != null) {
            items = turn.items();
        }
        String turnId = id != null ? id : turn != null ? turn.id() : null;
        TurnResult r = new TurnResult(thread.id(), turnId, status, turn, finalText(), items, usage, lastDiff,
                lastPlan, error, deadlineExceeded, stalled, client.redactor());
        if (events != null) {
            // The failure as the result's orThrow() gives it; an interruption keeps the error it had, if any.
            boolean failed = status == TurnStatus.FAILED || (status != TurnStatus.COMPLETED && error != null);
            events.ended(status, failed ? Optional.of(r.failure()) : Optional.empty(), usage);
        }
        leaveRouter();
        // Nothing more comes: let go of the listeners (a listener added later gets the replay only).
        listeners.closeAll();
        // Completed off the lane so callers' continuations never hold up this thread's events.
        client.runCallback(() -> result.complete(r));
    }

    /** The server reports the turn as over though its turn/completed never came (watchdog). Runs on the lane. */
    void completeFromServer(Turn turn) {
        complete(turn.status(), turn, turn.error() != null ? turn.error() : lastError, false);
    }

    /** The server never settled the turn after an interrupt: give up waiting. Runs on the lane. */
    void stall() {
        complete(TurnStatus.INTERRUPTED, null, lastError, true);
    }

    /**
     * The turn can no longer complete: its start failed, the connection ended, or the client let go of its thread
     * (closed by the server, archived, unsubscribed). Any thread.
     */
    void fail(Throwable cause) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        stopTimers();
        if (events != null) {
            events.ended(TurnStatus.FAILED, Optional.of(cause instanceof CodexException ce ? ce
                    : new CodexException("the turn could not complete: " + cause, cause)), usage);
        }
        leaveRouter();
        client.runCallback(() -> result.completeExceptionally(cause));
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
    private void leaveRouter() {
        router.turnEnded(this);
        client.held().unhold(router);
    }

    @Override
    public String toString() {
        return "CodexTurn[" + thread.id() + "/" + (id != null ? id : "starting") + "]";
    }
}

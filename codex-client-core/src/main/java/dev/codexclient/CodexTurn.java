package dev.codexclient;

import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.internal.Durations;
import dev.codexclient.internal.session.TurnState;
import dev.codexclient.protocol.AgentMessageDeltaNotification;
import dev.codexclient.protocol.CommandExecutionOutputDeltaNotification;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.protocol.TurnDiffUpdatedNotification;
import dev.codexclient.protocol.TurnPlanUpdatedNotification;
import dev.codexclient.protocol.TurnSteerResponse;
import dev.codexclient.protocol.UserInput;
import dev.codexclient.telemetry.TokenCounts;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Consumer;

/**
 * A running turn: its ordered event stream, typed listeners, steering and interruption, and its result.
 *
 * <pre>{@code
 * CodexTurn turn = thread.startTurn("Run the tests and fix what fails");
 * turn.onAgentMessageDelta(delta -> System.out.print(delta.delta()));
 * TurnResult result = turn.await(Duration.ofMinutes(10));
 * }</pre>
 *
 * <p>Events are delivered in wire order on the thread's delivery lane (see the threading guide, docs/threading.md;
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
    private final CodexThread thread;
    /** The turn's engine: routing, listeners and replay, steering, timers, waits, its end. */
    private final TurnState state;
    /** The result, made once from the engine's end. */
    private volatile TurnResult result;

    CodexTurn(CodexThread thread, TurnState state) {
        this.thread = thread;
        this.state = state;
    }

    /** {@return the turn id, as the server assigned it} */
    public String id() {
        return state.boundIdOrThrow();
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
     * @param listener called with each event, on the thread's delivery lane; it may call back into the client
     * @return the subscription, whose {@code close()} removes the listener
     */
    public Subscription onEvent(Consumer<? super ServerNotification> listener) {
        Objects.requireNonNull(listener, "listener");
        return state.subscribe(listener, listener);
    }

    /**
     * Agent message text as it streams ({@code item/agentMessage/delta}), replaying what already arrived.
     *
     * @param listener called with each delta, in wire order, on the thread's delivery lane
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
     * @param listener called with each item, in wire order, on the thread's delivery lane
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
     * @param listener called with each item, in wire order, on the thread's delivery lane
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
     * @param listener called with each chunk of output, in wire order, on the thread's delivery lane
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
     * @param listener called with each update, in wire order, on the thread's delivery lane
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
     * @param listener called with each update, in wire order, on the thread's delivery lane
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
     * @param listener called with the usage after each update, in wire order, on the thread's delivery lane
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
     * {@return the tokens the turn has spent so far, by kind, or empty before its first usage report} The same count
     * as {@link TurnResult#tokens()} at the end (see {@link TokenCounts}); read from a token-usage listener, it
     * includes that report.
     */
    public Optional<TokenCounts> tokens() {
        return Optional.ofNullable(state.tokens());
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
        return new TurnEventStream(state.events(null));
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
        return new TurnEventStream(state.events(Durations.positive(timeout, "timeout")));
    }

    /**
     * The turn's events as a {@link Flow.Publisher}, for Reactor, Kotlin coroutines, RxJava, Mutiny or any
     * Reactive Streams consumer. Each subscriber gets the turn's events in wire order from its start (replayed, as
     * far as the client's {@link CodexClientBuilder#turnReplayLimit replay buffer} reaches, then live) and then
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
     * wait in the subscription's buffer; when more than {@link CodexClientBuilder#publisherBufferSize(int)} live
     * events wait there (the replayed ones do not count: the turn keeps them anyway), the subscription ends with
     * {@link dev.codexclient.errors.CodexBackpressureException}, at once, without waiting for demand. The connection is never slowed down and no
     * event is dropped in silence ({@link CodexClientBuilder#publisherOverflow} with
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
        return state.publisher();
    }

    // ------------------------------------------------------------------------------------------------ control

    /**
     * Adds input to the running turn ({@code turn/steer}), waiting at most the request timeout for the server to take
     * it.
     *
     * @param text the user's message to add
     * @return the server's answer
     * @throws dev.codexclient.errors.CodexRpcException when the turn is no longer running
     */
    public TurnSteerResponse steer(String text) {
        return steer(List.of(Inputs.text(text)));
    }

    /**
     * Adds input to the running turn ({@code turn/steer}), waiting at most the request timeout for the server to take
     * it.
     *
     * @param input the inputs to add, in order (see {@link Inputs})
     * @return the server's answer
     * @throws dev.codexclient.errors.CodexRpcException when the turn is no longer running
     */
    public TurnSteerResponse steer(List<UserInput> input) {
        Objects.requireNonNull(input, "input");
        return state.steer(input).join();
    }

    /**
     * {@link #steer(String)} without blocking.
     *
     * @param text the user's message to add
     * @return a future of the server's answer; it fails with a {@link dev.codexclient.errors.CodexRpcException}
     *         when the turn is no longer running
     */
    public CompletableFuture<TurnSteerResponse> steerAsync(String text) {
        return steerAsync(List.of(Inputs.text(text)));
    }

    /**
     * {@link #steer(List)} without blocking.
     *
     * @param input the inputs to add, in order (see {@link Inputs})
     * @return a future of the server's answer; it fails with a {@link dev.codexclient.errors.CodexRpcException}
     *         when the turn is no longer running
     */
    public CompletableFuture<TurnSteerResponse> steerAsync(List<UserInput> input) {
        Objects.requireNonNull(input, "input");
        return state.steer(input).async();
    }

    /**
     * Interrupts the turn and waits for it to end, at most {@code timeout}: the turn normally completes with status
     * {@code INTERRUPTED} once codex has stopped it; if the server never settles it, the client's grace period
     * completes it as {@link TurnResult#stalled() stalled}. Interrupting a turn that has ended returns its result.
     *
     * @param timeout the longest wait for the turn's end
     * @return the turn's result
     * @throws CodexTimeoutException  when the turn is still running after {@code timeout} (the interrupt stands)
     * @throws CodexDeadlockException when called on the turn's own delivery lane, like {@link #await(Duration)}
     */
    public TurnResult interrupt(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        return state.interrupting().map(this::resultOf).await(timeout);
    }

    /**
     * Asks the server to interrupt the turn, without blocking. The returned future is the turn's result: it completes
     * when {@code turn/completed} arrives (normally with status {@code INTERRUPTED}), or after the client's grace
     * period with a {@link TurnResult#stalled() stalled} result if the server never settles the turn. Interrupting a
     * turn that has ended does nothing.
     *
     * @return the turn's result, like {@link #result()}
     */
    public CompletableFuture<TurnResult> interruptAsync() {
        return state.interrupting().map(this::resultOf).future();
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
        state.deadline(timeout);
        return this;
    }

    /**
     * Watches the turn for silence: when no event arrives for {@code idle}, the client reads the thread
     * ({@code thread/read} with turns); if the server reports the turn as over, the handle completes from that
     * report, otherwise the turn is {@link #interruptAsync() interrupted} and completes as
     * {@link TurnResult#stalled() stalled} if it still does not settle within the client's grace period.
     * Replaces the client's default ({@link CodexClientBuilder#turnWatchdog(Duration)}) for this turn.
     *
     * @param idle the longest silence the turn may have, positive
     * @return this turn
     * @throws IllegalArgumentException when {@code idle} is zero or negative
     */
    public CodexTurn watchdog(Duration idle) {
        state.watchdog(Durations.positive(idle, "watchdog idle time"));
        return this;
    }

    // ------------------------------------------------------------------------------------------------ results

    /**
     * Completes when the turn ends, on the callback executor, and not before the listeners added before this call
     * have been handed the events the turn already saw (their replay). Completes exceptionally only when the turn
     * can no longer end normally: the connection was lost, or the client let go of the thread (closed by the server,
     * archived, unsubscribed). Its {@code get()} and {@code join()} fail like {@link #await} on the turn's own
     * delivery lane.
     *
     * @return a future of the turn's result; each call returns a new future, so cancelling one changes nothing
     *         for the turn
     */
    public CompletableFuture<TurnResult> result() {
        return state.end().map(this::resultOf).future();
    }

    /** {@return whether the turn has ended, its result then being available at once} */
    public boolean isDone() {
        return state.isDone();
    }

    /**
     * Waits for the turn to end and returns its result, whatever its status; use {@link TurnResult#orThrow()} to
     * turn a failure into an exception. Returns after the listeners added before the call have been handed the
     * events the turn already saw, so a listener that prints deltas has printed them all. {@link #result()} is the
     * non-blocking twin.
     *
     * @param timeout the longest wait
     * @return the turn's result
     * @throws CodexTimeoutException when the turn is still running after {@code timeout} (it keeps running)
     * @throws CodexDeadlockException when called on the turn's own delivery lane (in a listener of its thread, or
     *         a client listener handling one of its events), where the turn cannot complete while it waits
     */
    public TurnResult await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        return state.end().map(this::resultOf).await(timeout);
    }

    /** The turn's result, made from its end once: every wait for it gives the same object. */
    private TurnResult resultOf(TurnState.End end) {
        TurnResult r = result;
        if (r == null) {
            synchronized (this) {
                r = result;
                if (r == null) {
                    r = TurnResult.of(end);
                    result = r;
                }
            }
        }
        return r;
    }

    /** For diagnostics: how many listeners this turn delivers to. */
    int listenerCount() {
        return state.listenerCount();
    }

    @Override
    public String toString() {
        String turnId = state.id();
        return "CodexTurn[" + thread.id() + "/" + (turnId != null ? turnId : "starting") + "]";
    }
}

package dev.codexclient;

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
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * <p>Events are delivered in wire order on the client's callback executor (never on the connection's reader
 * thread). Nothing is missed by attaching a listener after {@code startTurn} returns: the events the turn has
 * already seen, including those that arrived before the {@code turn/start} response, are replayed to each new
 * listener first (up to the client's replay limit).
 */
public final class CodexTurn {
    private static final Logger LOG = LoggerFactory.getLogger(CodexTurn.class);

    private final CodexThread thread;
    private final CodexClient client;
    private final CompletableFuture<String> id = new CompletableFuture<>();
    private final CompletableFuture<TurnResult> result = new CompletableFuture<>();
    /** Completes with the first event of the turn: codex rejects an interrupt sent before the turn is running. */
    private final CompletableFuture<Void> running = new CompletableFuture<>();

    // Everything below is touched only from the thread's delivery lane (see CodexThread), hence no locking.
    private final ArrayDeque<ServerNotification> replay = new ArrayDeque<>();
    private long droppedFromReplay;
    private final List<Consumer<ServerNotification>> listeners = new CopyOnWriteArrayList<>();
    private final List<ThreadItem> completedItems = new ArrayList<>();
    private final Map<String, StringBuilder> agentText = new LinkedHashMap<>();
    private String lastAgentItemId;
    private String lastCompletedAgentText;
    private ThreadTokenUsage usage;
    private String lastDiff;
    private List<TurnPlanStep> lastPlan;
    private TurnError lastError;

    private volatile boolean deadlineExceeded;
    private volatile Scheduler.Task deadlineTask;
    private volatile TurnWatchdog watchdog;
    /** Lane-confined: the handle was completed (its future completes asynchronously, so isDone() lags). */
    private boolean settled;

    CodexTurn(CodexThread thread, CodexClient client) {
        this.thread = thread;
        this.client = client;
    }

    /** The turn id; blocks until the server has assigned it (normally already done when you hold the handle). */
    public String id() {
        return client.await(id, "the id of a turn of thread " + thread.id());
    }

    /** Completes with the turn id once the server has assigned it. */
    public CompletableFuture<String> idFuture() {
        return id.copy();
    }

    public CodexThread thread() {
        return thread;
    }

    public String threadId() {
        return thread.id();
    }

    // ------------------------------------------------------------------------------------------------ listeners

    /** Every event of this turn, in wire order, replaying what already arrived. */
    public Subscription onEvent(Consumer<? super ServerNotification> listener) {
        Objects.requireNonNull(listener, "listener");
        Consumer<ServerNotification> l = listener::accept;
        thread.onLane(() -> {
            for (ServerNotification n : replay) {
                deliver(l, n);
            }
            listeners.add(l);
        });
        return () -> listeners.remove(l);
    }

    /** Agent message text as it streams ({@code item/agentMessage/delta}). */
    public Subscription onAgentMessageDelta(Consumer<? super AgentMessageDeltaNotification> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.ItemAgentMessageDelta d) {
                listener.accept(d.params());
            }
        });
    }

    /** Items as they start ({@code item/started}). */
    public Subscription onItemStarted(Consumer<? super ThreadItem> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.ItemStarted s) {
                listener.accept(s.params().item());
            }
        });
    }

    /** Items as they complete ({@code item/completed}), with their final state. */
    public Subscription onItemCompleted(Consumer<? super ThreadItem> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.ItemCompleted c) {
                listener.accept(c.params().item());
            }
        });
    }

    /** Command output as it streams ({@code item/commandExecution/outputDelta}). */
    public Subscription onCommandOutputDelta(Consumer<? super CommandExecutionOutputDeltaNotification> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.ItemCommandExecutionOutputDelta d) {
                listener.accept(d.params());
            }
        });
    }

    /** Plan updates ({@code turn/plan/updated}). */
    public Subscription onPlanUpdated(Consumer<? super TurnPlanUpdatedNotification> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.TurnPlanUpdated p) {
                listener.accept(p.params());
            }
        });
    }

    /** The turn's aggregated diff whenever it changes ({@code turn/diff/updated}). */
    public Subscription onDiffUpdated(Consumer<? super TurnDiffUpdatedNotification> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.TurnDiffUpdated d) {
                listener.accept(d.params());
            }
        });
    }

    /** Token usage updates ({@code thread/tokenUsage/updated}). */
    public Subscription onTokenUsage(Consumer<? super ThreadTokenUsage> listener) {
        return onEvent(n -> {
            if (n instanceof ServerNotification.ThreadTokenUsageUpdated u) {
                listener.accept(u.params().tokenUsage());
            }
        });
    }

    /**
     * The turn's events as a blocking iterable, in wire order, ending after {@code turn/completed} (or when the
     * turn otherwise settles). Each call starts a new iteration from the first event still in the replay buffer.
     */
    public Iterable<ServerNotification> events() {
        return () -> {
            BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
            Object end = new Object();
            Subscription s = onEvent(queue::add);
            result.whenComplete((r, e) -> thread.onLane(() -> queue.add(end)));
            return new Iterator<>() {
                private Object next;

                @Override
                public boolean hasNext() {
                    if (next == null) {
                        try {
                            next = queue.take();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new CodexException("interrupted while waiting for turn events", e);
                        }
                    }
                    if (next == end) {
                        s.close();
                        return false;
                    }
                    return true;
                }

                @Override
                public ServerNotification next() {
                    if (!hasNext()) {
                        throw new NoSuchElementException();
                    }
                    ServerNotification n = (ServerNotification) next;
                    next = null;
                    return n;
                }
            };
        };
    }

    // ------------------------------------------------------------------------------------------------ control

    /** Adds input to the running turn ({@code turn/steer}). */
    public CompletableFuture<TurnSteerResponse> steer(String text) {
        return steer(List.of(Inputs.text(text)));
    }

    /** Adds input to the running turn ({@code turn/steer}). */
    public CompletableFuture<TurnSteerResponse> steer(List<UserInput> input) {
        return id.thenCompose(turnId -> client.rpc().turnSteer(TurnSteerParams.builder()
                .threadId(thread.id()).expectedTurnId(turnId).input(List.copyOf(input)).build()));
    }

    /**
     * Asks the server to interrupt the turn. The returned future is the turn's result: it completes when
     * {@code turn/completed} arrives (normally with status {@code INTERRUPTED}), or after the client's grace period
     * with a {@link TurnResult#stalled() stalled} result if the server never settles the turn.
     */
    public CompletableFuture<TurnResult> interrupt() {
        if (!result.isDone()) {
            // turn/start can answer before the turn runs; an interrupt in that window is refused with
            // "no active turn to interrupt", so wait (boundedly) for the turn's first event.
            running.copy().completeOnTimeout(null, 2, TimeUnit.SECONDS)
                    .thenCompose(x -> id)
                    .thenCompose(turnId -> client.rpc().turnInterrupt(TurnInterruptParams.builder()
                            .threadId(thread.id()).turnId(turnId).build()))
                    .whenComplete((r, e) -> {
                        if (e != null && !result.isDone()) {
                            LOG.debug("turn/interrupt failed for {}: {}", thread.id(), e.toString());
                        }
                    });
            client.scheduleGrace(this);
        }
        return result.copy();
    }

    /**
     * Interrupts the turn when {@code timeout} passes before it completes; its result then reports
     * {@link TurnResult#deadlineExceeded()}.
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

    /** Completes when the turn ends. Completes exceptionally only when the connection is lost. */
    public CompletableFuture<TurnResult> result() {
        return result.copy();
    }

    public boolean isDone() {
        return result.isDone();
    }

    /**
     * Waits for the turn to end and returns its result, whatever its status; use {@link TurnResult#orThrow()} to
     * turn a failure into an exception.
     *
     * @throws CodexTimeoutException when the turn is still running after {@code timeout} (it keeps running)
     */
    public TurnResult await(Duration timeout) {
        try {
            return result.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw CodexTimeoutException.waitingFor("completion of a turn of thread " + thread.id(), timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CodexException("interrupted while waiting for a turn", e);
        } catch (ExecutionException e) {
            throw CodexClient.rethrow(e.getCause());
        }
    }

    // ------------------------------------------------------------------------------------------------ lane side

    /** Called by the thread (on its lane) when the server told us the turn id. */
    void bind(String turnId) {
        id.complete(turnId);
    }

    boolean isBound() {
        return id.isDone() && !id.isCompletedExceptionally();
    }

    String boundId() {
        return id.getNow(null);
    }

    /** Called on the thread's lane for every event of this turn, in wire order. */
    void accept(ServerNotification n) {
        running.complete(null);
        TurnWatchdog w = watchdog;
        if (w != null) {
            w.touch();
        }
        accumulate(n);
        replay.add(n);
        int limit = client.replayLimit();
        while (replay.size() > limit) {
            replay.poll();
            if (droppedFromReplay++ == 0) {
                LOG.debug("turn of thread {} exceeded the replay limit of {} events; late listeners miss the oldest",
                        thread.id(), limit);
            }
        }
        for (Consumer<ServerNotification> l : listeners) {
            deliver(l, n);
        }
        if (n instanceof ServerNotification.TurnCompleted c) {
            finish(c.params());
        }
    }

    private static void deliver(Consumer<ServerNotification> l, ServerNotification n) {
        try {
            l.accept(n);
        } catch (RuntimeException e) {
            LOG.warn("A turn listener threw; other listeners still get the event", e);
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
        TurnStatus status = turn == null || turn.status() == null ? TurnStatus.UNRECOGNIZED : turn.status();
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
        if (settled || result.isDone()) {
            return;
        }
        settled = true;
        Scheduler.Task d = deadlineTask;
        if (d != null) {
            d.cancel();
        }
        TurnWatchdog w = watchdog;
        if (w != null) {
            w.stop();
        }
        List<ThreadItem> items = completedItems;
        if (items.isEmpty() && turn != null && turn.items() != null) {
            items = turn.items();
        }
        String turnId = id.isDone() && !id.isCompletedExceptionally() ? id.join()
                : turn != null ? turn.id() : "";
        TurnResult r = new TurnResult(thread.id(), turnId == null ? "" : turnId, status, turn, finalText(), items,
                usage, lastDiff, lastPlan, error, deadlineExceeded, stalled);
        thread.turnEnded(this);
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

    /** The connection ended under the turn. */
    void fail(Throwable cause) {
        TurnWatchdog w = watchdog;
        if (w != null) {
            w.stop();
        }
        id.completeExceptionally(cause);
        result.completeExceptionally(cause);
    }

    @Override
    public String toString() {
        return "CodexTurn[" + thread.id() + "/" + (isBound() ? boundId() : "starting") + "]";
    }
}

package dev.codexclient.internal.session;

import dev.codexclient.internal.rpc.Callbacks;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.ThreadReadParams;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.TurnStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches one turn for silence. Codex can lose a turn's {@code turn/completed} (a crashed sub-task, a dropped
 * subscription) or hang on a model stream that never ends; without a watchdog the caller waits forever.
 *
 * <p>When the turn has seen no event for the idle time, the watchdog asks the server for the truth (the thread's
 * latest turns, {@code thread/turns/list}, where the server has it; else {@code thread/read} with turns): a turn
 * the server reports as over is completed from that report; a turn still
 * running (or one the server cannot report on) is interrupted, and the client's interrupt grace period then
 * completes it as stalled ({@code TurnResult#stalled()}) if {@code turn/completed} still does not come.
 *
 * <p>Threading: {@link #touch()} is called on the thread's lane for every event; the checks run on the client's
 * scheduler and the read's completion; the handle is only ever completed on the lane.
 */
final class TurnWatchdog {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(TurnWatchdog.class);
    }

    /** The least time the thread/read of a check may take; codex reads the rollout from disk for it. */
    private static final Duration MIN_READ_TIMEOUT = Duration.ofSeconds(5);
    /** How many of the thread's newest turns a check asks for: the watched one is the newest, but for a race. */
    static final int LATEST_TURNS = 4;

    private final RoutedTurn turn;
    private final Scheduler scheduler;
    private final Calls calls;
    private final Callbacks callbacks;
    /** What the server of the moment can list of a thread's turns. */
    private final Supplier<TurnPaging> paging;
    private final Duration idle;
    private final AtomicBoolean fired = new AtomicBoolean();
    private volatile long lastEventNanos;
    private volatile Scheduler.Task check;
    private volatile boolean stopped;

    /**
     * @param turn      the turn to watch
     * @param scheduler times the checks
     * @param calls     reads the thread
     * @param callbacks the lanes a turn is completed on
     * @param paging    what the server of the moment can list of a thread's turns
     * @param idle      the longest silence the turn may have
     */
    TurnWatchdog(RoutedTurn turn, Scheduler scheduler, Calls calls, Callbacks callbacks, Supplier<TurnPaging> paging,
                 Duration idle) {
        this.turn = turn;
        this.scheduler = scheduler;
        this.calls = calls;
        this.callbacks = callbacks;
        this.paging = paging;
        this.idle = idle;
        this.lastEventNanos = scheduler.nanoTime();
    }

    /** Starts watching. */
    void start() {
        scheduleCheck(idle.toNanos());
    }

    /** An event of the turn arrived: the turn is alive. */
    void touch() {
        lastEventNanos = scheduler.nanoTime();
    }

    /** The turn settled (or another watchdog replaced this one): no further checks. */
    void stop() {
        stopped = true;
        Scheduler.Task c = check;
        if (c != null) {
            c.cancel();
        }
    }

    private void scheduleCheck(long delayNanos) {
        if (stopped || turn.isDone()) {
            return;
        }
        try {
            check = scheduler.schedule(this::check, Duration.ofNanos(Math.max(1, delayNanos)));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // The client is closing; the connection's end fails the turn instead.
        }
    }

    private void check() {
        if (stopped || turn.isDone()) {
            return;
        }
        long silent = scheduler.nanoTime() - lastEventNanos;
        if (silent < idle.toNanos()) {
            // Events arrived since this check was scheduled: look again when the idle time would end.
            scheduleCheck(idle.toNanos() - silent);
            return;
        }
        long silenceStarted = lastEventNanos;
        Log.LOG.debug("{} saw no event for {} ms; reading the thread", turn, idle.toMillis());
        String turnId = turn.boundId();
        Calls bounded = calls.withTimeout(readTimeout());
        TurnPaging pages = paging.get();
        // The turn is the thread's newest, or nearly: its latest turns cost the same whatever the thread's history;
        // reading the whole thread is what is left when they do not have it (or the server has no such list).
        CompletableFuture<Optional<Turn>> onServer = !pages.available() ? read(bounded, turnId)
                : bounded.threadTurnsList(pages.latest(turn.threadId(), LATEST_TURNS))
                        .thenApply(page -> find(page.data(), turnId))
                        .exceptionally(e -> Optional.empty())
                        .thenCompose(found -> found.isPresent() ? CompletableFuture.completedFuture(found)
                                : read(bounded, turnId));
        onServer.whenComplete((found, error) -> {
                    if (error != null) {
                        Log.LOG.debug("thread/read for the watchdog of {} failed: {}", turn,
                                RpcConnection.unwrap(error).toString());
                    }
                    decide(found == null ? Optional.empty() : found, silenceStarted);
                });
    }

    /**
     * A server that hangs altogether would otherwise hold the check for the full request timeout (a minute by
     * default) before the interrupt is even tried.
     */
    private Duration readTimeout() {
        Duration t = idle.compareTo(MIN_READ_TIMEOUT) > 0 ? idle : MIN_READ_TIMEOUT;
        Duration max = calls.timeout();
        return t.compareTo(max) < 0 ? t : max;
    }

    private CompletableFuture<Optional<Turn>> read(Calls bounded, String turnId) {
        ThreadReadParams read = ThreadReadParams.builder().threadId(turn.threadId()).includeTurns(true).build();
        return bounded.threadRead(read).thenApply(r -> find(r.thread() == null ? null : r.thread().turns(), turnId));
    }

    private static Optional<Turn> find(List<Turn> turns, String turnId) {
        if (turns == null) {
            return Optional.empty();
        }
        return turns.stream().filter(t -> turnId.equals(t.id())).findFirst();
    }

    private void decide(Optional<Turn> onServer, long silenceStarted) {
        if (stopped || turn.isDone()) {
            return;
        }
        Optional<Turn> over = onServer.filter(t -> t.status() != null && t.status() != TurnStatus.IN_PROGRESS);
        if (over.isPresent()) {
            // The server finished the turn but we never heard turn/completed: settle from its report. On the
            // lane, so a turn/completed that raced the read still wins if it got there first.
            Log.LOG.warn("{} is {} on the server but its turn/completed never arrived; completing it from thread/read",
                    turn, over.get().status());
            callbacks.onLane(turn.threadId(), () -> turn.completeFromServer(over.get()));
            return;
        }
        if (lastEventNanos != silenceStarted) {
            // The turn spoke while we were reading: it is alive after all.
            scheduleCheck(idle.toNanos());
            return;
        }
        if (fired.compareAndSet(false, true)) {
            Log.LOG.warn("{} saw no event for {} ms and is {} on the server; interrupting it", turn, idle.toMillis(),
                    onServer.map(t -> String.valueOf(t.status())).orElse("unknown"));
            // interrupt() schedules the grace period after which the handle completes as stalled.
            turn.interrupt();
        }
    }
}

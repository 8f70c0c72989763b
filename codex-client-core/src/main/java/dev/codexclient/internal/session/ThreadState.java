package dev.codexclient.internal.session;

import dev.codexclient.internal.rpc.Callbacks;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadStatus;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.TurnStatus;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the client keeps for a codex thread it holds: the thread's listeners and the turns being started or running
 * on it, with the routing of each event to its turn. The client holds a thread only while something needs it (a
 * turn starting or running, a thread listener); then it lets go of this state, so a client that runs thousands of
 * threads keeps state for the busy ones only (see {@link HeldThreads}).
 *
 * <p>Threading: {@link #dispatch} runs on the thread's delivery lane; {@link #starting}, {@link #claim} and
 * {@link #startFailed} run on the threads that start turns (any thread, listeners included). They share the turn
 * tables under this object's lock, held only to look up or update them, never while user code runs, so starting a
 * turn never waits for the lane: a listener may start the next turn of its own thread.
 *
 * <p>Events of a turn that arrive before the {@code turn/start} response names it are held ("unclaimed") while a
 * turn is starting, then handed to the turn ahead of any later event when it is claimed. The hold is bounded in
 * events and bytes.
 */
public final class ThreadState {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(ThreadState.class);
    }

    private static final int MAX_UNCLAIMED_EVENTS = 10_000;

    /** An event held for a turn not yet claimed. */
    public record Held(String turnId, ServerNotification event, int bytes) {
    }

    final String id;
    /** What every handle of the thread wraps while the client holds it. */
    final ThreadLink link;
    private final Listeners<ServerNotification> listeners = new Listeners<>("thread");
    /** How many things hold the thread; changed only inside the client's map operations on this id. */
    int holds;

    private final Callbacks callbacks;
    private final long maxUnclaimedBytes;
    // Guarded by this.
    private final Map<String, RoutedTurn> turns = new HashMap<>();
    private final List<RoutedTurn> starting = new ArrayList<>();
    private final ArrayDeque<Held> unclaimed = new ArrayDeque<>();
    private long unclaimedBytes;
    private boolean closed;

    ThreadState(Callbacks callbacks, ThreadLink link, long maxUnclaimedBytes) {
        this.callbacks = callbacks;
        this.link = link;
        this.id = link.id();
        this.maxUnclaimedBytes = maxUnclaimedBytes;
    }

    /** Routes one event of this thread to the thread's listeners and to its turn. Runs on the lane. */
    void dispatch(String turnId, ServerNotification event, int bytes) {
        listeners.deliver(event);
        if (turnId == null) {
            return;
        }
        RoutedTurn turn;
        synchronized (this) {
            turn = turns.get(turnId);
            if (turn == null) {
                turn = claimAnswered(turnId);
            }
            if (turn == null) {
                if (!starting.isEmpty()) {
                    hold(new Held(turnId, event, bytes));
                }
                return;
            }
        }
        turn.accept(event, bytes);
    }

    /**
     * The starting turn whose {@code turn/start} response names {@code turnId} and is in, though whoever started the
     * turn has not claimed it yet, claimed here, on the lane; null when there is none.
     *
     * <p>Why: the reader thread settles the response before it hands any later line to a lane, but the claim runs
     * on the thread that waited for the response, which may wake long after the lane has run the turn's next events.
     * Held as unclaimed, those would count against the hold's bound and, for a turn that streams a lot at once, be
     * dropped; claimed here, they go to the turn. (The start records its response's future just after sending the
     * request; a response read in that instant leaves the claim to the starter, as before.)
     */
    private RoutedTurn claimAnswered(String turnId) {
        for (RoutedTurn t : starting) {
            if (turnId.equals(t.answeredId())) {
                bindHeld(t, turnId);
                return t;
            }
        }
        return null;
    }

    /** Routes to {@code turn} as {@code turnId} from now on and binds it with the events held for it. */
    private void bindHeld(RoutedTurn turn, String turnId) {
        starting.remove(turn);
        turns.put(turnId, turn);
        List<Held> early = new ArrayList<>();
        Iterator<Held> it = unclaimed.iterator();
        while (it.hasNext()) {
            Held h = it.next();
            if (turnId.equals(h.turnId())) {
                it.remove();
                unclaimedBytes -= h.bytes();
                early.add(h);
            }
        }
        turn.bind(turnId, early);
        dropUnclaimedIfIdle();
    }

    private void hold(Held held) {
        unclaimed.add(held);
        unclaimedBytes += held.bytes();
        while (unclaimed.size() > MAX_UNCLAIMED_EVENTS || unclaimedBytes > maxUnclaimedBytes) {
            Held dropped = unclaimed.poll();
            unclaimedBytes -= dropped.bytes();
            Log.LOG.debug("thread {} holds too many events for turns not yet started; dropping the oldest", id);
        }
    }

    /**
     * A turn is about to be started: events of turns this thread does not know yet are held from now on. False
     * when the thread was let go of forcibly (closed by the server, archived, unsubscribed) in the meantime.
     */
    public synchronized boolean starting(RoutedTurn turn) {
        if (closed) {
            return false;
        }
        starting.add(turn);
        return true;
    }

    /**
     * The {@code turn/start} response named the turn: it is routed to from now on, and the events held for it are
     * handed to it to be delivered before any later one. False when the thread was let go of meanwhile.
     */
    public boolean claim(RoutedTurn turn, String turnId) {
        synchronized (this) {
            if (closed) {
                return false;
            }
            if (turn.boundId() != null) {
                // The lane claimed it already, meeting one of its events after the response (claimAnswered); it
                // may even have ended since, and must not be routed to again.
                return true;
            }
            bindHeld(turn, turnId);
        }
        // If no event of the turn comes after the response (a turn that is already over), this delivers the early
        // ones; otherwise the next event does, first.
        callbacks.onLane(id, turn::deliverEarly);
        return true;
    }

    /** The turn/start request failed: the turn is not routed to. */
    public synchronized void startFailed(RoutedTurn turn) {
        starting.remove(turn);
        dropUnclaimedIfIdle();
    }

    private void dropUnclaimedIfIdle() {
        if (starting.isEmpty() && !unclaimed.isEmpty()) {
            Log.LOG.debug("dropping {} events of thread {} for turns this client did not start", unclaimed.size(), id);
            unclaimed.clear();
            unclaimedBytes = 0;
        }
    }

    /** The turn settled: nothing more is routed to it. */
    public synchronized void turnEnded(RoutedTurn turn) {
        String turnId = turn.boundId();
        if (turnId != null) {
            turns.remove(turnId, turn);
        }
    }

    /**
     * The client let go of the thread for good (closed by the server, archived, unsubscribed, the connection
     * ended): fails the turns still starting or running with {@code cause} and closes the thread's listeners.
     */
    void close(Throwable cause) {
        List<RoutedTurn> open;
        synchronized (this) {
            closed = true;
            open = new ArrayList<>(turns.values());
            open.addAll(starting);
            turns.clear();
            starting.clear();
            unclaimed.clear();
            unclaimedBytes = 0;
        }
        for (RoutedTurn t : open) {
            t.fail(cause);
        }
        listeners.endAll(cause);
    }

    /**
     * The thread was resumed on a new connection, which reported it as {@code onServer}: each turn that was
     * running at the loss is settled from that report. A turn the server still runs (a server reached again, whose
     * thread is active) stays, and its events go on arriving; a turn the server finished meanwhile completes from
     * the report; any other (a new server, which lost it) fails with the failure {@code lost} makes for it
     * (thread id, turn id).
     */
    void reconcile(ThreadInfo onServer, BiFunction<String, String, ? extends Throwable> lost) {
        List<RoutedTurn> open;
        synchronized (this) {
            open = new ArrayList<>(turns.values());
        }
        boolean running = onServer.status() instanceof ThreadStatus.Active;
        for (RoutedTurn t : open) {
            String turnId = t.boundId();
            Turn reported = onServer.turns() == null ? null : onServer.turns().stream()
                    .filter(x -> x.id() != null && x.id().equals(turnId)).findFirst().orElse(null);
            TurnStatus status = reported == null ? null : reported.status();
            if (running && status == TurnStatus.IN_PROGRESS) {
                continue;
            }
            if (status == TurnStatus.COMPLETED || status == TurnStatus.FAILED) {
                // On the lane, so that a turn/completed that arrived meanwhile settles it first.
                callbacks.onLane(id, () -> t.completeFromServer(reported));
            } else {
                // Each failed turn leaves this thread's state itself (turnEnded).
                t.fail(lost.apply(id, turnId));
            }
        }
    }

    synchronized List<RoutedTurn> activeTurns() {
        return new ArrayList<>(turns.values());
    }

    /** {@return the listeners of the thread's events} */
    public Listeners<ServerNotification> listeners() {
        return listeners;
    }
}

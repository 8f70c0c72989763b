package dev.codexclient.internal.session;

import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadStatus;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.TurnStatus;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the client keeps for a codex thread it holds: the thread's listeners and the turns being started or running
 * on it, with the routing of each event to its turn. The client holds a thread only while something needs it (a
 * turn starting or running, a thread listener); then it lets go of this state, so a client that runs thousands of
 * threads keeps state for the busy ones only (see {@link HeldThreads}).
 *
 * <p>Threading: one owner, the thread's delivery lane. Every method but {@link #runningTurns} runs there (through
 * {@link HeldThreads}), so the turn tables need no lock: a turn registered as starting, the {@code turn/start}
 * response that binds it to its id (handed over on the lane, in its place in the wire order), the thread's events
 * and the turns' ends are all taken one after another, in the order the lane was given them.
 *
 * <p>Events of a turn this thread does not know yet are held while a turn is starting (they can only belong to
 * one whose {@code turn/start} response has not been read yet: it is read after them), then handed to the turn at
 * its binding, ahead of every later event. The hold is bounded in events and bytes.
 */
public final class ThreadState {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(ThreadState.class);
    }

    private static final int MAX_UNCLAIMED_EVENTS = 10_000;

    /** An event held for a turn whose start is not answered yet. */
    private record Held(String turnId, ServerNotification event, int bytes) {
    }

    final String id;
    /** What every handle of the thread wraps while the client holds it. */
    final ThreadLink link;
    private final Listeners<ServerNotification> listeners = new Listeners<>("thread");
    /** How many things hold the thread; changed only inside the client's map operations on this id. */
    int holds;

    private final long maxUnclaimedBytes;
    /** The turns bound to their ids. Written on the lane only; concurrent so that the count can be read anywhere. */
    private final Map<String, RoutedTurn> turns = new ConcurrentHashMap<>();
    // The lane's alone.
    private final List<RoutedTurn> starting = new ArrayList<>();
    private final ArrayDeque<Held> unclaimed = new ArrayDeque<>();
    private long unclaimedBytes;
    private boolean dropping;

    ThreadState(ThreadLink link, long maxUnclaimedBytes) {
        this.link = link;
        this.id = link.id();
        this.maxUnclaimedBytes = maxUnclaimedBytes;
    }

    /** Routes one event of this thread to the thread's listeners and to its turn. */
    void dispatch(String turnId, ServerNotification event, int bytes) {
        listeners.deliver(event);
        if (turnId == null) {
            return;
        }
        RoutedTurn turn = turns.get(turnId);
        if (turn != null) {
            turn.accept(event, bytes);
        } else if (!starting.isEmpty()) {
            hold(new Held(turnId, event, bytes));
        }
    }

    private void hold(Held held) {
        unclaimed.add(held);
        unclaimedBytes += held.bytes();
        while (unclaimed.size() > MAX_UNCLAIMED_EVENTS || unclaimedBytes > maxUnclaimedBytes) {
            Held dropped = unclaimed.poll();
            unclaimedBytes -= dropped.bytes();
            if (!dropping) {
                dropping = true;
                Log.LOG.warn("thread {} holds more events of turns whose start is not answered yet than its bound "
                        + "(the turn replay bytes); dropping the oldest", id);
            }
        }
    }

    /** A turn is about to be started: events of turns this thread does not know yet are held from now on. */
    void starting(RoutedTurn turn) {
        starting.add(turn);
    }

    /**
     * The {@code turn/start} response named {@code turn} {@code turnId}: it is routed to from now on, and the events
     * held for it are handed to it now, ahead of every later one. A turn no longer starting here (it failed
     * meanwhile) only gets its id.
     */
    void bind(RoutedTurn turn, String turnId) {
        if (!starting.remove(turn)) {
            turn.bound(turnId);
            return;
        }
        turns.put(turnId, turn);
        turn.bound(turnId);
        List<Held> early = new ArrayList<>();
        for (Iterator<Held> it = unclaimed.iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (turnId.equals(h.turnId())) {
                it.remove();
                unclaimedBytes -= h.bytes();
                early.add(h);
            }
        }
        for (Held h : early) {
            turn.accept(h.event(), h.bytes());
        }
        dropUnclaimedIfIdle();
    }

    /** {@return whether {@code turn} was starting or running here} It is not routed to from now on. */
    boolean remove(RoutedTurn turn) {
        String turnId = turn.boundId();
        boolean was = starting.remove(turn) || turnId != null && turns.remove(turnId, turn);
        dropUnclaimedIfIdle();
        return was;
    }

    private void dropUnclaimedIfIdle() {
        if (starting.isEmpty()) {
            if (!unclaimed.isEmpty()) {
                Log.LOG.debug("dropping {} events of thread {} for turns this client did not start", unclaimed.size(),
                        id);
                unclaimed.clear();
                unclaimedBytes = 0;
            }
            dropping = false;
        }
    }

    /**
     * The client let go of the thread for good (closed by the server, archived, unsubscribed, the connection
     * ended): fails the turns still starting or running with {@code cause} and closes the thread's listeners.
     */
    void close(Throwable cause) {
        List<RoutedTurn> open = new ArrayList<>(turns.values());
        open.addAll(starting);
        turns.clear();
        starting.clear();
        unclaimed.clear();
        unclaimedBytes = 0;
        for (RoutedTurn t : open) {
            t.fail(cause);
        }
        listeners.endAll(cause);
    }

    /**
     * The thread was resumed on a new connection, which reported it as {@code onServer}: each turn that was
     * running at the loss is settled from that report. A turn the server still runs (a server reached again, whose
     * thread is active) stays, and its events go on arriving; a turn the server finished meanwhile completes from
     * the report (unless a {@code turn/completed} the lane took first settled it); any other (a new server, which
     * lost it) fails with the failure {@code lost} makes for it (thread id, turn id).
     */
    void reconcile(ThreadInfo onServer, BiFunction<String, String, ? extends Throwable> lost) {
        boolean running = onServer.status() instanceof ThreadStatus.Active;
        for (RoutedTurn t : new ArrayList<>(turns.values())) {
            String turnId = t.boundId();
            Turn reported = onServer.turns() == null ? null : onServer.turns().stream()
                    .filter(x -> x.id() != null && x.id().equals(turnId)).findFirst().orElse(null);
            TurnStatus status = reported == null ? null : reported.status();
            if (running && status == TurnStatus.IN_PROGRESS) {
                continue;
            }
            if (status == TurnStatus.COMPLETED || status == TurnStatus.FAILED) {
                t.completeFromServer(reported);
            } else {
                // Each failed turn leaves this thread's state itself (HeldThreads#turnEnded).
                t.fail(lost.apply(id, turnId));
            }
        }
    }

    /** {@return how many turns are bound and running here} Any thread: a count of the moment. */
    int runningTurns() {
        return turns.size();
    }

    /** {@return the listeners of the thread's events} */
    Listeners<ServerNotification> listeners() {
        return listeners;
    }
}

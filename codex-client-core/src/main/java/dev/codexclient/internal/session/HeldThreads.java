package dev.codexclient.internal.session;

import dev.codexclient.Subscription;
import dev.codexclient.errors.CodexException;
import dev.codexclient.internal.rpc.Callbacks;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The codex threads a client holds, each with its {@link ThreadState}. A thread is held while something needs
 * it: a turn starting or running, or an open thread subscription; the last release lets go of it. Threads the
 * server stops serving (archived, unsubscribed, closed) are let go of at once. So a client that runs thousands of
 * threads over weeks keeps state for the busy ones only.
 *
 * <p>Threading: holds and releases of one thread id are serialised by the map. What a thread's state owns (its
 * turn tables, its routing, its end) is touched on the thread's delivery lane only: the methods that change it run
 * there, at once when called on that lane, queued there otherwise (see {@link ThreadState}).
 */
public final class HeldThreads {
    private final Callbacks callbacks;
    private final long maxUnclaimedBytes;
    private final Map<String, ThreadState> states = new ConcurrentHashMap<>();
    /** Set once the connection ended for good: a subscription added from then on is ended at once. */
    private volatile Throwable ended;

    /**
     * @param callbacks         the client's callbacks, on whose lanes each thread's state lives
     * @param maxUnclaimedBytes the most bytes a thread holds for turns whose start is not answered yet
     */
    public HeldThreads(Callbacks callbacks, long maxUnclaimedBytes) {
        this.callbacks = callbacks;
        this.maxUnclaimedBytes = maxUnclaimedBytes;
    }

    /**
     * {@return the link of a held thread, empty when the thread is not held}
     *
     * @param threadId the thread id
     */
    public Optional<ThreadLink> link(String threadId) {
        ThreadState r = states.get(threadId);
        return r == null ? Optional.empty() : Optional.of(r.link);
    }

    /**
     * Takes hold of a thread: its state exists (or is created) and stays until every hold is released.
     *
     * @param link the thread
     * @return the thread's state
     */
    ThreadState hold(ThreadLink link) {
        return states.compute(link.id(), (id, r) -> {
            ThreadState held = r != null ? r : new ThreadState(link, maxUnclaimedBytes);
            held.holds++;
            return held;
        });
    }

    /**
     * Releases one hold; the last one lets go of the thread (a finished, idle thread).
     *
     * @param state the state {@link #hold} returned
     */
    void unhold(ThreadState state) {
        states.computeIfPresent(state.id, (id, r) -> r != state || --r.holds > 0 ? r : null);
    }

    /**
     * A turn is about to be started on {@code link}'s thread: the turn holds the thread until it ends, and the
     * thread holds the events of turns it does not know yet. On the thread's lane; called before {@code turn/start}
     * is sent, so that every event read after the request is taken after this.
     *
     * @param link the thread
     * @param turn the turn
     */
    void starting(ThreadLink link, RoutedTurn turn) {
        callbacks.runAsLane(link.id(), () -> hold(link).starting(turn));
    }

    /**
     * The {@code turn/start} response named {@code turn}: it is bound to {@code turnId} and routed to from now on.
     * Runs on the thread's lane, where the response was handed over in its place in the wire order.
     *
     * @param threadId the thread id
     * @param turn     the turn
     * @param turnId   the id the response named
     */
    void bind(String threadId, RoutedTurn turn, String turnId) {
        ThreadState state = states.get(threadId);
        if (state == null) {
            // Let go of meanwhile (the server closed the thread): the turn failed with the reason; it gets its id.
            turn.bound(turnId);
        } else {
            state.bind(turn, turnId);
        }
    }

    /**
     * {@code turn} ended (or its start failed): nothing is routed to it any more, and its hold of the thread is
     * released. On the thread's lane.
     *
     * @param threadId the thread id
     * @param turn     the turn
     */
    void turnEnded(String threadId, RoutedTurn turn) {
        callbacks.runAsLane(threadId, () -> {
            ThreadState state = states.get(threadId);
            if (state != null && state.remove(turn)) {
                unhold(state);
            }
        });
    }

    /**
     * Lets go of a thread whose events stop (archived, unsubscribed), after the events already queued for it: its
     * turns still running fail, its listeners are closed.
     *
     * @param threadId the thread id
     * @param why      what happened to the thread, for the turns' failure
     */
    public void release(String threadId, String why) {
        callbacks.onLane(threadId, () -> releaseNow(threadId, why));
    }

    /**
     * Adds a listener of one thread's events; the thread is held while it is subscribed.
     *
     * @param link     the thread
     * @param listener the listener
     * @param onEnd    told why when the client lets go of the thread
     * @return its subscription
     */
    public Subscription subscribe(ThreadLink link, Consumer<? super ServerNotification> listener,
                                  Consumer<Throwable> onEnd) {
        ThreadState state = hold(link);
        Listeners.Entry<ServerNotification> entry = state.listeners().entry(listener, () -> unhold(state), onEnd);
        state.listeners().add(entry);
        // Added after the connection's end was handed out, it would otherwise never be told (one added while it
        // is handed out may be told twice; ending is idempotent).
        Throwable cause = ended;
        if (cause != null) {
            entry.end(cause);
        }
        return entry;
    }

    private void releaseNow(String threadId, String why) {
        ThreadState r = states.remove(threadId);
        if (r != null) {
            r.close(new CodexException("thread " + threadId + " " + why + "; its turns can no longer complete"));
        }
    }

    /** Routes an event of {@code threadId} to the thread's listeners and turns. Runs on the thread's lane. */
    void dispatch(String threadId, String turnId, ServerNotification event, int bytes) {
        ThreadState state = states.get(threadId);
        if (state != null) {
            state.dispatch(turnId, event, bytes);
        }
        if (event instanceof ServerNotification.ThreadClosed) {
            releaseNow(threadId, "was closed by the server");
        }
    }

    /** The ids of the threads held now. */
    List<String> ids() {
        return new ArrayList<>(states.keySet());
    }

    /**
     * A held thread was resumed on a new connection: its turns that were running at the loss are settled from
     * the server's report (see {@link ThreadState#reconcile}).
     */
    void resumed(ThreadInfo onServer, BiFunction<String, String, ? extends Throwable> lost) {
        callbacks.runAsLane(onServer.id(), () -> {
            ThreadState r = states.get(onServer.id());
            if (r != null) {
                r.reconcile(onServer, lost);
            }
        });
    }

    /** {@return how many turns of a thread are running (started and named by the server), 0 when it is not held} */
    int runningTurns(String threadId) {
        ThreadState r = states.get(threadId);
        return r == null ? 0 : r.runningTurns();
    }

    /** Lets go of a thread (it could not be resumed), on its lane: its turns fail, its listeners are closed. */
    void forget(String threadId, String why) {
        callbacks.runAsLane(threadId, () -> releaseNow(threadId, why));
    }

    /**
     * The connection ended: lets go of every thread, failing their turns with {@code cause}, each on its lane after
     * the events already queued there. So a thread's listeners and publishers get what was read before the end, in
     * order, then the end; a turn whose end was read completes rather than fails. This queues and waits for
     * nothing: a listener blocked on a turn of another thread is released when that thread's lane reaches it.
     */
    void releaseAll(Throwable cause) {
        ended = cause;
        for (String id : new ArrayList<>(states.keySet())) {
            callbacks.onLane(id, () -> {
                ThreadState r = states.remove(id);
                if (r != null) {
                    r.close(cause);
                }
            });
        }
    }

    /** {@return how many threads are held} */
    public int size() {
        return states.size();
    }
}

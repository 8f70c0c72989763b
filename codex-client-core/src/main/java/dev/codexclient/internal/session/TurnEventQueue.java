package dev.codexclient.internal.session;

import dev.codexclient.Subscription;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.ServerNotification;
import java.time.Duration;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;

/**
 * The engine of a turn's blocking event stream ({@code TurnEventStream}, from {@code CodexTurn#events}): a queue
 * fed by a listener of the turn (replay first, then live), ended behind the turn's last event on its lane, read by
 * one iteration, each wait for the next event bounded or not. The public stream is a view of it.
 *
 * <p>Threading: the listener and the end run on the turn's lane; the iteration on the caller's thread, refused on
 * that lane (it could never be fed there); {@link #close()} from anywhere.
 */
public final class TurnEventQueue {
    /** Marks the end of the stream in the queue. */
    private static final Object END = new Object();

    /** Marks a wait that ran out in the queue; only the one of the current wait counts. */
    private static final class Expired {
    }

    private final Waits waits;
    private final Scheduler scheduler;
    private final String threadId;
    /** The longest wait for each event; null for as long as the turn runs. */
    private final Duration timeout;
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final Subscription subscription;
    private volatile boolean closed;

    /**
     * Subscribes to {@code turn} at once; the queue ends behind the turn's last event.
     *
     * @param turn    the turn
     * @param waits   how the iteration blocks, and where it must not
     * @param timeout the longest wait for each event; null for none
     */
    TurnEventQueue(TurnState turn, Waits waits, Scheduler scheduler, Duration timeout) {
        this.waits = waits;
        this.scheduler = scheduler;
        this.threadId = turn.threadId();
        this.timeout = timeout;
        this.subscription = turn.subscribe(queue::add, queue::add);
        // Queued behind every event on the lane, so the end comes after them.
        turn.ended().whenComplete((r, e) -> turn.onLane(() -> {
            queue.add(END);
            subscription.close();
        }));
    }

    /** {@return the iteration over the queue, taking each event as it comes} */
    public Iterator<ServerNotification> iterator() {
        return new Iterator<>() {
            private Object next;

            @Override
            public boolean hasNext() {
                if (next == null) {
                    next = take();
                }
                return next != END;
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
    }

    private Object take() {
        if (closed) {
            return END;
        }
        Object n = queue.poll();
        while (n == null || n instanceof Expired) {
            if (n == null) {
                waits.checkMayAwait(threadId, "iterating turn.events()");
            }
            n = timeout == null ? takeUninterruptedly() : takeWithin(timeout);
        }
        if (n == END || closed) {
            close();
            return END;
        }
        return n;
    }

    private Object takeWithin(Duration timeout) {
        Expired marker = new Expired();
        Scheduler.Task expiry;
        try {
            expiry = scheduler.schedule(() -> queue.add(marker), timeout);
        } catch (RejectedExecutionException closing) {
            // The client is closed: its turns have failed, and the end is on its way.
            return takeUninterruptedly();
        }
        Object n = takeUninterruptedly();
        expiry.cancel();
        if (n == marker) {
            throw CodexTimeoutException.waitingFor("the next event of a turn of thread " + threadId, timeout);
        }
        // An older wait's marker, or an event: the caller skips the former.
        return n;
    }

    private Object takeUninterruptedly() {
        try {
            return queue.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CodexException("interrupted while waiting for turn events", e);
        }
    }

    /** Ends the subscription and frees the queued events; a blocked iteration sees the end. */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        subscription.close();
        queue.clear();
        queue.add(END);
    }
}

package dev.codexclient;

import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.internal.session.TurnState;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.ServerNotification;
import java.time.Duration;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;

/**
 * The events of one turn as a blocking iteration, from {@link CodexTurn#events()}: in wire order, from the first
 * event still in the turn's replay buffer, ending after {@code turn/completed} (or when the turn otherwise
 * settles). Like {@link java.nio.file.DirectoryStream}, it can be iterated once and should be closed:
 *
 * <pre>{@code
 * try (TurnEventStream events = turn.events(Duration.ofMinutes(1))) {
 *     for (ServerNotification e : events) {
 *         System.out.println(e.method());
 *     }
 * }
 * }</pre>
 *
 * <p>The stream subscribes when it is created and queues events until they are read. {@link #close()} ends the
 * subscription and frees the queue (a thread blocked in {@code hasNext()} then sees the end); a stream that is
 * abandoned unclosed lets go of its subscription when the turn settles.
 */
public final class TurnEventStream implements Iterable<ServerNotification>, AutoCloseable {
    /** Marks the end of the stream in the queue. */
    private static final Object END = new Object();

    /** Marks a wait that ran out in the queue; only the one of the current wait counts. */
    private static final class Expired {
    }

    private final CodexTurn turn;
    /** The turn's engine: its waits' guard and its timer. */
    private final TurnState state;
    private final Duration timeout;
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final Subscription subscription;
    private volatile boolean closed;
    private boolean iterated;

    TurnEventStream(CodexTurn turn, TurnState state, Duration timeout) {
        this.turn = turn;
        this.state = state;
        this.timeout = timeout;
        this.subscription = turn.onEvent(queue::add);
        // Queued behind every event on the lane, so the end comes after them.
        turn.result().whenComplete((r, e) -> state.onLane(() -> {
            queue.add(END);
            subscription.close();
        }));
    }

    /**
     * The iteration; it can be taken once.
     *
     * @throws IllegalStateException on a second call
     */
    @Override
    public synchronized Iterator<ServerNotification> iterator() {
        if (iterated) {
            throw new IllegalStateException("a TurnEventStream can be iterated once; call turn.events() again");
        }
        iterated = true;
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
                state.checkMayAwait("iterating turn.events()");
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
            expiry = state.schedule(() -> queue.add(marker), timeout);
        } catch (RejectedExecutionException closing) {
            // The client is closed: its turns have failed, and the end is on its way.
            return takeUninterruptedly();
        }
        Object n = takeUninterruptedly();
        expiry.cancel();
        if (n == marker) {
            throw CodexTimeoutException.waitingFor("the next event of a turn of thread " + turn.threadId(),
                    timeout);
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

    /** Ends the subscription and frees the queued events; a blocked {@code hasNext()} returns false. */
    @Override
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

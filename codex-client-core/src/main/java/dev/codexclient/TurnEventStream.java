package dev.codexclient;

import dev.codexclient.internal.session.TurnEventQueue;
import dev.codexclient.protocol.ServerNotification;
import java.util.Iterator;

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
    /** The stream's engine: its queue, its subscription, its waits. */
    private final TurnEventQueue queue;
    private boolean iterated;

    TurnEventStream(TurnEventQueue queue) {
        this.queue = queue;
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
        return queue.iterator();
    }

    /** Ends the subscription and frees the queued events; a blocked {@code hasNext()} returns false. */
    @Override
    public void close() {
        queue.close();
    }
}

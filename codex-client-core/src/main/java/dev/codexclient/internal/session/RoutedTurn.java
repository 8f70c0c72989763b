package dev.codexclient.internal.session;

import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.Turn;

/**
 * A turn as its thread's state sees it: what a {@link ThreadState} routes the turn's events to, and what a
 * {@link TurnWatchdog} or a restart settles it with. {@link TurnState} is the one implementation; the thread's state
 * and the watchdog see only this much of it (and a test can stand in for it).
 *
 * <p>Threading: {@link #bound}, {@link #accept}, {@link #completeFromServer} and {@link #stall} run on the thread's
 * delivery lane; the others on any thread.
 */
public interface RoutedTurn {

    /** {@return the id of the thread the turn runs on} */
    String threadId();

    /** {@return the turn id once the {@code turn/start} response named it, else null} */
    String boundId();

    /** {@return whether the turn has ended} */
    boolean isDone();

    /**
     * The {@code turn/start} response named the turn; the events that arrived before it follow at once, through
     * {@link #accept}, ahead of any later event.
     *
     * @param turnId the turn id
     */
    void bound(String turnId);

    /**
     * One event of the turn, in wire order.
     *
     * @param event the event
     * @param bytes the size of its line
     */
    void accept(ServerNotification event, int bytes);

    /**
     * The server reports the turn as over though its {@code turn/completed} never came.
     *
     * @param turn the server's report of the turn
     */
    void completeFromServer(Turn turn);

    /** The server never settled the turn after an interrupt: the turn completes as stalled. */
    void stall();

    /**
     * The turn can no longer complete.
     *
     * @param cause why
     */
    void fail(Throwable cause);

    /** Asks the server to interrupt the turn (the watchdog's last resort). */
    void interrupt();
}

package dev.codexclient.events;

/**
 * Observes one client (or one pool: its members and their health): its connection, each request it makes, each request the server makes of it, each turn, and
 * (with a restart or reconnect policy) each recovery. Register one with
 * {@link dev.codexclient.CodexClientBuilder#eventListener(CodexEventListener)}; combine several with
 * {@link #composite(CodexEventListener...)}.
 *
 * <p><b>Threading.</b> A client calls its listener one call at a time, in the order the events happened, on a
 * thread of the client's callback executor, never on the thread that reads the server's messages: a slow listener
 * delays only later listener calls, never the reading of messages or user code. Durations in the events are
 * measured where the event happened, not when the listener is called. A listener that throws is logged and keeps
 * receiving events.
 *
 * <p><b>What the events carry.</b> Method names, request ids, thread and turn ids, statuses, token counts,
 * durations, and exceptions whose messages the client has already masked: never parameters, results, item text, or
 * secrets. Thread and turn ids identify individual objects, so an integration that makes metrics from them should
 * keep them out of tags.
 *
 * <p><b>Cost.</b> Every method has an empty default. A client built without a listener creates no events at all.
 *
 * <p>Start and end events come in pairs: an end event names its start event ({@code started()}), which is equal
 * only to itself (its {@code sequence} is unique within the client), so it can key a map of per-request state.
 */
public interface CodexEventListener {

    /** A listener that does nothing; the default. */
    CodexEventListener NONE = new CodexEventListener() {
    };

    /**
     * The handshake completed: the client is ready for calls.
     *
     * @param event the transport, what the server said about itself, and how long the handshake took
     */
    default void connectionOpened(ConnectionOpened event) {
    }

    /**
     * The connection ended, by {@link dev.codexclient.CodexClient#close()} or by failure.
     *
     * @param event why it ended, and how long it was open
     */
    default void connectionClosed(ConnectionClosed event) {
    }

    /**
     * The client sent a request to the server.
     *
     * @param event the request's method and id; its end event names it
     */
    default void requestStarted(RequestStarted event) {
    }

    /**
     * A request the client sent ended: answered, failed, timed out, cancelled, or lost with the connection.
     *
     * @param event how it ended, how long it took, and how many times it was sent
     */
    default void requestEnded(RequestEnded event) {
    }

    /**
     * The server's request (an approval, a tool call, user input...) was answered, or could not be.
     *
     * @param event the request's method and id, how it was answered, and how long the handling took
     */
    default void serverRequestHandled(ServerRequestHandled event) {
    }

    /**
     * A turn started.
     *
     * @param event the thread and turn ids; the turn's end event names it
     */
    default void turnStarted(TurnStarted event) {
    }

    /**
     * A turn ended: completed, interrupted or failed, or lost when its server went away.
     *
     * @param event its status, error, token usage and duration
     */
    default void turnEnded(TurnEnded event) {
    }

    /**
     * The connection to the server was lost and the client's recovery policy will try to restore it.
     *
     * @param event why it was lost, and which threads the client holds
     */
    default void disconnected(Disconnected event) {
    }

    /**
     * A new connection replaced a lost one: the handshake was redone. Threads are resumed after this event.
     *
     * @param event which attempt succeeded, what the new server said about itself, and how long the client was
     *              without a connection
     */
    default void connectionRestored(ConnectionRestored event) {
    }

    /**
     * A thread the user holds was resumed on a restored connection.
     *
     * @param event the thread's id
     */
    default void threadResumed(ThreadResumed event) {
    }

    /**
     * A thread the user holds could not be resumed on a restored connection: the client let go of it (its
     * listeners are closed, its turns failed), and the recovery goes on without it.
     *
     * @param event the thread's id, and why its resume failed
     */
    default void threadNotResumed(ThreadNotResumed event) {
    }

    /**
     * Recovered: the restored connection is in use and every held thread is back on it (but those reported by
     * {@link #threadNotResumed}). The last event of a recovery that succeeded.
     *
     * @param event how many attempts it took, how many threads were resumed or not, and how long it lasted
     */
    default void recoveryCompleted(RecoveryCompleted event) {
    }

    /**
     * The recovery policy gave up: the client is closed.
     *
     * @param event the last failure, and how many attempts were made
     */
    default void recoveryGaveUp(RecoveryGaveUp event) {
    }

    /**
     * An integration built on the client published an event of its own (see {@link ExtensionEvent}); a listener
     * checks the type of the ones it knows.
     *
     * @param event the integration's event
     */
    default void extensionEvent(ExtensionEvent event) {
    }

    /**
     * A pool took a member in (built with {@link dev.codexclient.pool.CodexPool.Builder#eventListener}; the pool's
     * events come from the pool's own thread, one at a time).
     *
     * @param event the member's name and address
     */
    default void poolMemberAdded(PoolMemberAdded event) {
    }

    /**
     * A pool's resolver no longer names a member: it drains, then closes.
     *
     * @param event the member's name, and what it still runs
     */
    default void poolMemberRemoved(PoolMemberRemoved event) {
    }

    /**
     * A pool's member failed its health check too many times in a row: it gets no new threads until it passes
     * again.
     *
     * @param event the member's name, the failures, and when it is checked again
     */
    default void poolMemberEjected(PoolMemberEjected event) {
    }

    /**
     * A pool's ejected member passed its health check again.
     *
     * @param event the member's name, and how long it was out
     */
    default void poolMemberReadmitted(PoolMemberReadmitted event) {
    }

    /**
     * A pooled thread with no turn yet was started again on its member's restarted server.
     *
     * @param event the member, the lost thread's id and the new one
     */
    default void pooledThreadRecreated(PooledThreadRecreated event) {
    }

    /**
     * One listener that calls each of {@code listeners} in turn, isolating them from each other: one that throws
     * does not keep the next from being called.
     *
     * @param listeners the listeners, called in this order
     * @return the combined listener
     */
    static CodexEventListener composite(CodexEventListener... listeners) {
        return CompositeEventListener.of(listeners);
    }
}

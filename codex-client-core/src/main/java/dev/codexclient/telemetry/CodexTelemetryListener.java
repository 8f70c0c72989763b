package dev.codexclient.telemetry;

/**
 * Observes one client (or one pool: its members and their health): its connection, each request it makes, each
 * request the server makes of it, each turn, and (with a restart policy) each restart. Register one with
 * {@link dev.codexclient.CodexClientBuilder#telemetryListener(CodexTelemetryListener)}; combine several with
 * {@link #composite(CodexTelemetryListener...)}. Each method takes one telemetry record, named after what happened.
 *
 * <p><b>Threading.</b> A client calls its listener one call at a time, in the order things happened, on a thread
 * of the client's callback executor, never on the thread that reads the server's messages: a slow listener delays
 * only later listener calls, never the reading of messages or user code. Durations in the records are measured
 * where the thing happened, not when the listener is called. A listener that throws is logged and keeps receiving
 * records.
 *
 * <p><b>What the records carry.</b> Method names, request ids, thread and turn ids, statuses, token counts,
 * durations, and exceptions whose messages the client has already masked: never parameters, results, item text, or
 * secrets. Thread and turn ids identify individual objects, so an integration that makes metrics from them should
 * keep them out of tags.
 *
 * <p><b>Cost.</b> Every method has an empty default. A client built without a listener creates no record at all.
 *
 * <p>Start and end records come in pairs: an end record names its start record ({@code started()}), which is equal
 * only to itself (its {@code sequence} is unique within the client), so it can key a map of per-request state.
 */
public interface CodexTelemetryListener {

    /** A listener that does nothing; the default. */
    CodexTelemetryListener NONE = new CodexTelemetryListener() {
    };

    /**
     * The handshake completed: the client is ready for calls.
     *
     * @param report the transport, what the server said about itself, and how long the handshake took
     */
    default void connectionOpened(ConnectionOpened report) {
    }

    /**
     * The connection ended, by {@link dev.codexclient.CodexClient#close()} or by failure.
     *
     * @param report why it ended, and how long it was open
     */
    default void connectionClosed(ConnectionClosed report) {
    }

    /**
     * The client sent a request to the server.
     *
     * @param report the request's method and id; its end record names it
     */
    default void requestStarted(RequestStarted report) {
    }

    /**
     * A request the client sent ended: answered, failed, timed out, cancelled, or lost with the connection.
     *
     * @param report how it ended, how long it took, and how many times it was sent
     */
    default void requestEnded(RequestEnded report) {
    }

    /**
     * The server's request (an approval, a tool call, user input...) was answered, or could not be.
     *
     * @param report the request's method and id, how it was answered, and how long the handling took
     */
    default void serverRequestHandled(ServerRequestHandled report) {
    }

    /**
     * A turn started.
     *
     * @param report the thread and turn ids; the turn's end record names it
     */
    default void turnStarted(TurnStarted report) {
    }

    /**
     * A turn ended: completed, interrupted or failed, or lost when its server went away.
     *
     * @param report its status, error, token usage and duration
     */
    default void turnEnded(TurnEnded report) {
    }

    /**
     * The connection to the server was lost and the client's restart policy will try to restart it.
     *
     * @param report why it was lost, and which threads the client holds
     */
    default void disconnected(Disconnected report) {
    }

    /**
     * A new connection replaced a lost one: the handshake was redone. Threads are resumed after this record.
     *
     * @param report which attempt succeeded, what the new server said about itself, and how long the client was
     *              without a connection
     */
    default void connectionReplaced(ConnectionReplaced report) {
    }

    /**
     * A thread the user holds was resumed on a new connection.
     *
     * @param report the thread's id
     */
    default void threadResumed(ThreadResumed report) {
    }

    /**
     * A thread the user holds could not be resumed on a new connection: the client let go of it (its
     * listeners are closed, its turns failed), and the restart goes on without it.
     *
     * @param report the thread's id, and why its resume failed
     */
    default void threadNotResumed(ThreadNotResumed report) {
    }

    /**
     * Restarted: the new connection is in use and every held thread is back on it (but those reported by
     * {@link #threadNotResumed}). The last record of a restart that succeeded.
     *
     * @param report how many attempts it took, how many threads were resumed or not, and how long it lasted
     */
    default void restartCompleted(RestartCompleted report) {
    }

    /**
     * The restart policy gave up: the client is closed.
     *
     * @param report the last failure, and how many attempts were made
     */
    default void restartGaveUp(RestartGaveUp report) {
    }

    /**
     * An integration built on the client published telemetry of its own (see {@link ExtensionTelemetry}); a
     * listener checks the type of the ones it knows.
     *
     * @param report the integration's record
     */
    default void extensionTelemetry(ExtensionTelemetry report) {
    }

    /**
     * A pool took a member in (built with {@code CodexPool.Builder.telemetryListener(…)}; the pool's
     * records come from the pool's own thread, one at a time).
     *
     * @param report the member's name and address
     */
    default void poolMemberAdded(PoolMemberAdded report) {
    }

    /**
     * A pool's resolver no longer names a member: it drains, then closes.
     *
     * @param report the member's name, and what it still runs
     */
    default void poolMemberRemoved(PoolMemberRemoved report) {
    }

    /**
     * A pool's member failed its health check too many times in a row: it gets no new threads until it passes
     * again.
     *
     * @param report the member's name, the failures, and when it is checked again
     */
    default void poolMemberEjected(PoolMemberEjected report) {
    }

    /**
     * A pool's ejected member passed its health check again.
     *
     * @param report the member's name, and how long it was out
     */
    default void poolMemberReadmitted(PoolMemberReadmitted report) {
    }

    /**
     * A pooled thread with no turn yet was started again on its member's restarted server.
     *
     * @param report the member, the lost thread's id and the new one
     */
    default void pooledThreadRecreated(PooledThreadRecreated report) {
    }

    /**
     * A pooled thread left a member lost for good for a healthy one (a pool whose members share their storage).
     *
     * @param report the thread's id, the member it left and the one it is placed on now
     */
    default void pooledThreadMoved(PooledThreadMoved report) {
    }

    /**
     * One listener that calls each of {@code listeners} in turn, isolating them from each other: one that throws
     * does not keep the next from being called.
     *
     * @param listeners the listeners, called in this order
     * @return the combined listener
     */
    static CodexTelemetryListener composite(CodexTelemetryListener... listeners) {
        return CompositeTelemetryListener.of(listeners);
    }
}

package dev.codexclient.internal.rpc;

/**
 * Told how each server request ended, for the client's telemetry listener. The dispatcher calls it only when one is
 * given (a client with a telemetry listener): without it, handling a request costs nothing more.
 *
 * <p>Called once per request, on the thread that learns the outcome, before the reply is written, so that whatever
 * the server does in response comes after it. It must be quick and must not throw.
 */
public interface ServerRequestObserver {

    /** The time on the clock the handling duration is measured with, in nanoseconds. */
    long nanoTime();

    /**
     * A request was answered, failed, or abandoned.
     *
     * @param request      the request
     * @param arrivedNanos when it arrived, on {@link #nanoTime()}'s clock
     * @param result       the handler's answer when it answered: a {@link ServerRequestAnswer} when the handler gave
     *                     one, else the reply's result (may be null: an empty result)
     * @param error        the handler's failure (unwrapped) when it failed; null otherwise
     * @param abandoned    true when no reply was sent: the server withdrew the request or the connection ended
     */
    void handled(IncomingRequest request, long arrivedNanos, Object result, Throwable error, boolean abandoned);
}

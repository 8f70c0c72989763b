package dev.codexclient;

import dev.codexclient.internal.rpc.CallbackPool;

/**
 * The threads every client of the JVM shares, and their ceilings. Clients built without a
 * {@link CodexClientBuilder#callbackExecutor callbackExecutor} of their own run their callbacks on two JVM-wide pools
 * of daemon threads, each with a ceiling read once from a system property:
 * <ul>
 *   <li>{@code codex-shared-handler-N}: the handlers of server requests (approvals waiting on a person, slow
 *       tools), at most {@link #handlerCeiling()} ({@value #HANDLER_THREADS_PROPERTY}, default 256);</li>
 *   <li>{@code codex-shared-callback-N}: everything else, above all the delivery of events and the completion of
 *       futures, at most {@link #callbackCeiling()} ({@value #CALLBACK_THREADS_PROPERTY}, default 256).</li>
 * </ul>
 * At a ceiling, further tasks of that pool wait in a queue, first come first served, until a thread comes free.
 * Because events have their own pool, handlers that block never hold up the event that would release them. One
 * more thread, {@code codex-shared-timer}, runs every client's timers. All of them end after a minute idle.
 */
public final class CodexSharedThreads {
    /** The system property that sets {@link #handlerCeiling()}. */
    public static final String HANDLER_THREADS_PROPERTY = CallbackPool.HANDLER_THREADS_PROPERTY;
    /** The system property that sets {@link #callbackCeiling()}. */
    public static final String CALLBACK_THREADS_PROPERTY = CallbackPool.CALLBACK_THREADS_PROPERTY;

    private CodexSharedThreads() {
    }

    /** {@return the most threads that run server-request handlers at once, in the whole JVM} */
    public static int handlerCeiling() {
        return CallbackPool.HANDLER_THREADS;
    }

    /** {@return the most threads that run other callbacks (event delivery, future completions) at once} */
    public static int callbackCeiling() {
        return CallbackPool.CALLBACK_THREADS;
    }
}

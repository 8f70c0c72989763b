package dev.codexclient.internal;

import dev.codexclient.internal.rpc.CallbackPool;

/**
 * The ceilings of the thread pools every client of the JVM shares (see the "Threading" guide): the testkit checks a
 * test's leftover threads against them. Exported to the testkit only; an application sets the ceilings with the
 * system properties {@value #HANDLER_THREADS_PROPERTY} and {@value #CALLBACK_THREADS_PROPERTY}.
 */
public final class SharedThreadCeilings {
    /** The system property that sets {@link #handlers()}. */
    public static final String HANDLER_THREADS_PROPERTY = CallbackPool.HANDLER_THREADS_PROPERTY;
    /** The system property that sets {@link #callbacks()}. */
    public static final String CALLBACK_THREADS_PROPERTY = CallbackPool.CALLBACK_THREADS_PROPERTY;

    private SharedThreadCeilings() {
    }

    /** {@return the most threads that run server-request handlers at once, in the whole JVM} */
    public static int handlers() {
        return CallbackPool.HANDLER_THREADS;
    }

    /** {@return the most threads that run other callbacks (event delivery, future completions) at once} */
    public static int callbacks() {
        return CallbackPool.CALLBACK_THREADS;
    }
}

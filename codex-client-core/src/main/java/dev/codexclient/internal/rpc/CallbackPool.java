package dev.codexclient.internal.rpc;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * A client's own callback executor, on threads borrowed from pools that every client in the JVM shares.
 *
 * <p>A pool per client started its first threads with the client's first callbacks, and a test suite that builds a
 * client per test started and stopped them in every test; starting a thread costs more than a scripted turn. The
 * shared pools start a daemon thread whenever none is idle, up to a ceiling, and let a thread go after a minute
 * idle. Each client still sees an executor of its own: {@link #shutdown()} rejects its new tasks,
 * {@link #awaitTermination} waits for its accepted ones only, and {@link #shutdownNow()} interrupts only those.
 *
 * <p>Two pools, each with its own ceiling, so that work that blocks cannot starve the work that would release it:
 * <ul>
 *   <li>{@link #handlers()}: the handlers of server requests (approvals waiting on a person, slow tools), on
 *       {@code codex-shared-handler-N} threads, at most {@link #HANDLER_THREADS} of them;</li>
 *   <li>this executor itself: everything else, above all the delivery of events (a turn's end, the server's
 *       withdrawal of a request, the end of the connection) and the completion of futures, on
 *       {@code codex-shared-callback-N} threads, at most {@link #CALLBACK_THREADS} of them.</li>
 * </ul>
 * At a ceiling, a task waits in that pool's queue, first come first served across all clients of the JVM, until one
 * of its threads comes free: when every handler thread blocks, further server requests are answered once handlers
 * return, while events are still delivered on the other pool, so a handler that waits for an event gets it.
 * The ceilings are read once, from the system properties {@value #HANDLER_THREADS_PROPERTY} and
 * {@value #CALLBACK_THREADS_PROPERTY} (default 256 each; a value that is not a whole number of at least 1 is logged
 * and ignored).
 */
public final class CallbackPool extends AbstractExecutorService {
    /** The system property that sets {@link #HANDLER_THREADS}. */
    public static final String HANDLER_THREADS_PROPERTY = "dev.codexclient.handlerThreads";
    /** The system property that sets {@link #CALLBACK_THREADS}. */
    public static final String CALLBACK_THREADS_PROPERTY = "dev.codexclient.callbackThreads";
    /** The most threads that run server-request handlers at once, in the whole JVM. */
    public static final int HANDLER_THREADS = ceiling(HANDLER_THREADS_PROPERTY, 256);
    /** The most threads that run other callbacks (event delivery, future completions) at once, in the whole JVM. */
    public static final int CALLBACK_THREADS = ceiling(CALLBACK_THREADS_PROPERTY, 256);

    private static final SharedThreads SHARED_HANDLERS = new SharedThreads("codex-shared-handler-", HANDLER_THREADS);
    private static final SharedThreads SHARED_CALLBACKS = new SharedThreads("codex-shared-callback-",
            CALLBACK_THREADS);

    private final Object lock = new Object();
    /** Tasks handed to the shared pool and not finished, started or not; guarded by {@link #lock}. */
    private int active;
    /** Threads running a task of this client; guarded by {@link #lock}. */
    private final Set<Thread> running = new HashSet<>();
    private boolean shutdown;

    private final Executor handlers = task -> submit(SHARED_HANDLERS, task);

    /** Runs {@code task} on the shared callback threads (events, future completions). */
    @Override
    public void execute(Runnable task) {
        submit(SHARED_CALLBACKS, task);
    }

    /**
     * {@return this client's executor for server-request handlers} It shares this executor's shutdown and
     * termination, on the handler threads.
     */
    public Executor handlers() {
        return handlers;
    }

    private void submit(SharedThreads pool, Runnable task) {
        Objects.requireNonNull(task, "task");
        synchronized (lock) {
            if (shutdown) {
                throw new RejectedExecutionException("the client's callback executor is shut down");
            }
            active++;
        }
        try {
            pool.execute(() -> run(task));
        } catch (RejectedExecutionException | Error e) {
            finished(null);
            throw e;
        }
    }

    private void run(Runnable task) {
        Thread self = Thread.currentThread();
        synchronized (lock) {
            running.add(self);
        }
        try {
            task.run();
        } finally {
            finished(self);
        }
    }

    private void finished(Thread self) {
        synchronized (lock) {
            if (self != null) {
                running.remove(self);
                // An interrupt from shutdownNow() meant this client's task; the pooled thread goes on without it.
                Thread.interrupted();
            }
            active--;
            lock.notifyAll();
        }
    }

    @Override
    public void shutdown() {
        synchronized (lock) {
            shutdown = true;
        }
    }

    /**
     * Rejects new tasks and interrupts the running ones. Tasks that wait for a thread at a ceiling still run when
     * one comes free (they deliver what was already read), so the list is empty.
     */
    @Override
    public List<Runnable> shutdownNow() {
        synchronized (lock) {
            shutdown = true;
            running.forEach(Thread::interrupt);
        }
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        synchronized (lock) {
            return shutdown;
        }
    }

    @Override
    public boolean isTerminated() {
        synchronized (lock) {
            return shutdown && active == 0;
        }
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (!(shutdown && active == 0)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return true;
        }
    }

    /** Threads of the shared handler pool alive now (for tests and diagnostics). */
    public static int handlerThreads() {
        return SHARED_HANDLERS.threads();
    }

    /** The most threads of the shared handler pool ever alive at once (for tests and diagnostics). */
    public static int peakHandlerThreads() {
        return SHARED_HANDLERS.peakThreads();
    }

    /** Threads of the shared callback pool alive now (for tests and diagnostics). */
    public static int callbackThreads() {
        return SHARED_CALLBACKS.threads();
    }

    /** The most threads of the shared callback pool ever alive at once (for tests and diagnostics). */
    public static int peakCallbackThreads() {
        return SHARED_CALLBACKS.peakThreads();
    }

    /**
     * The ceiling set by system property {@code property}, or {@code fallback}. A value that is not a whole number
     * of at least 1 is logged and ignored: failing here would fail the class's initialisation, and with it every
     * client of the JVM, with a {@link NoClassDefFoundError} that no longer names the property.
     */
    static int ceiling(String property, int fallback) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            int ceiling = Integer.parseInt(value.strip());
            if (ceiling >= 1) {
                return ceiling;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        LoggerFactory.getLogger(CallbackPool.class).warn("Ignoring system property {}={}: not a whole number of at"
                + " least 1; using {}", property, value, fallback);
        return fallback;
    }
}

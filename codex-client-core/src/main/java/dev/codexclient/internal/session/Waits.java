package dev.codexclient.internal.session;

import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.internal.rpc.Callbacks;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.time.Scheduler;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * How the client API blocks. Every blocking method waits through here, which refuses a wait that could never end
 * ({@link CodexDeadlockException}) before it starts, bounds the others, and rethrows failures with the waiting
 * thread's stack attached.
 */
public final class Waits {
    /** Whether the current thread reads one of the client's connections. */
    private final BooleanSupplier onReaderThread;
    /** The client's delivery lanes, to tell whether the current thread delivers a codex thread's events. */
    private final Callbacks callbacks;
    private final Scheduler scheduler;
    private final Duration requestTimeout;

    /**
     * @param onReaderThread whether the current thread reads one of the client's connections
     * @param callbacks      the client's callbacks, whose lanes tell where a wait for a turn could never end
     * @param scheduler      the clock the waits for turns are timed on
     * @param requestTimeout the bound of a call
     */
    public Waits(BooleanSupplier onReaderThread, Callbacks callbacks, Scheduler scheduler, Duration requestTimeout) {
        this.onReaderThread = onReaderThread;
        this.callbacks = callbacks;
        this.scheduler = scheduler;
        this.requestTimeout = requestTimeout;
    }

    /**
     * Waits for a call to the server. The call has its own timeout (on the client's scheduler); the bound here
     * only guards against a future nobody completes.
     */
    public <T> T call(CompletableFuture<T> future, String what) {
        return call(future, what, requestTimeout.plusSeconds(5));
    }

    /**
     * Waits for a call bounded by its own timeout (the handshake's), guarding against a future nobody completes
     * for {@code guard}.
     */
    public <T> T call(CompletableFuture<T> future, String what, Duration guard) {
        if (!future.isDone()) {
            checkMayBlock(what);
        }
        try {
            return future.get(guard.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw CodexTimeoutException.waitingFor(what, requestTimeout);
        } catch (InterruptedException e) {
            java.lang.Thread.currentThread().interrupt();
            throw new CodexException("interrupted while waiting for " + what, e);
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    /**
     * Waits for {@code future} at most {@code timeout} on the client's scheduler (so tests move that time by hand);
     * the future itself is left alone when the wait runs out.
     */
    public <T> T within(CompletableFuture<T> future, Duration timeout, Supplier<CodexTimeoutException> expired,
                 String what) {
        CompletableFuture<T> waiter = new CompletableFuture<>();
        future.whenComplete((v, e) -> {
            if (e == null) {
                waiter.complete(v);
            } else {
                waiter.completeExceptionally(e);
            }
        });
        if (!waiter.isDone()) {
            try {
                Scheduler.Task t = scheduler.schedule(() -> waiter.completeExceptionally(expired.get()), timeout);
                waiter.whenComplete((v, e) -> t.cancel());
            } catch (RejectedExecutionException closed) {
                // The client is closed: whatever this waits for has failed or is about to.
            }
        }
        try {
            return waiter.get();
        } catch (InterruptedException e) {
            java.lang.Thread.currentThread().interrupt();
            throw new CodexException("interrupted while waiting for " + what, e);
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    /**
     * Fails fast where any blocking wait would never end: on the thread that reads the connection (reachable only
     * with a callback executor that runs tasks on the submitting thread).
     */
    public void checkMayBlock(String what) {
        if (onReaderThread.getAsBoolean()) {
            throw new CodexDeadlockException(what + " was called on the thread that reads the connection, which would "
                    + "then never read the answer: the callback executor runs tasks on the submitting thread. Give "
                    + "the client an executor with its own threads (CodexClientBuilder#callbackExecutor), or use the "
                    + "…Async methods there");
        }
    }

    /**
     * Fails fast where waiting for a turn of {@code threadId} would never end: on that thread's delivery lane,
     * which delivers the turn's end (see {@code CodexTurn#await}).
     */
    public void checkMayAwait(String threadId, String what) {
        checkMayBlock(what);
        if (callbacks.isOnLane(threadId)) {
            throw new CodexDeadlockException(what + " was called while delivering an event of thread "
                    + threadId + " (in a listener): that thread's events, the end of this turn among them, "
                    + "are delivered one after another on this very thread, so the turn cannot end while it waits. "
                    + "Use turn.result().thenAccept(…) or a listener for turn/completed instead");
        }
    }

    /** Rethrows a failure of an asynchronous call on the caller's thread, with the caller's stack added. */
    public static RuntimeException rethrow(Throwable failure) {
        Throwable t = RpcConnection.unwrap(failure);
        if (t instanceof CodexException ce) {
            // Keep the type; add the waiting thread's stack as a suppressed trace for debuggability.
            ce.addSuppressed(new CodexException("waited for here"));
            return ce;
        }
        if (t instanceof RuntimeException re) {
            return re;
        }
        if (t instanceof CancellationException) {
            return (CancellationException) t;
        }
        return new CodexException(String.valueOf(t.getMessage()), t);
    }

    public static CompletionException asCompletionException(Throwable t) {
        return t instanceof CompletionException ce ? ce : new CompletionException(t);
    }
}

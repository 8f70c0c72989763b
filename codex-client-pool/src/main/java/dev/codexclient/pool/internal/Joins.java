package dev.codexclient.pool.internal;

import dev.codexclient.errors.CodexException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * How the pool's blocking methods wait for its asynchronous engine: each one joins the future of its async twin, so
 * that there is one implementation of each operation. Every stage the engine waits for is bounded by its own timeout
 * (the queue's wait, the member's request timeout, a client's start), so the join is too.
 */
public final class Joins {
    private Joins() {
    }

    /**
     * Waits for {@code future} and gives its value; a failure is rethrown with the waiting thread's stack added, and
     * an interrupt cancels the future and sets the thread's interrupt status again.
     *
     * @param <T>    the value's type
     * @param future what to wait for
     * @param what   what it is, for the message of an interrupted wait
     * @return the value
     */
    public static <T> T join(CompletableFuture<T> future, String what) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(true);
            throw new CodexException("interrupted while waiting for " + what, e);
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    /**
     * {@return the failure an asynchronous stage wraps} A dependent stage wraps its source's failure in a
     * {@link CompletionException}; the caller wants the source's own.
     *
     * @param t the failure as a stage reports it
     */
    public static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The failure of an asynchronous call, for the caller's thread: its own type, with the caller's stack added. */
    static RuntimeException rethrow(Throwable failure) {
        Throwable t = unwrap(failure);
        if (t instanceof CodexException ce) {
            ce.addSuppressed(new CodexException("waited for here"));
            return ce;
        }
        if (t instanceof RuntimeException re) {
            return re; // a CancellationException too
        }
        return new CodexException(String.valueOf(t.getMessage()), t);
    }
}

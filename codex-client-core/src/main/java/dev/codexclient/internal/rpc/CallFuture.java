package dev.codexclient.internal.rpc;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The future {@link RpcConnection#call} returns. Waiting threads are woken the moment the outcome is known, while
 * dependent stages still run on the callback executor.
 *
 * <p>Why: dependents of a call ({@code thenApply}, {@code whenComplete}, {@code allOf}, …) are user code, and user
 * code must never run on the transport's reader thread, so the connection completes this future on the callback
 * executor. A thread blocked in {@link #get()} or {@link #join()} runs no user code when it wakes, though, and
 * making it wait for that hand-off costs a thread wake-up on every round trip. So the outcome is recorded twice:
 * first in a private {@code settled} future, completed by whoever learns the outcome first (the reader thread for a
 * response, the timer for a timeout, or the user completing or cancelling this future), and then in this future
 * itself, on the callback executor. The query and wait methods read {@code settled}; everything else is the plain
 * {@link CompletableFuture}. {@code settled} is never handed out, so it has no dependents besides waiting threads.
 *
 * <p>Whoever completes {@code settled} also completes this future, with the same outcome, so the two never
 * disagree: a user's {@code complete(x)} that loses to a response returns {@code false} like any late completion.
 * (On Java 19 and later, {@code resultNow()}, {@code exceptionNow()} and {@code state()} read this future only,
 * so they can still say "running" for the moment between the two completions.)
 */
final class CallFuture<T> extends CompletableFuture<T> {
    private final CompletableFuture<T> settled = new CompletableFuture<>();

    /**
     * @param onCancelled runs (on the cancelling thread) when this future is cancelled
     */
    CallFuture(Runnable onCancelled) {
        // Completions that bypass the overrides below (none in the JDK today) still reach the waiting threads.
        whenComplete((value, error) -> {
            if (error == null) {
                settled.complete(value);
            } else {
                settled.completeExceptionally(error);
            }
            if (isCancelled()) {
                onCancelled.run();
            }
        });
    }

    /**
     * Records the outcome for waiting threads. Safe on the reader thread: no user code runs here.
     *
     * @return true when this was the first outcome; the caller must then {@link #publish} it
     */
    boolean settle(T value, Throwable error) {
        return error == null ? settled.complete(value) : settled.completeExceptionally(error);
    }

    /** Completes the future itself with what {@link #settle} recorded; dependents run on the calling thread. */
    void publish(T value, Throwable error) {
        if (error == null) {
            super.complete(value);
        } else {
            super.completeExceptionally(error);
        }
    }

    // ---------------------------------------------------------------------------------------- completion by users

    @Override
    public boolean complete(T value) {
        return settled.complete(value) && super.complete(value);
    }

    @Override
    public boolean completeExceptionally(Throwable error) {
        Objects.requireNonNull(error, "error");
        return settled.completeExceptionally(error) && super.completeExceptionally(error);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (!settled.cancel(mayInterruptIfRunning)) {
            return false;
        }
        super.cancel(mayInterruptIfRunning);
        return true;
    }

    @Override
    public void obtrudeValue(T value) {
        settled.obtrudeValue(value);
        super.obtrudeValue(value);
    }

    @Override
    public void obtrudeException(Throwable error) {
        settled.obtrudeException(error);
        super.obtrudeException(error);
    }

    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier, Executor executor) {
        Objects.requireNonNull(supplier, "supplier");
        Objects.requireNonNull(executor, "executor");
        // The JDK's own version completes the future internally, past complete(); route it through complete().
        executor.execute(() -> {
            if (isDone()) {
                return;
            }
            try {
                complete(supplier.get());
            } catch (Throwable t) {
                completeExceptionally(t);
            }
        });
        return this;
    }

    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier) {
        return completeAsync(supplier, defaultExecutor());
    }

    // ---------------------------------------------------------------------------------------- waiting and queries

    @Override
    public T get() throws InterruptedException, ExecutionException {
        return settled.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        return settled.get(timeout, unit);
    }

    @Override
    public T join() {
        return settled.join();
    }

    @Override
    public T getNow(T valueIfAbsent) {
        return settled.getNow(valueIfAbsent);
    }

    @Override
    public boolean isDone() {
        return settled.isDone();
    }

    @Override
    public boolean isCompletedExceptionally() {
        return settled.isCompletedExceptionally();
    }

    @Override
    public boolean isCancelled() {
        return settled.isCancelled();
    }
}

package dev.codexclient.internal.rpc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The future {@link RpcConnection#call} returns. Threads waiting for it wake the moment the outcome is known, while
 * its dependent stages run on the callback executor, never on the transport's reader thread.
 *
 * <p>Why: dependents of a call ({@code thenApply}, {@code whenComplete}, {@code allOf}, …) are user code, and user
 * code must never run on the reader thread, so the connection completes this future on the callback executor. A
 * thread blocked in {@link #get()} or {@link #join()} runs no user code when it wakes, though, and making it wait
 * for that hand-off costs a thread wake-up on every round trip. So the outcome is recorded twice: first in a
 * private {@code settled} future, completed by whoever learns the outcome first (the reader thread for a response,
 * the timer for a timeout, a user completing or cancelling this future), then in this future itself ("publishing").
 * The query and wait methods read {@code settled}; everything else is the plain {@link CompletableFuture}.
 * {@code settled} is never handed out, so it has no dependents besides waiting threads.
 *
 * <p>Publishing runs this future's dependents, so the reader thread never publishes: it hands publishing to the
 * callback executor, except when a thread is blocked in {@code get()}/{@code join()} and no dependent is
 * registered yet. Then that thread publishes as it leaves, which saves waking a callback thread for the common
 * blocking call. A dependent registered after the outcome is known (so while {@link #isDone()} already answers
 * true) may therefore run on that thread, as it would on the registering thread of any completed future.
 *
 * <p>Whoever settles first also decides the outcome this future is published with, so the two never disagree: a
 * user's {@code complete(x)} that loses to a response returns {@code false} like any late completion. (On Java 19
 * and later, {@code resultNow()}, {@code exceptionNow()} and {@code state()} read this future only, so they can
 * still say "running" for the moment between settling and publishing.)
 */
final class CallFuture<T> extends CompletableFuture<T> {
    /** How long a thread in get()/join() spins before it parks: see {@link #spinBriefly}. */
    private static final long SPIN_NANOS = 50_000;
    private static final boolean MULTICORE = Runtime.getRuntime().availableProcessors() > 1;
    /** The internal whenComplete registered by the constructor. */
    private static final int OWN_DEPENDENTS = 1;
    private static final VarHandle OUTCOME;
    private static final VarHandle WAITERS;
    private static final VarHandle PUBLISHER;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            OUTCOME = lookup.findVarHandle(CallFuture.class, "outcome", Outcome.class);
            WAITERS = lookup.findVarHandle(CallFuture.class, "waiters", int.class);
            PUBLISHER = lookup.findVarHandle(CallFuture.class, "publisherClaimed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private record Outcome(Object value, Throwable error) {
    }

    private final CompletableFuture<T> settled = new CompletableFuture<>();
    /** Set once, by whoever settles first, before {@code settled} completes. */
    @SuppressWarnings("unused") // through OUTCOME
    private volatile Outcome outcome;
    /** Threads inside get() or join() right now. */
    @SuppressWarnings("unused") // through WAITERS
    private volatile int waiters;
    @SuppressWarnings("unused") // through PUBLISHER
    private volatile boolean publisherClaimed;

    /**
     * @param onCancelled runs (on the cancelling thread) when this future is cancelled
     */
    CallFuture(Runnable onCancelled) {
        // Completions that bypass the overrides below (none in the JDK today) still reach the waiting threads.
        whenComplete((value, error) -> {
            settle(value, error);
            if (isCancelled()) {
                onCancelled.run();
            }
        });
    }

    /**
     * Records the outcome and wakes the waiting threads. Safe on the reader thread: no user code runs here.
     *
     * @return true when this was the first outcome; the caller must then call {@link #claimPublication}
     */
    boolean settle(T value, Throwable error) {
        if (!OUTCOME.compareAndSet(this, null, new Outcome(value, error))) {
            return false;
        }
        if (error == null) {
            settled.complete(value);
        } else {
            settled.completeExceptionally(error);
        }
        return true;
    }

    /**
     * After a successful {@link #settle}: whether the caller must {@link #publish} (on a thread where this
     * future's dependents may run). False when a waiting thread will publish as it leaves get() or join().
     */
    boolean claimPublication() {
        // The waiter count is read after settling and a leaving waiter reads settled after counting itself out,
        // so at least one of the two sees the other: a waiter seen here is one that will still see the outcome.
        if ((int) WAITERS.getVolatile(this) > 0 && getNumberOfDependents() <= OWN_DEPENDENTS) {
            return false;
        }
        return PUBLISHER.compareAndSet(this, false, true);
    }

    /** Completes this future itself with the settled outcome; its dependents run on the calling thread. */
    void publish() {
        Outcome o = (Outcome) OUTCOME.getVolatile(this);
        if (o == null) {
            return;
        }
        if (o.error() == null) {
            @SuppressWarnings("unchecked")
            T value = (T) o.value();
            super.complete(value);
        } else {
            super.completeExceptionally(o.error());
        }
    }

    private void enter() {
        WAITERS.getAndAdd(this, 1);
    }

    private void leave() {
        WAITERS.getAndAdd(this, -1);
        if (settled.isDone() && PUBLISHER.compareAndSet(this, false, true)) {
            publish();
        }
    }

    // ---------------------------------------------------------------------------------------- completion by users

    @Override
    public boolean complete(T value) {
        return settle(value, null) && super.complete(value);
    }

    @Override
    public boolean completeExceptionally(Throwable error) {
        Objects.requireNonNull(error, "error");
        return settle(null, error) && super.completeExceptionally(error);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (!settle(null, new CancellationException())) {
            return isCancelled();
        }
        super.cancel(mayInterruptIfRunning);
        return true;
    }

    @Override
    public void obtrudeValue(T value) {
        OUTCOME.setVolatile(this, new Outcome(value, null));
        settled.obtrudeValue(value);
        super.obtrudeValue(value);
    }

    @Override
    public void obtrudeException(Throwable error) {
        Objects.requireNonNull(error, "error");
        OUTCOME.setVolatile(this, new Outcome(null, error));
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
        enter();
        try {
            spinBriefly(SPIN_NANOS);
            return settled.get();
        } finally {
            leave();
        }
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        enter();
        try {
            long nanos = unit.toNanos(timeout);
            long spun = spinBriefly(Math.min(nanos, SPIN_NANOS));
            return settled.get(Math.max(0, nanos - spun), TimeUnit.NANOSECONDS);
        } finally {
            leave();
        }
    }

    @Override
    public T join() {
        enter();
        try {
            spinBriefly(SPIN_NANOS);
            return settled.join();
        } finally {
            leave();
        }
    }

    /**
     * Waits up to {@code limit} nanoseconds without parking; returns the nanoseconds spent. A call to a local
     * app-server is answered in tens of microseconds, and a parked caller costs the reader thread an unpark and
     * itself a wake-up on top of that: a round trip about twice as long. Spinning briefly lets a quick answer find
     * the caller awake; slower ones (every model turn) park as before, having spent a few dozen microseconds.
     * Pointless with one processor, where spinning only delays the thread that would deliver the answer.
     */
    private long spinBriefly(long limit) {
        if (limit <= 0 || settled.isDone() || !MULTICORE) {
            return 0;
        }
        long start = System.nanoTime();
        long elapsed;
        do {
            Thread.onSpinWait();
            elapsed = System.nanoTime() - start;
        } while (!settled.isDone() && elapsed < limit);
        return elapsed;
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

package dev.codexclient.internal.rpc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The future {@link RpcConnection#call} returns. Threads waiting for it wake the moment the outcome is known, while
 * its dependent stages run on the callback executor, never on the transport's reader thread.
 *
 * <p>Why: dependents of a call ({@code thenApply}, {@code whenComplete}, …) are user code, and user code must never
 * run on the reader thread. A thread blocked in {@link #get()} or {@link #join()} runs no user code when it wakes,
 * though, and making it wait for a hand-off to the callback executor costs a thread wake-up on every round trip.
 * So the outcome is recorded twice: first in a private {@code settled} future, completed by whoever learns the
 * outcome first (the reader thread for a response, the scheduler for a timeout, a user completing or cancelling
 * this future), then in this future itself ("publishing"). The query and wait methods read {@code settled};
 * everything else is the plain {@link CompletableFuture}.
 *
 * <p>Two rules keep user code where it belongs, decided from nothing but who is waiting:
 * <ul>
 *   <li>Every dependent registered on this future runs on the callback executor: the non-async methods
 *       ({@code thenApply}, {@code whenComplete}, …) register their function as if {@code …Async} had been called
 *       with that executor, and the {@code …Async} methods without an executor use it too. So publishing runs no
 *       user code itself, whichever thread does it; it hands each dependent to the executor, or, when it already
 *       runs there, runs them in place.</li>
 *   <li>The reader thread never publishes. When a thread is blocked in {@code get()}/{@code join()} as the outcome
 *       arrives, that thread publishes as it leaves, which saves waking a callback thread for the common blocking
 *       call; otherwise publishing is handed to the callback executor.</li>
 * </ul>
 * The exception are stages the JDK attaches without calling a method of this future: {@code allOf}, {@code anyOf},
 * and this future as the <em>other</em> stage of {@code thenCombine}, {@code applyToEither} and the like. Those run
 * where the outcome is published: on the callback executor, or on a thread that was blocked in {@code get()} or
 * {@code join()} here. Never on the reader thread.
 *
 * <p>Whoever settles first also decides the outcome this future is published with, so the two never disagree: a
 * user's {@code complete(x)} that loses to a response returns {@code false} like any late completion. (On Java 19
 * and later, {@code resultNow()}, {@code exceptionNow()} and {@code state()} read this future only, so they can
 * still say "running" for the moment between settling and publishing.)
 */
final class CallFuture<T> extends CompletableFuture<T> {
    /** How long a thread in get()/join() spins before it parks: see {@link #spinBriefly}. */
    private static final long SPIN_NANOS = 50_000;
    private static final boolean SPINS = spinsWith(Runtime.getRuntime().availableProcessors());
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
    /** The client's bookkeeping of the outcome ({@link #onSettled}), run before {@code settled} completes. */
    private volatile CompletableFuture<Object> bookkeeping;
    /** Set once, by whoever settles first, before {@code settled} completes. */
    @SuppressWarnings("unused") // through OUTCOME
    private volatile Outcome outcome;
    /** Threads inside get() or join() right now. */
    @SuppressWarnings("unused") // through WAITERS
    private volatile int waiters;
    @SuppressWarnings("unused") // through PUBLISHER
    private volatile boolean publisherClaimed;
    /** The callback thread publishing right now, which runs the dependents in place. */
    private volatile Thread publishingThread;
    private final Executor callbacks;
    /** Where every dependent of this future runs; never throws. */
    private final Executor dependents = this::runDependent;

    /**
     * @param callbacks the callback executor; it may reject tasks once shut down (dependents then run in place)
     * @param onCancelled runs (on the cancelling thread) when this future is cancelled
     */
    CallFuture(Executor callbacks, Runnable onCancelled) {
        this.callbacks = callbacks;
        // Completions that bypass the overrides below (none in the JDK today) still reach the waiting threads.
        super.whenComplete((value, error) -> {
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
        // The bookkeeping first: a thread waiting in get() must not act on the outcome (and, say, report that the
        // client is ready) before the call's own end is recorded.
        CompletableFuture<Object> b = bookkeeping;
        if (b != null) {
            complete(b, value, error);
        }
        if (error == null) {
            settled.complete(value);
        } else {
            settled.completeExceptionally(error);
        }
        return true;
    }

    /**
     * Runs {@code action} once the outcome is known, on the thread that settles it (possibly the reader thread), or
     * at once when it is known already: for the client's own bookkeeping, never for user code. It runs before any
     * thread waiting in {@code get()} or {@code join()} wakes. One action per future (the last registered).
     */
    void onSettled(BiConsumer<Object, Throwable> action) {
        CompletableFuture<Object> b = new CompletableFuture<>();
        b.whenComplete(action);
        bookkeeping = b;
        // Registered before the call is sent, so normally before any outcome; one settled meanwhile is run here.
        Outcome o = (Outcome) OUTCOME.getVolatile(this);
        if (o != null) {
            complete(b, o.value(), o.error());
        }
    }

    private static void complete(CompletableFuture<Object> f, Object value, Throwable error) {
        if (error == null) {
            f.complete(value);
        } else {
            f.completeExceptionally(error);
        }
    }

    /**
     * After a successful {@link #settle}: whether the caller must publish, by handing
     * {@link #publishOnCallbackThread} to the callback executor. False when a waiting thread will publish as it
     * leaves get() or join().
     */
    boolean claimPublication() {
        // The waiter count is read after settling and a leaving waiter reads settled after counting itself out,
        // so at least one of the two sees the other: a waiter seen here is one that will still see the outcome.
        if ((int) WAITERS.getVolatile(this) > 0) {
            return false;
        }
        return PUBLISHER.compareAndSet(this, false, true);
    }

    /** {@link #publish()} on a callback thread: the dependents run right here rather than hopping again. */
    void publishOnCallbackThread() {
        publishingThread = Thread.currentThread();
        try {
            publish();
        } finally {
            publishingThread = null;
        }
    }

    private void runDependent(Runnable task) {
        if (publishingThread == Thread.currentThread()) {
            task.run();
            return;
        }
        try {
            callbacks.execute(task);
        } catch (RejectedExecutionException shutDown) {
            // The client is closing and its executor is gone: run it here rather than lose it.
            task.run();
        }
    }

    /**
     * Completes this future itself with the settled outcome. Its dependents are handed to the callback executor
     * (see the class comment); the only code that can run on the calling thread is what the JDK attaches itself.
     */
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

    // ---------------------------------------------------------------------------------------- dependents

    @Override
    public Executor defaultExecutor() {
        return dependents;
    }

    @Override
    public <U> CompletableFuture<U> thenApply(Function<? super T, ? extends U> fn) {
        return thenApplyAsync(fn, dependents);
    }

    @Override
    public CompletableFuture<Void> thenAccept(Consumer<? super T> action) {
        return thenAcceptAsync(action, dependents);
    }

    @Override
    public CompletableFuture<Void> thenRun(Runnable action) {
        return thenRunAsync(action, dependents);
    }

    @Override
    public <U, V> CompletableFuture<V> thenCombine(CompletionStage<? extends U> other,
                                                   BiFunction<? super T, ? super U, ? extends V> fn) {
        return thenCombineAsync(other, fn, dependents);
    }

    @Override
    public <U> CompletableFuture<Void> thenAcceptBoth(CompletionStage<? extends U> other,
                                                      BiConsumer<? super T, ? super U> action) {
        return thenAcceptBothAsync(other, action, dependents);
    }

    @Override
    public CompletableFuture<Void> runAfterBoth(CompletionStage<?> other, Runnable action) {
        return runAfterBothAsync(other, action, dependents);
    }

    @Override
    public <U> CompletableFuture<U> applyToEither(CompletionStage<? extends T> other, Function<? super T, U> fn) {
        return applyToEitherAsync(other, fn, dependents);
    }

    @Override
    public CompletableFuture<Void> acceptEither(CompletionStage<? extends T> other, Consumer<? super T> action) {
        return acceptEitherAsync(other, action, dependents);
    }

    @Override
    public CompletableFuture<Void> runAfterEither(CompletionStage<?> other, Runnable action) {
        return runAfterEitherAsync(other, action, dependents);
    }

    @Override
    public <U> CompletableFuture<U> thenCompose(Function<? super T, ? extends CompletionStage<U>> fn) {
        return thenComposeAsync(fn, dependents);
    }

    @Override
    public CompletableFuture<T> whenComplete(BiConsumer<? super T, ? super Throwable> action) {
        return whenCompleteAsync(action, dependents);
    }

    @Override
    public <U> CompletableFuture<U> handle(BiFunction<? super T, Throwable, ? extends U> fn) {
        return handleAsync(fn, dependents);
    }

    @Override
    public CompletableFuture<T> exceptionally(Function<Throwable, ? extends T> fn) {
        return exceptionallyAsync(fn, dependents);
    }

    @Override
    public CompletableFuture<T> exceptionallyCompose(Function<Throwable, ? extends CompletionStage<T>> fn) {
        return exceptionallyComposeAsync(fn, dependents);
    }

    @Override
    public CompletableFuture<T> copy() {
        return thenApply(Function.identity());
    }

    @Override
    public CompletionStage<T> minimalCompletionStage() {
        return copy().minimalCompletionStage();
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
     * Not with two processors or fewer: the spinning caller, the reader thread that reads the answer and the server
     * that writes it are three threads that want to run, and the spin takes the processor one of the others needs
     * (on two processors a round trip measured 22-26 µs without the spin and 26-58 µs with it).
     */
    private long spinBriefly(long limit) {
        if (limit <= 0 || settled.isDone() || !SPINS) {
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

    /** {@return whether a waiting caller spins before it parks, on a machine with this many processors} */
    static boolean spinsWith(int processors) {
        return processors > 2;
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

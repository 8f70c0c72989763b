package dev.codexclient.internal.session;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One operation of an engine, with its two faces: {@link #join()} for a handle's blocking method and
 * {@link #async()} for its {@code …Async} twin. An engine has one method per operation, returning this; the
 * handle's two methods are one line each, so the twins cannot drift.
 *
 * <p>Nothing is sent until one of the two is called. {@link #join()} waits through {@link Waits} (at most the
 * request timeout; refused at once where the wait could never end) and then finishes on the calling thread, so a
 * blocking call needs nothing but the answer: no callback thread. {@link #async()} finishes in a dependent of the
 * call, on the callback executor, and never blocks.
 *
 * @param <T> what the operation gives
 */
public interface Operation<T> {

    /** {@return what the operation gives, once the server answered} Blocks at most the request timeout. */
    T join();

    /** {@return a future of what the operation gives}, without blocking; it fails with what {@link #join()} throws */
    CompletableFuture<T> async();

    /**
     * An operation of one call and what the engine makes of its answer.
     *
     * @param <R>   the call's result
     * @param <T>   what the operation gives
     * @param waits how the blocking face waits
     * @param what  names the call in a timeout or a refusal ("thread/read")
     * @param call  sends the call; run by {@link #join()} or {@link #async()}
     * @param then  makes the operation's value from the call's result: on the calling thread for {@link #join()}, in
     *              a dependent for {@link #async()}
     * @return the operation
     */
    static <R, T> Operation<T> of(Waits waits, String what, Supplier<CompletableFuture<R>> call,
                                  Function<? super R, ? extends T> then) {
        Objects.requireNonNull(call, "call");
        Objects.requireNonNull(then, "then");
        return new Operation<>() {
            @Override
            public T join() {
                return then.apply(waits.call(call.get(), what));
            }

            @Override
            public CompletableFuture<T> async() {
                CompletableFuture<R> sent;
                try {
                    sent = call.get();
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
                return sent.thenApply(then);
            }
        };
    }

    /**
     * An operation of one call whose answer is all it gives.
     *
     * @param <R>   the call's result
     * @param waits how the blocking face waits
     * @param what  names the call
     * @param call  sends the call
     * @return the operation
     */
    static <R> Operation<R> of(Waits waits, String what, Supplier<CompletableFuture<R>> call) {
        return of(waits, what, call, Function.identity());
    }
}

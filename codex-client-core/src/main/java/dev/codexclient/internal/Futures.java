package dev.codexclient.internal;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The one bridge between futures the client uses where a stage it hands out stands for another one: the server
 * withdraws a request, and the cancellation of the stage the connection holds must reach the handler's own stage,
 * a synchronous policy's thread, or a handling parked across a restart. A dependent stage does not cancel the stage
 * it depends on by itself; everything that needs it goes through here, so it is written once.
 *
 * <p>A cancellation carries its exception along: the stage cancelled by the client with a
 * {@code ServerRequestWithdrawnException} (which tells why) cancels the handler's own stage with that same exception,
 * so the handler reads why. Cancelling with an exception is {@link #cancel}: the stage {@code isCancelled()} exactly
 * as after {@code cancel(true)}.
 */
public final class Futures {
    private Futures() {
    }

    /**
     * Completes {@code target} as {@code source} completes, and runs {@code onCancel} when {@code target} is
     * cancelled first (typically: cancel {@code source}, or whatever computes it).
     *
     * @param <T>      the value's type
     * @param source   the stage that decides
     * @param target   the stage handed out
     * @param onCancel what cancelling {@code target} does; it must not throw
     * @return {@code target}
     */
    public static <T> CompletableFuture<T> bridge(CompletionStage<? extends T> source, CompletableFuture<T> target,
                                                  Runnable onCancel) {
        return bridge(source, target, (CancellationException why) -> onCancel.run());
    }

    /**
     * Like {@link #bridge(CompletionStage, CompletableFuture, Runnable)}, with the cancellation's exception given to
     * {@code onCancel}.
     *
     * @param <T>      the value's type
     * @param source   the stage that decides
     * @param target   the stage handed out
     * @param onCancel what cancelling {@code target} does, given the exception it was cancelled with; must not throw
     * @return {@code target}
     */
    public static <T> CompletableFuture<T> bridge(CompletionStage<? extends T> source, CompletableFuture<T> target,
                                                  Consumer<CancellationException> onCancel) {
        whenCancelled(target, onCancel);
        source.whenComplete((v, e) -> {
            if (e == null) {
                target.complete(v);
            } else {
                target.completeExceptionally(e);
            }
        });
        return target;
    }

    /**
     * {@return {@code future}, whose cancellation cancels {@code source} with the same exception}
     *
     * @param <F>    the future's type
     * @param future the stage handed out
     * @param source the stage it stands for
     */
    public static <F extends CompletableFuture<?>> F cancelling(F future, CompletableFuture<?> source) {
        return whenCancelled(future, (CancellationException why) -> cancel(source, why));
    }

    /**
     * Cancels {@code future} with {@code why}: it {@code isCancelled()} then, as after {@code cancel(true)}, and its
     * exception is {@code why} (a reason the cancelled party may read).
     *
     * @param future the future
     * @param why    the cancellation
     * @return whether this call cancelled it (false when it was done already)
     */
    public static boolean cancel(CompletableFuture<?> future, CancellationException why) {
        return future.completeExceptionally(why);
    }

    /**
     * {@return a new stage that completes as {@code source} does, and whose cancellation cancels {@code source}}
     *
     * @param <T>    the value's type
     * @param source the stage that decides
     */
    public static <T> CompletableFuture<T> cancellableCopy(CompletableFuture<? extends T> source) {
        return bridge(source, new CompletableFuture<>(), (CancellationException why) -> cancel(source, why));
    }

    /**
     * Runs {@code action} if {@code future} ends cancelled (not when it completes otherwise).
     *
     * @param <F>    the future's type
     * @param future the future
     * @param action what its cancellation does; it must not throw
     * @return {@code future}
     */
    public static <F extends CompletableFuture<?>> F whenCancelled(F future, Runnable action) {
        return whenCancelled(future, (CancellationException why) -> action.run());
    }

    /**
     * Runs {@code action} with the cancellation's exception if {@code future} ends cancelled.
     *
     * @param <F>    the future's type
     * @param future the future
     * @param action what its cancellation does; it must not throw
     * @return {@code future}
     */
    public static <F extends CompletableFuture<?>> F whenCancelled(F future, Consumer<CancellationException> action) {
        future.whenComplete((v, e) -> {
            if (future.isCancelled()) {
                // A cancelled future's own exception is the CancellationException it was cancelled with.
                action.accept(e instanceof CancellationException c ? c : new CancellationException());
            }
        });
        return future;
    }
}

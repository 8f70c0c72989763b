package dev.codexclient.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The one bridge between futures the client uses where a stage it hands out stands for another one: the server
 * withdraws a request, and the cancellation of the stage the connection holds must reach the handler's own stage,
 * a synchronous policy's thread, or a handling parked across a restart. A dependent stage does not cancel the stage
 * it depends on by itself; everything that needs it goes through here, so it is written once.
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
     * {@return a new stage that completes as {@code source} does, and whose cancellation cancels {@code source}}
     *
     * @param <T>    the value's type
     * @param source the stage that decides
     */
    public static <T> CompletableFuture<T> cancellableCopy(CompletableFuture<? extends T> source) {
        return bridge(source, new CompletableFuture<>(), () -> source.cancel(true));
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
        future.whenComplete((v, e) -> {
            if (future.isCancelled()) {
                action.run();
            }
        });
        return future;
    }
}

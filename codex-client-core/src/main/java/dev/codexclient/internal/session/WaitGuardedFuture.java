package dev.codexclient.internal.session;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A future whose blocking waits ({@code get}, {@code join}) first run a check that fails fast where the wait could
 * never end (see {@link Waits#checkMayAwait}). Everything else is a plain {@link CompletableFuture}; stages
 * derived from it are plain futures.
 */
public final class WaitGuardedFuture<T> extends CompletableFuture<T> {
    private final Runnable guard;

    public WaitGuardedFuture(Runnable guard) {
        this.guard = guard;
    }

    private void check() {
        if (!isDone()) {
            guard.run();
        }
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        check();
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        check();
        return super.get(timeout, unit);
    }

    @Override
    public T join() {
        check();
        return super.join();
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CompletableFuture<>();
    }
}

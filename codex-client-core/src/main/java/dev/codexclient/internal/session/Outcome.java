package dev.codexclient.internal.session;

import dev.codexclient.errors.CodexTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What a handle waits for that runs longer than a call, a turn's end or a streamed search's, with its two faces:
 * {@link #await(Duration)} for the blocking method and {@link #future()} for the non-blocking one. Both refuse,
 * with {@link dev.codexclient.errors.CodexDeadlockException}, a wait on the delivery lane that must deliver the end
 * (the blocking one at once, the future's {@code get()} and {@code join()} when called).
 *
 * @param <T> what the end gives
 */
public final class Outcome<T> {
    private final Waits waits;
    /** Throws where a wait, named by the argument, could never end. */
    private final Consumer<String> refuse;
    /** The blocking face's name in a refusal ({@code "turn.await()"}). */
    private final String awaitName;
    /** What is waited for, in a timeout ({@code "completion of a turn of thread t"}). */
    private final String subject;
    /** The end as a wait begun now sees it (a turn's also waits for the replays of the listeners added so far). */
    private final Supplier<CompletableFuture<T>> end;

    /**
     * @param waits     how the blocking face waits
     * @param refuse    throws where a wait, named by its argument, could never end
     * @param awaitName the blocking face's name in a refusal
     * @param subject   what is waited for, in a timeout
     * @param end       the end as a wait begun now sees it; never handed out, only copies of it
     */
    Outcome(Waits waits, Consumer<String> refuse, String awaitName, String subject,
            Supplier<CompletableFuture<T>> end) {
        this.waits = waits;
        this.refuse = refuse;
        this.awaitName = awaitName;
        this.subject = subject;
        this.end = end;
    }

    /**
     * Waits for the end, at most {@code timeout} on the client's clock; the end itself is left alone when the wait
     * runs out.
     *
     * @param timeout the longest wait
     * @return what the end gives
     * @throws CodexTimeoutException when it has not ended after {@code timeout}
     * @throws dev.codexclient.errors.CodexDeadlockException on the lane that delivers the end
     */
    public T await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        CompletableFuture<T> ended = end.get();
        if (!ended.isDone()) {
            refuse.accept(awaitName);
        }
        return waits.within(ended, timeout, () -> CodexTimeoutException.waitingFor(subject, timeout), subject);
    }

    /**
     * {@return the same wait, giving what {@code as} makes of the end} {@code as} runs where the end completes, or
     * on the waiting thread when it has completed.
     *
     * @param <U> what the mapped end gives
     * @param as  makes it of the end
     */
    public <U> Outcome<U> map(Function<? super T, ? extends U> as) {
        return new Outcome<>(waits, refuse, awaitName, subject, () -> end.get().thenApply(as));
    }

    /**
     * {@return a new future of the end, whose {@code get()} and {@code join()} refuse where they could never end}
     * Cancelling it changes nothing for what it waits for.
     */
    public CompletableFuture<T> future() {
        WaitGuardedFuture<T> copy = new WaitGuardedFuture<>(() -> refuse.accept("waiting for " + subject));
        end.get().whenComplete((v, e) -> {
            if (e == null) {
                copy.complete(v);
            } else {
                copy.completeExceptionally(e);
            }
        });
        return copy;
    }
}

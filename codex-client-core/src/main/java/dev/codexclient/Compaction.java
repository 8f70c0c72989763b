package dev.codexclient;

import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.internal.rpc.Lanes;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.TurnStatus;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A compaction of a thread's history followed to its end: {@link CodexThread#compactAndAwaitAsync()}. Codex compacts
 * in a turn of its own ({@code turn/started}, a {@code contextCompaction} item, {@code turn/completed}) after
 * {@code thread/compact/start} has been answered, and refuses a turn started before that turn has ended
 * ({@code ActiveTurnNotSteerable}); so the compaction is over when that turn has completed.
 *
 * <p>Followed on the thread's {@link CodexThread#publisher() publisher}, subscribed before the compaction starts, so
 * that the events cannot be missed, and whose end (the connection failed, the thread or the client closed) fails the
 * compaction rather than leaving it waiting.
 */
final class Compaction implements Flow.Subscriber<ServerNotification> {
    /** The thread's id, its events and its {@code thread/compact/start}: all the compaction needs of its thread. */
    private final String threadId;
    private final Supplier<CompletableFuture<Void>> compact;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    /** The turn codex compacts in: the first turn the thread starts once the compaction was asked for. */
    private volatile String turnId;

    private Compaction(String threadId, Supplier<CompletableFuture<Void>> compact) {
        this.threadId = threadId;
        this.compact = compact;
    }

    /**
     * Follows a compaction of a thread to its end.
     *
     * @param threadId the thread's id
     * @param events   the thread's events, subscribed to before the compaction starts
     * @param compact  starts it ({@code thread/compact/start})
     * @return completes when codex has finished compacting
     */
    static CompletableFuture<Void> start(String threadId, Flow.Publisher<ServerNotification> events,
                                         Supplier<CompletableFuture<Void>> compact) {
        Compaction compaction = new Compaction(threadId, compact);
        events.subscribe(compaction);
        return compaction.done;
    }

    /** The blocking form: at most {@code timeout}, and never on the thread's own delivery lane. */
    static void await(String threadId, Flow.Publisher<ServerNotification> events,
                      Supplier<CompletableFuture<Void>> compact, Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (threadId.equals(Lanes.currentKey())) {
            throw new CodexDeadlockException("compactAndAwait() was called inside a listener of thread "
                    + threadId + ", whose events (the end of the compaction among them) that listener holds up; "
                    + "use compactAndAwaitAsync() there instead");
        }
        CompletableFuture<Void> compaction = start(threadId, events, compact);
        try {
            compaction.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw CodexTimeoutException.waitingFor("the compaction of thread " + threadId, timeout);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof CodexException ce ? ce
                    : new CodexException("the compaction of thread " + threadId + " failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            compaction.cancel(true);
            throw new CodexException("interrupted while thread " + threadId + " was compacted", e);
        }
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        done.whenComplete((v, e) -> s.cancel());
        s.request(Long.MAX_VALUE);
        compact.get().whenComplete((v, e) -> {
            if (e != null) {
                done.completeExceptionally(e instanceof CompletionException ce && ce.getCause() != null
                        ? ce.getCause() : e);
            }
        });
    }

    @Override
    public void onNext(ServerNotification n) {
        if (n instanceof ServerNotification.TurnStarted started && turnId == null && started.params() != null
                && started.params().turn() != null) {
            turnId = started.params().turn().id();
        } else if (n instanceof ServerNotification.TurnCompleted completed && completed.params() != null
                && completed.params().turn() != null && Objects.equals(turnId, completed.params().turn().id())) {
            Turn turn = completed.params().turn();
            if (turn.status() == TurnStatus.COMPLETED) {
                done.complete(null);
            } else {
                done.completeExceptionally(new CodexException("the compaction of thread " + threadId
                        + " ended " + turn.status() + (turn.error() == null ? "" : ": " + turn.error().message())));
            }
        }
    }

    @Override
    public void onError(Throwable failure) {
        done.completeExceptionally(failure instanceof CodexException ? failure
                : new CodexException("the events of thread " + threadId + " failed during its compaction",
                failure));
    }

    @Override
    public void onComplete() {
        done.completeExceptionally(new CodexException("the events of thread " + threadId
                + " ended before its compaction did (the thread or the client was closed)"));
    }
}

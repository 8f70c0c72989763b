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
    private final CodexThread thread;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    /** The turn codex compacts in: the first turn the thread starts once the compaction was asked for. */
    private volatile String turnId;

    private Compaction(CodexThread thread) {
        this.thread = thread;
    }

    static CompletableFuture<Void> start(CodexThread thread) {
        Compaction compaction = new Compaction(thread);
        thread.publisher().subscribe(compaction);
        return compaction.done;
    }

    /** The blocking form: at most {@code timeout}, and never on the thread's own delivery lane. */
    static void await(CodexThread thread, Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (thread.id().equals(Lanes.currentKey())) {
            throw new CodexDeadlockException("compactAndAwait() was called inside a listener of thread "
                    + thread.id() + ", whose events (the end of the compaction among them) that listener holds up; "
                    + "use compactAndAwaitAsync() there instead");
        }
        CompletableFuture<Void> compaction = start(thread);
        try {
            compaction.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw CodexTimeoutException.waitingFor("the compaction of thread " + thread.id(), timeout);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof CodexException ce ? ce
                    : new CodexException("the compaction of thread " + thread.id() + " failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            compaction.cancel(true);
            throw new CodexException("interrupted while thread " + thread.id() + " was compacted", e);
        }
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        done.whenComplete((v, e) -> s.cancel());
        s.request(Long.MAX_VALUE);
        thread.compactAsync().whenComplete((v, e) -> {
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
                done.completeExceptionally(new CodexException("the compaction of thread " + thread.id()
                        + " ended " + turn.status() + (turn.error() == null ? "" : ": " + turn.error().message())));
            }
        }
    }

    @Override
    public void onError(Throwable failure) {
        done.completeExceptionally(failure instanceof CodexException ? failure
                : new CodexException("the events of thread " + thread.id() + " failed during its compaction",
                failure));
    }

    @Override
    public void onComplete() {
        done.completeExceptionally(new CodexException("the events of thread " + thread.id()
                + " ended before its compaction did (the thread or the client was closed)"));
    }
}

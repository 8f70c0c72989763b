package dev.codexclient.internal.requests;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.internal.Futures;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;

/**
 * How the client runs a policy made by {@code ApprovalPolicy.sync}: called by user code, such a policy decides on
 * the calling thread; the client runs its decision with {@link #decideOn} instead, as a task of its own whose thread
 * is interrupted when the server withdraws the request.
 */
public final class SyncApprovalPolicy {

    /**
     * What a synchronous policy offers the client besides its asynchronous face: its decision, made on the calling
     * thread.
     *
     * @param <R> the kind of request it decides
     */
    public interface Blocking<R> {
        /**
         * Decides, blocking.
         *
         * @param request the request
         * @return the decision, not null
         * @throws Exception when the decision fails
         */
        ApprovalDecision decideNow(R request) throws Exception;
    }

    private SyncApprovalPolicy() {
    }

    /**
     * Decides on {@code executor}; cancelling the returned future interrupts the deciding thread (a
     * {@link FutureTask} interrupts only while the decision still runs, never a later task of that thread).
     *
     * @param <R>      the kind of request
     * @param policy   the synchronous policy
     * @param executor where the decision runs
     * @param request  the request
     * @return the decision
     */
    public static <R> CompletableFuture<ApprovalDecision> decideOn(Blocking<? super R> policy, Executor executor,
                                                                  R request) {
        CompletableFuture<ApprovalDecision> result = new CompletableFuture<>();
        FutureTask<Void> task = new FutureTask<>(() -> {
            try {
                result.complete(Objects.requireNonNull(policy.decideNow(request),
                        "the approval policy decided null"));
            } catch (Exception e) {
                result.completeExceptionally(e);
            }
        }, null);
        Futures.whenCancelled(result, () -> task.cancel(true));
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(e);
        }
        return result;
    }
}

package dev.codexclient.internal.requests;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.internal.Futures;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;

/**
 * How the client runs an {@link ApprovalPolicy.Blocking} policy (made by {@code ApprovalPolicy.sync}): called by
 * user code, such a policy decides on the calling thread; the client runs its decision with {@link #decideOn}
 * instead, as a task of its own whose thread is interrupted when the server withdraws the request.
 */
public final class SyncApprovalPolicy {

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
    public static <R extends ApprovalRequest> CompletableFuture<ApprovalDecision> decideOn(
            ApprovalPolicy.Blocking<? super R> policy, Executor executor, R request) {
        CompletableFuture<ApprovalDecision> result = new CompletableFuture<>();
        FutureTask<Void> task = new FutureTask<>(() -> {
            try {
                result.complete(policy.decideNow(request));
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

package dev.codexclient.internal.requests;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;

/**
 * The policy {@link ApprovalPolicy#sync} makes. Called by user code, it decides on the calling thread; the client
 * runs it with {@link #decideOn} instead, as a task of its own whose thread is interrupted when the server withdraws
 * the request.
 */
public final class SyncApprovalPolicy<R extends ApprovalRequest> implements ApprovalPolicy<R> {
    private final ApprovalPolicy.Sync<? super R> decide;

    public SyncApprovalPolicy(ApprovalPolicy.Sync<? super R> decide) {
        this.decide = decide;
    }

    @Override
    public CompletionStage<ApprovalDecision> decide(R request) {
        try {
            return CompletableFuture.completedFuture(decision(request));
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Decides on {@code executor}; cancelling the returned future interrupts the deciding thread (a
     * {@link FutureTask} interrupts only while the decision still runs, never a later task of that thread).
     */
    public CompletableFuture<ApprovalDecision> decideOn(Executor executor, R request) {
        CompletableFuture<ApprovalDecision> result = new CompletableFuture<>();
        FutureTask<Void> task = new FutureTask<>(() -> {
            try {
                result.complete(decision(request));
            } catch (Exception e) {
                result.completeExceptionally(e);
            }
        }, null);
        result.whenComplete((d, e) -> {
            if (result.isCancelled()) {
                task.cancel(true);
            }
        });
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    private ApprovalDecision decision(R request) throws Exception {
        return Objects.requireNonNull(decide.decide(request), "the approval policy decided null");
    }
}

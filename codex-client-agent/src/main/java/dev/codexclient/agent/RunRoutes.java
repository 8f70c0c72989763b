package dev.codexclient.agent;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClientBuilder;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which run an approval request belongs to, by the thread it names: each run's approval policy answers its own
 * thread's requests, so one client can serve several runs with different policies. (Each run's dynamic tools are its
 * thread's own, declared and answered by the client per thread.) One job: the table and the policy that reads it.
 */
final class RunRoutes {
    private final Map<String, ApprovalPolicy<ApprovalRequest>> byThread = new ConcurrentHashMap<>();

    /** Registers the routing policy on {@code builder}: every approval goes to the policy of its thread's run. */
    void install(CodexClientBuilder builder) {
        builder.approvals(this::decide);
    }

    /** Answers the approvals of {@code threadId} with {@code policy} until {@link #remove}. */
    void add(String threadId, ApprovalPolicy<ApprovalRequest> policy) {
        byThread.put(Objects.requireNonNull(threadId, "threadId"), Objects.requireNonNull(policy, "policy"));
    }

    void remove(String threadId) {
        byThread.remove(threadId);
    }

    private CompletionStage<ApprovalDecision> decide(ApprovalRequest request) {
        ApprovalPolicy<ApprovalRequest> policy = byThread.get(threadOf(request));
        if (policy == null) {
            // A thread no run owns (any more): nothing may run on its behalf.
            return CompletableFuture.completedFuture(ApprovalDecision.DECLINE);
        }
        return policy.decide(request);
    }

    private static String threadOf(ApprovalRequest request) {
        String id;
        if (request instanceof ApprovalRequest.Command c) {
            id = c.params().threadId();
        } else if (request instanceof ApprovalRequest.FileChange f) {
            id = f.params().threadId();
        } else if (request instanceof ApprovalRequest.Permissions p) {
            id = p.params().threadId();
        } else if (request instanceof ApprovalRequest.LegacyCommand c) {
            id = c.params().conversationId();
        } else if (request instanceof ApprovalRequest.LegacyPatch p) {
            id = p.params().conversationId();
        } else {
            id = null;
        }
        return id == null ? "" : id;
    }
}

package dev.codexclient.internal.requests;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The approval policies of single threads ({@code ThreadOptions#approvals()}), kept by thread id: a thread's own policy
 * decides its approvals in place of the client's. Kept as a thread's own tools are ({@link ToolTable}): across idle
 * periods and restarts, until the server closes the thread; a later {@code thread/resume} with a policy declares it
 * again.
 *
 * <p>Threading: safe for concurrent use; lookups never block.
 */
public final class ThreadApprovals {
    private final Map<String, ApprovalPolicy<ApprovalRequest>> byThread = new ConcurrentHashMap<>();

    /**
     * Decides the approvals of {@code threadId} with {@code policy} from now on, in place of what it had.
     *
     * @param threadId the thread
     * @param policy   its policy
     */
    public void declare(String threadId, ApprovalPolicy<ApprovalRequest> policy) {
        byThread.put(Objects.requireNonNull(threadId, "threadId"), Objects.requireNonNull(policy, "policy"));
    }

    /**
     * Forgets the policy of a thread the server closed.
     *
     * @param threadId the thread
     */
    public void forget(String threadId) {
        byThread.remove(threadId);
    }

    /**
     * {@return the policy of the thread {@code request} names; empty when it has none, or names no thread}
     *
     * @param request the approval the server asks for
     */
    public Optional<ApprovalPolicy<ApprovalRequest>> of(ApprovalRequest request) {
        return request.threadId().map(byThread::get);
    }

    /**
     * {@return whether {@code threadId} has a policy of its own}
     *
     * @param threadId the thread
     */
    public boolean has(String threadId) {
        return byThread.containsKey(threadId);
    }

    /** {@return how many threads have a policy of their own} */
    public int threads() {
        return byThread.size();
    }
}

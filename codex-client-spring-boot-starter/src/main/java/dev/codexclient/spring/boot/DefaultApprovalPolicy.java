package dev.codexclient.spring.boot;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;

/**
 * The approval policies {@code codex.approval-policy} can name: the refusing ones. A policy that accepts anything
 * is a decision about what the agent may do on this machine, so it is code the application writes, as an
 * {@link ApprovalPolicy} bean, never a property that a stray configuration file could set.
 */
public enum DefaultApprovalPolicy {

    /** Declines every approval; the turn goes on without the action (the client's default). */
    DECLINE(ApprovalDecision.DECLINE),

    /** Cancels every approval: the action is refused and the turn stops. */
    CANCEL(ApprovalDecision.CANCEL);

    private final ApprovalDecision decision;

    DefaultApprovalPolicy(ApprovalDecision decision) {
        this.decision = decision;
    }

    /**
     * The policy this constant names.
     *
     * @return a policy that answers every approval request with this constant's decision
     */
    public ApprovalPolicy<ApprovalRequest> policy() {
        return ApprovalPolicy.always(decision);
    }
}

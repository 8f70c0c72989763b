package dev.codexclient;

import java.util.Objects;

/**
 * Decides every approval codex asks for: commands, file changes, permission grants, and their legacy forms.
 * Register one with {@link CodexClient.Builder#approvals(ApprovalPolicy)}; a typed handler registered for a
 * specific request type (e.g. {@link CodexClient.Builder#onCommandApproval}) takes precedence for that type.
 *
 * <p>The policy runs on the client's callback executor, never on the connection's reader thread, so it may block
 * (e.g. to ask a person). Without any policy the client declines everything.
 *
 * <pre>{@code
 * ApprovalPolicy policy = request -> request instanceof ApprovalRequest.Command c
 *         && String.valueOf(c.params().command()).startsWith("git status")
 *         ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE;
 * }</pre>
 */
@FunctionalInterface
public interface ApprovalPolicy {

    /** The decision for one request. Must not return null. */
    ApprovalDecision decide(ApprovalRequest request) throws Exception;

    /** Declines everything (the default). Permission requests are answered with an empty grant. */
    static ApprovalPolicy declineAll() {
        return request -> ApprovalDecision.DECLINE;
    }

    /** Accepts each request once. Use only in sandboxes you trust. */
    static ApprovalPolicy acceptAll() {
        return request -> ApprovalDecision.ACCEPT;
    }

    /** Accepts each request and everything like it for the rest of the session. */
    static ApprovalPolicy acceptForSession() {
        return request -> ApprovalDecision.ACCEPT_FOR_SESSION;
    }

    /** Always answers {@code decision}. */
    static ApprovalPolicy always(ApprovalDecision decision) {
        Objects.requireNonNull(decision, "decision");
        return request -> decision;
    }
}

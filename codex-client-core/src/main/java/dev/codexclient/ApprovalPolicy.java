package dev.codexclient;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Decides approvals codex asks for, asynchronously like every other handler: it returns a stage that completes
 * with the {@link ApprovalDecision}. Register one for every kind with {@link CodexClient.Builder#approvals}, or for
 * one kind with {@link CodexClient.Builder#onCommandApproval} or {@link CodexClient.Builder#onFileChangeApproval};
 * {@code R} is the kind of request it decides ({@link ApprovalRequest} for all of them). Without any policy the
 * client declines everything.
 *
 * <p>A policy that is still deciding when the server withdraws its request ({@code serverRequest/resolved}, for
 * instance because the turn was interrupted) has its stage cancelled, and nothing is sent. A policy that decides
 * on the spot, or blocks to ask a person, is written with {@link #sync(Sync)}; it runs on the client's callback
 * executor, and its thread is interrupted when the request is withdrawn. (There is one functional interface for
 * both forms, with an adapter, because a lambda could not tell two overloads apart.)
 *
 * <pre>{@code
 * CodexClient.builder()
 *     .approvals(ApprovalPolicy.sync(request -> request instanceof ApprovalRequest.Command c
 *             && c.params().command().startsWith("git status")
 *             ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE))
 *     .onFileChangeApproval(change -> reviewers.ask(change.params()))   // a CompletionStage<ApprovalDecision>
 *     .build();
 * }</pre>
 *
 * @param <R> the kind of approval request the policy decides
 */
@FunctionalInterface
public interface ApprovalPolicy<R extends ApprovalRequest> {

    /**
     * The decision for one request, as a stage that completes with it. A stage that fails (or a decision of
     * another kind of request) is answered with a JSON-RPC error, which codex treats as a refusal.
     *
     * @param request the approval the server asks for
     * @return a stage of the decision; it is cancelled when the server withdraws the request
     */
    CompletionStage<ApprovalDecision> decide(R request);

    /**
     * A policy from a synchronous decision. It runs on the client's callback executor, never on the connection's
     * reader thread, so it may block (to ask a person, for instance); when the server withdraws the request while it
     * runs, its thread is interrupted and its decision, if any, is dropped. On the client's own executor it runs on
     * the threads for server-request handlers (at most 256 in the JVM; further decisions wait for one of them to
     * return), so decisions that block never hold up the delivery of events.
     *
     * @param <R>    the kind of approval request the policy decides
     * @param decide the decision
     * @return the policy
     */
    static <R extends ApprovalRequest> ApprovalPolicy<R> sync(Sync<? super R> decide) {
        return new SyncApprovalPolicy<>(Objects.requireNonNull(decide, "decide"));
    }

    /**
     * Declines everything (the default). Permission requests are answered with an empty grant.
     *
     * @param <R> the kind of approval request the policy decides
     * @return the policy
     */
    static <R extends ApprovalRequest> ApprovalPolicy<R> declineAll() {
        return always(ApprovalDecision.DECLINE);
    }

    /**
     * Accepts each request once. Use only in sandboxes you trust.
     *
     * @param <R> the kind of approval request the policy decides
     * @return the policy
     */
    static <R extends ApprovalRequest> ApprovalPolicy<R> acceptAll() {
        return always(ApprovalDecision.ACCEPT);
    }

    /**
     * Accepts each request and everything like it for the rest of the session.
     *
     * @param <R> the kind of approval request the policy decides
     * @return the policy
     */
    static <R extends ApprovalRequest> ApprovalPolicy<R> acceptForSession() {
        return always(ApprovalDecision.ACCEPT_FOR_SESSION);
    }

    /**
     * Always answers {@code decision}.
     *
     * @param <R>      the kind of approval request the policy decides
     * @param decision the decision for every request
     * @return the policy
     */
    static <R extends ApprovalRequest> ApprovalPolicy<R> always(ApprovalDecision decision) {
        Objects.requireNonNull(decision, "decision");
        CompletableFuture<ApprovalDecision> decided = CompletableFuture.completedFuture(decision);
        // A copy each time: a caller that completes or cancels its stage must not change the next one.
        return request -> decided.copy();
    }

    /**
     * A synchronous decision, for {@link #sync(Sync)}. It may throw: the request is then answered with a JSON-RPC
     * error.
     *
     * @param <R> the kind of approval request it decides
     */
    @FunctionalInterface
    interface Sync<R extends ApprovalRequest> {
        /**
         * The decision for one request.
         *
         * @param request the approval the server asks for
         * @return the decision; must not be null
         * @throws Exception when no decision can be made; the request is then answered with a JSON-RPC error
         */
        ApprovalDecision decide(R request) throws Exception;
    }
}

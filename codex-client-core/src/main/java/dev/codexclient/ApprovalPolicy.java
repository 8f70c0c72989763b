package dev.codexclient;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Decides approvals codex asks for, asynchronously like every other handler: it returns a stage that completes
 * with the {@link ApprovalDecision}. Register one for every kind with {@link CodexClientBuilder#approvals}, or for
 * one kind with {@link CodexClientBuilder#commandApprovals} or {@link CodexClientBuilder#fileChangeApprovals};
 * {@code R} is the kind of request it decides ({@link ApprovalRequest} for all of them). Without any policy the
 * client declines everything.
 *
 * <p>A policy that is still deciding when the server withdraws its request ({@code serverRequest/resolved}, for
 * instance because the turn was interrupted) or when the connection ends has its stage cancelled, and nothing is
 * sent; the stage's exception, a {@link ServerRequestWithdrawnException}, says why (resolved by the server, its
 * server gone, or the client disconnected from a server that may send the request again). A policy that decides
 * on the spot, or blocks to ask a person, is written with {@link #sync(Sync)}; it runs on the client's callback
 * executor, and its thread is interrupted when the request is withdrawn. (There is one functional interface for
 * both forms, with an adapter, because a lambda could not tell two overloads apart.)
 *
 * <pre>{@code
 * Set<String> allowed = Set.of("git status", "git diff --stat");          // whole command lines, never prefixes
 * CodexClient.builder()
 *     .approvals(ApprovalPolicy.sync(request -> request instanceof ApprovalRequest.Command c
 *             && allowed.contains(c.params().command())
 *             ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE))
 *     .fileChangeApprovals(change -> reviewers.ask(change.params()))   // a CompletionStage<ApprovalDecision>
 *     .build();
 * }</pre>
 *
 * <p>codex runs a command through a shell: a prefix such as {@code "git "} also matches
 * {@code git status; rm -rf ~}. Match whole command lines, as above, or use a policy that proves a command
 * read-only, such as the {@code ReadOnlyCommands} example of the project.
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
    static <R extends ApprovalRequest> Blocking<R> sync(Sync<? super R> decide) {
        return new Blocking<>(decide);
    }

    /**
     * A policy that decides synchronously, made by {@link #sync(Sync)}. The client runs {@link #decideNow} as a task
     * of its own where server-request handlers run, and interrupts that task's thread when the server withdraws the
     * request; {@link #decide}, which code of yours may call, decides on the calling thread.
     *
     * @param <R> the kind of approval request the policy decides
     */
    final class Blocking<R extends ApprovalRequest> implements ApprovalPolicy<R> {
        private final Sync<? super R> decide;

        private Blocking(Sync<? super R> decide) {
            this.decide = Objects.requireNonNull(decide, "decide");
        }

        /**
         * Decides on the calling thread, blocking while the decision takes.
         *
         * @param request the approval the server asks for
         * @return the decision, not null
         * @throws Exception when no decision can be made, or the decision is null
         */
        public ApprovalDecision decideNow(R request) throws Exception {
            return Objects.requireNonNull(decide.decide(request), "the approval policy decided null");
        }

        /** {@return the decision as a completed stage}, decided on the calling thread */
        @Override
        public CompletionStage<ApprovalDecision> decide(R request) {
            try {
                return CompletableFuture.completedFuture(decideNow(request));
            } catch (Exception e) {
                return CompletableFuture.failedFuture(e);
            }
        }
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

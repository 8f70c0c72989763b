package dev.codexclient;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one thread has of its own, beside the {@code thread/start} or {@code thread/resume} params codex is sent: the
 * dynamic tools declared on this thread only, and the approval policy that decides this thread's approvals. Different
 * threads of one client (or one pool) can so serve different users, runs or conversations, each with its tools and
 * its policy, without a client per thread. Given to {@link Codex#startThread(dev.codexclient.protocol.ThreadStartParams,
 * ThreadOptions)}, {@link Codex#resumeThread(dev.codexclient.protocol.ThreadResumeParams, ThreadOptions)} and their
 * async twins.
 *
 * <pre>{@code
 * CodexThread thread = codex.startThread(ThreadStartParams.builder().cwd(checkout).build(),
 *         ThreadOptions.builder()
 *                 .tools(List.of(lookupTicket))
 *                 .approvals(ApprovalPolicy.sync(r -> reviewers.decide(user, r)))
 *                 .build());
 * }</pre>
 *
 * <p><b>Tools</b>: declared to codex on this thread, beside the client's own
 * ({@link CodexClientBuilder#tool(DynamicTool)}), and answered for this thread only; they need
 * {@link CodexClientBuilder#experimentalApi(boolean) experimentalApi(true)}.
 *
 * <p><b>Approvals</b>: the policy answers every approval codex asks for on this thread (commands, file changes,
 * permissions, and the legacy kinds), in place of whatever the client has for them: its
 * {@link CodexClientBuilder#approvals general policy}, its policies for one kind
 * ({@link CodexClientBuilder#commandApprovals}, {@link CodexClientBuilder#fileChangeApprovals}) and a handler
 * registered for an approval method with {@link CodexClientBuilder#serverRequest}. It runs as the client's
 * policies run: a synchronous one ({@link ApprovalPolicy#sync}) on the threads for server-request handlers,
 * interrupted when codex withdraws its request; its decisions are reported to the telemetry listener as the client's
 * are. The approvals of other threads, and requests that name no thread, go to the client's own as before.
 *
 * <p><b>Lifetime</b>: a thread keeps its tools and its policy while its client serves it, across idle periods and
 * restarts, until the server closes the thread (codex unloads it, e.g. after {@link CodexThread#unsubscribe()} or an
 * archive). A resume that gives tools or a policy gives them to the thread from then on; a resume that gives none
 * leaves those the client still keeps. A fork has none of its source's. A pool's thread keeps its options across the
 * replacement of its member's client and a move to another member: they are given again with its resume there.
 */
public final class ThreadOptions {
    private static final ThreadOptions NONE = new ThreadOptions(List.of(), Optional.empty());

    private final List<DynamicTool> tools;
    private final Optional<ApprovalPolicy<ApprovalRequest>> approvals;

    private ThreadOptions(List<DynamicTool> tools, Optional<ApprovalPolicy<ApprovalRequest>> approvals) {
        this.tools = tools;
        this.approvals = approvals;
    }

    /** {@return options that give a thread nothing of its own: the client's tools and policies serve it} */
    public static ThreadOptions none() {
        return NONE;
    }

    /**
     * {@return options with these tools and no approval policy of the thread's own}
     *
     * @param tools the thread's own tools, in order; empty for none
     */
    @CodexExperimental("dynamicTools")
    public static ThreadOptions tools(List<DynamicTool> tools) {
        return builder().tools(tools).build();
    }

    /** {@return a new builder, with no tools and no approval policy} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the thread's own tools, in order; empty for none} */
    @CodexExperimental("dynamicTools")
    public List<DynamicTool> tools() {
        return tools;
    }

    /** {@return the policy that decides this thread's approvals; empty when the client's own decide them} */
    public Optional<ApprovalPolicy<ApprovalRequest>> approvals() {
        return approvals;
    }

    @Override
    public String toString() {
        return "ThreadOptions[tools=" + tools.stream().map(DynamicTool::name).toList() + ", approvals="
                + (approvals.isPresent() ? "own" : "the client's") + "]";
    }

    /** Builds {@link ThreadOptions}. */
    public static final class Builder {
        private final List<DynamicTool> tools = new ArrayList<>();
        private ApprovalPolicy<ApprovalRequest> approvals;

        private Builder() {
        }

        /**
         * Adds tools of the thread's own, after those added before.
         *
         * @param tools the tools, in order
         * @return this builder
         */
        @CodexExperimental("dynamicTools")
        public Builder tools(List<DynamicTool> tools) {
            Objects.requireNonNull(tools, "tools");
            tools.forEach(t -> this.tools.add(Objects.requireNonNull(t, "tool")));
            return this;
        }

        /**
         * Adds one tool of the thread's own, after those added before.
         *
         * @param tool the tool
         * @return this builder
         */
        @CodexExperimental("dynamicTools")
        public Builder tool(DynamicTool tool) {
            tools.add(Objects.requireNonNull(tool, "tool"));
            return this;
        }

        /**
         * The policy that decides every approval of the thread, in place of the client's (see the class comment).
         *
         * @param policy the thread's policy
         * @return this builder
         */
        public Builder approvals(ApprovalPolicy<ApprovalRequest> policy) {
            this.approvals = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** {@return the options} Checking the tools' names against each other and the client's is the client's. */
        public ThreadOptions build() {
            return new ThreadOptions(List.copyOf(tools), Optional.ofNullable(approvals));
        }
    }
}

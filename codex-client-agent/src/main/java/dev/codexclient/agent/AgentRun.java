package dev.codexclient.agent;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.DynamicTool;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import dev.codexclient.agent.workspace.Workspace;
import dev.codexclient.agent.session.SessionStore;
import dev.codexclient.agent.model.ModelConfig;

/**
 * One agent run, as {@link AgentRunner#run(AgentRun)} takes it: a prompt evaluated by codex in a working directory
 * (a {@link Workspace}'s, or one of the host's), with dynamic tools, external MCP servers, an output type, a token
 * budget and a deadline, a model configuration, an approval policy, and a session key to resume a thread across
 * runs.
 *
 * <pre>{@code
 * AgentRun<Verdict> run = AgentRun.builder("Review the code in ./src and give a verdict", Verdict.class)
 *         .workspace(workspace)
 *         .budget(TokenBudget.ofTotal(200_000))
 *         .timeout(Duration.ofMinutes(10))
 *         .sessionKey("review-" + pullRequest)
 *         .build();
 * }</pre>
 *
 * @param <T> the type of the structured output ({@link #builder(String, Class)}); {@link Void} for a run without one
 */
public final class AgentRun<T> {
    private final String prompt;
    private final Class<T> outputType;
    private final Workspace workspace;
    private final Path workingDirectory;
    private final List<DynamicTool> tools;
    private final List<McpServer> mcpServers;
    private final TokenBudget budget;
    private final Instant deadline;
    private final Duration timeout;
    private final ModelConfig model;
    private final ApprovalPolicy<ApprovalRequest> approvals;
    private final AskForApproval askForApproval;
    private final SandboxMode sandbox;
    private final String sessionKey;
    private final boolean ephemeral;

    private AgentRun(Builder<T> b) {
        this.prompt = b.prompt;
        this.outputType = b.outputType;
        this.workspace = b.workspace;
        this.workingDirectory = b.workingDirectory;
        this.tools = List.copyOf(b.tools.values());
        this.mcpServers = List.copyOf(b.mcpServers.values());
        this.budget = b.budget;
        this.deadline = b.deadline;
        this.timeout = b.timeout;
        this.model = b.model;
        this.approvals = b.approvals;
        this.askForApproval = b.askForApproval;
        this.sandbox = b.sandbox;
        this.sessionKey = b.sessionKey;
        this.ephemeral = b.ephemeral;
    }

    /**
     * A builder of a run of {@code prompt}.
     *
     * @param prompt the text sent as the turn's input
     * @return the builder
     */
    public static Builder<Void> builder(String prompt) {
        return new Builder<>(prompt, null);
    }

    /**
     * A builder of a run of {@code prompt} whose final message is parsed into {@code output}: codex gets the type's
     * JSON schema as the turn's {@code outputSchema}, and a message that does not parse fails the run in
     * {@link FailurePhase#RESPONSE}. The type is fixed here, with the prompt, so that a builder's type never changes
     * after it was made.
     *
     * @param <T>    the output type
     * @param prompt the text sent as the turn's input
     * @param output the output's class, typically a record
     * @return the builder
     */
    public static <T> Builder<T> builder(String prompt, Class<T> output) {
        return new Builder<>(prompt, Objects.requireNonNull(output, "output"));
    }

    /** {@return the prompt} */
    public String prompt() {
        return prompt;
    }

    /** {@return the type the final message is parsed into, when the run has one} */
    public Optional<Class<T>> outputType() {
        return Optional.ofNullable(outputType);
    }

    /** {@return the workspace, when the run has one} */
    public Optional<Workspace> workspace() {
        return Optional.ofNullable(workspace);
    }

    /** {@return the working directory: the workspace's, or the one given} */
    public Path workingDirectory() {
        return workspace != null ? workspace.directory() : workingDirectory;
    }

    /** {@return the dynamic tools, in the order declared} */
    public List<DynamicTool> tools() {
        return tools;
    }

    /** {@return the external MCP servers, in the order declared} */
    public List<McpServer> mcpServers() {
        return mcpServers;
    }

    /** {@return the token budget, when there is one} */
    public Optional<TokenBudget> budget() {
        return Optional.ofNullable(budget);
    }

    /** {@return the absolute deadline, when one was given} */
    public Optional<Instant> deadline() {
        return Optional.ofNullable(deadline);
    }

    /** {@return the time the run may take from its start, when one was given} */
    public Optional<Duration> timeout() {
        return Optional.ofNullable(timeout);
    }

    /** {@return the model configuration} */
    public ModelConfig model() {
        return model;
    }

    /** {@return how the client answers codex's approval requests} */
    public ApprovalPolicy<ApprovalRequest> approvals() {
        return approvals;
    }

    /** {@return when codex asks for approval (the thread's {@code approvalPolicy})} */
    public AskForApproval askForApproval() {
        return askForApproval;
    }

    /** {@return the thread's sandbox} */
    public SandboxMode sandbox() {
        return sandbox;
    }

    /** {@return the session key, when the run resumes and stores its thread} */
    public Optional<String> sessionKey() {
        return Optional.ofNullable(sessionKey);
    }

    /** {@return whether the run is ephemeral: its thread is not persisted and nothing is stored} */
    public boolean ephemeral() {
        return ephemeral;
    }

    /**
     * Builds an {@link AgentRun}.
     *
     * @param <T> the type of the structured output
     */
    public static final class Builder<T> {
        private final String prompt;
        private final Class<T> outputType;
        private Workspace workspace;
        private Path workingDirectory;
        private final Map<String, DynamicTool> tools = new LinkedHashMap<>();
        private final Map<String, McpServer> mcpServers = new LinkedHashMap<>();
        private TokenBudget budget;
        private Instant deadline;
        private Duration timeout;
        private ModelConfig model = ModelConfig.defaults();
        private ApprovalPolicy<ApprovalRequest> approvals = ApprovalPolicy.declineAll();
        private AskForApproval askForApproval = AskForApproval.Simple.ON_REQUEST;
        private SandboxMode sandbox = SandboxMode.WORKSPACE_WRITE;
        private String sessionKey;
        private boolean ephemeral;

        private Builder(String prompt, Class<T> outputType) {
            this.prompt = Objects.requireNonNull(prompt, "prompt");
            this.outputType = outputType;
        }

        /**
         * Runs in {@code workspace}'s directory; its fingerprint decides whether a stored thread is resumed.
         *
         * @param workspace the workspace; the run does not close it
         * @return this builder
         */
        public Builder<T> workspace(Workspace workspace) {
            this.workspace = Objects.requireNonNull(workspace, "workspace");
            return this;
        }

        /**
         * Runs in a host directory rather than a workspace: codex may change files in it.
         *
         * @param directory an absolute directory
         * @return this builder
         */
        public Builder<T> workingDirectory(Path directory) {
            Objects.requireNonNull(directory, "directory");
            if (!directory.isAbsolute()) {
                throw new IllegalArgumentException("the working directory must be absolute: " + directory);
            }
            this.workingDirectory = directory;
            return this;
        }

        /**
         * Adds a dynamic tool for this run. A tool that throws fails the run in {@link FailurePhase#TOOL}.
         *
         * @param tool the tool
         * @return this builder
         */
        public Builder<T> tool(DynamicTool tool) {
            Objects.requireNonNull(tool, "tool");
            if (tools.putIfAbsent(tool.name(), tool) != null) {
                throw new IllegalArgumentException("a tool named " + tool.name() + " is declared already");
            }
            return this;
        }

        /**
         * Adds an external MCP server, passed as the thread's {@code config.mcp_servers}.
         *
         * @param server the server
         * @return this builder
         */
        public Builder<T> mcpServer(McpServer server) {
            Objects.requireNonNull(server, "server");
            if (mcpServers.putIfAbsent(server.name(), server) != null) {
                throw new IllegalArgumentException("an MCP server named " + server.name() + " is declared already");
            }
            return this;
        }

        /**
         * The run's token budget.
         *
         * @param budget the budget
         * @return this builder
         */
        public Builder<T> budget(TokenBudget budget) {
            this.budget = Objects.requireNonNull(budget, "budget");
            return this;
        }

        /**
         * The instant by which the run must end, on the runner's {@link AgentRunner.Builder#clock clock}.
         *
         * @param deadline the deadline
         * @return this builder
         */
        public Builder<T> deadline(Instant deadline) {
            this.deadline = Objects.requireNonNull(deadline, "deadline");
            return this;
        }

        /**
         * The time the run may take, counted from its start; with a {@link #deadline}, the earlier one counts.
         *
         * @param timeout a positive duration
         * @return this builder
         */
        public Builder<T> timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("the timeout must be positive: " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * The model configuration.
         *
         * @param model the configuration
         * @return this builder
         */
        public Builder<T> model(ModelConfig model) {
            this.model = Objects.requireNonNull(model, "model");
            return this;
        }

        /**
         * How the client answers codex's approval requests; declines everything by default.
         *
         * @param policy the policy
         * @return this builder
         */
        public Builder<T> approvals(ApprovalPolicy<ApprovalRequest> policy) {
            this.approvals = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * When codex asks for approval, the thread's {@code approvalPolicy}; {@code on-request} by default (codex
         * asks before leaving the sandbox, and {@link #approvals} answers).
         *
         * @param ask the policy
         * @return this builder
         */
        public Builder<T> askForApproval(AskForApproval ask) {
            this.askForApproval = Objects.requireNonNull(ask, "ask");
            return this;
        }

        /**
         * The thread's sandbox; {@code workspace-write} by default (commands write only in the working directory).
         *
         * @param sandbox the sandbox mode
         * @return this builder
         */
        public Builder<T> sandbox(SandboxMode sandbox) {
            this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
            return this;
        }

        /**
         * The key under which the run's thread is stored and looked up in the runner's {@link SessionStore}.
         *
         * @param key the caller's key
         * @return this builder
         */
        public Builder<T> sessionKey(String key) {
            this.sessionKey = Objects.requireNonNull(key, "key");
            return this;
        }

        /**
         * Makes the run ephemeral: codex does not persist its thread, and the session store is neither read nor
         * written.
         *
         * @return this builder
         */
        public Builder<T> ephemeral() {
            this.ephemeral = true;
            return this;
        }

        /**
         * Builds the run.
         *
         * @return the run
         * @throws IllegalStateException when neither a workspace nor a working directory was given, or both, or
         *                               when an MCP server has the name of a dynamic tool
         */
        public AgentRun<T> build() {
            if ((workspace == null) == (workingDirectory == null)) {
                throw new IllegalStateException("a run needs either a workspace or a working directory (not both)");
            }
            List<String> clashes = new ArrayList<>();
            for (String name : mcpServers.keySet()) {
                if (tools.containsKey(name)) {
                    clashes.add(name);
                }
            }
            if (!clashes.isEmpty()) {
                throw new IllegalStateException("the MCP servers " + clashes + " have the names of dynamic tools of "
                        + "the run: the model could not tell them apart; rename one of each");
            }
            return new AgentRun<>(this);
        }
    }
}

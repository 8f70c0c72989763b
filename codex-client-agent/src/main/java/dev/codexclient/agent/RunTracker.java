package dev.codexclient.agent;

import dev.codexclient.CodexClient;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.telemetry.TokenCounts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one run has seen so far: its token usage against the budget, the tools the model used, and whether the run
 * must stop (a budget crossed, a dynamic tool that threw). Fed from the turn's listeners and the tools' calls, read
 * by the runner; one job: the run's state.
 */
final class RunTracker {
    private static final Logger LOG = LoggerFactory.getLogger(RunTracker.class);

    /**
     * Why the run must stop before its turn ends on its own.
     *
     * @param tokenLimit the value of the token limit crossed; -1 when no token limit was crossed
     */
    record Stop(FailurePhase phase, AgentBudgetExceededException.Limit limit, long tokenLimit, String message,
                Throwable cause) {
    }

    private final String runId;
    private final TokenBudget budget;
    private final List<ToolInvocation> invocations = new ArrayList<>();
    private final CompletableFuture<Stop> stop = new CompletableFuture<>();
    private final CompletableFuture<Void> sawEnd = new CompletableFuture<>();
    private volatile CodexClient client;
    private volatile boolean abandoned;
    private TokenCounts baseline;
    private TokenCounts threadTotal;

    RunTracker(String runId, TokenBudget budget) {
        this.runId = runId;
        this.budget = budget;
    }

    void attach(CodexClient client) {
        this.client = client;
    }

    String runId() {
        return runId;
    }

    /** The run ended with its turn still running: it did not end within the interrupt wait. */
    void abandon() {
        abandoned = true;
    }

    boolean abandoned() {
        return abandoned;
    }

    CompletableFuture<Stop> stop() {
        return stop;
    }

    /**
     * Completes when this tracker has seen {@code turn/completed}, and so every event before it. The turn's result
     * can complete before a listener added late has had the events replayed: this is the barrier for that.
     */
    CompletableFuture<Void> sawEnd() {
        return sawEnd;
    }

    /** One event of the turn, in wire order (replayed ones included). */
    void onEvent(ServerNotification event) {
        if (event instanceof ServerNotification.ThreadTokenUsageUpdated u && u.params() != null) {
            onUsage(u.params().tokenUsage());
        } else if (event instanceof ServerNotification.ItemCompleted i && i.params() != null) {
            onItem(i.params().item());
        } else if (event instanceof ServerNotification.TurnCompleted) {
            sawEnd.complete(null);
        }
    }

    /**
     * A usage report. The thread's total before this run is the first report's total less its last call, so a
     * resumed thread's earlier turns never count against the run's budget.
     */
    void onUsage(ThreadTokenUsage usage) {
        if (usage == null || usage.total() == null) {
            return;
        }
        TokenCounts total = Tokens.of(usage.total());
        Optional<AgentBudgetExceededException.Limit> crossed;
        TokenCounts run;
        synchronized (this) {
            if (baseline == null) {
                baseline = usage.last() == null ? Tokens.ZERO : Tokens.minus(total, Tokens.of(usage.last()));
            }
            threadTotal = total;
            run = Tokens.minus(total, baseline);
            crossed = budget == null ? Optional.empty() : budget.crossedBy(run);
        }
        crossed.ifPresent(limit -> stop.complete(new Stop(FailurePhase.BUDGET, limit, budget.limitOf(limit),
                "the run used " + run + ", more than its budget of " + budget.limitOf(limit) + " " + describe(limit),
                null)));
    }

    private static String describe(AgentBudgetExceededException.Limit limit) {
        return switch (limit) {
            case INPUT_TOKENS -> "input tokens";
            case OUTPUT_TOKENS -> "output tokens";
            default -> "tokens";
        };
    }

    /**
     * A completed item: a tool's use is recorded and published, masked by the client: a command line or a tool's
     * arguments may carry a credential the model was shown.
     */
    void onItem(ThreadItem item) {
        CodexClient masking = client;
        Invocations.of(item).map(i -> masking == null ? i : Invocations.masked(i, masking::mask))
                .ifPresent(this::record);
    }

    private void record(ToolInvocation invocation) {
        synchronized (this) {
            invocations.add(invocation);
        }
        CodexClient c = client;
        if (c != null) {
            String name = invocation.kind() == ToolInvocation.Kind.DYNAMIC_TOOL
                    || invocation.kind() == ToolInvocation.Kind.MCP_TOOL ? invocation.name()
                    : invocation.kind().name().toLowerCase(java.util.Locale.ROOT);
            c.publishTelemetry(new AgentRunTelemetry.ToolInvoked(runId, invocation.kind(), name,
                    invocation.outcome(), invocation.duration()));
        }
    }

    /** The run's tokens so far. */
    synchronized TokenCounts usage() {
        return threadTotal == null ? Tokens.ZERO : Tokens.minus(threadTotal, baseline);
    }

    /** The thread's tokens in all, as last reported. */
    synchronized TokenCounts threadUsage() {
        return threadTotal == null ? Tokens.ZERO : threadTotal;
    }

    /** Whether codex reported any usage. */
    synchronized boolean reported() {
        return threadTotal != null;
    }

    synchronized List<ToolInvocation> invocations() {
        return List.copyOf(invocations);
    }

    /**
     * The tool, wrapped so that an exception it throws stops the run ({@link FailurePhase#TOOL}). The model is told
     * the call failed (the client answers {@code success:false}), so the server never waits.
     */
    DynamicTool watch(DynamicTool tool) {
        DynamicTool.Implementation implementation = tool.implementation();
        return DynamicTool.ofAsync(tool.name(), tool.description(), tool.inputSchema(), (args, call, mapper) -> {
            CompletionStage<ToolResult> result;
            try {
                result = implementation.call(args, call, mapper);
            } catch (Exception e) {
                throw toolFailed(tool.name(), e);
            }
            return result.handle((r, e) -> {
                if (e != null) {
                    throw new java.util.concurrent.CompletionException(toolFailed(tool.name(), e));
                }
                return r;
            });
        });
    }

    /**
     * Stops the run for a tool's failure, and gives what the client tells the model in its place: the failure's
     * message, masked (it goes to the model's provider).
     */
    private ToolFailure toolFailed(String name, Throwable e) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                ? e.getCause() : e;
        CodexClient c = client;
        String what = c == null ? String.valueOf(cause) : c.mask(String.valueOf(cause));
        LOG.debug("the dynamic tool {} of run {} failed: {}", name, runId, what);
        stop.complete(new Stop(FailurePhase.TOOL, null, -1, "the dynamic tool " + name + " failed: " + what, cause));
        String message = cause.getMessage() == null || cause.getMessage().isBlank()
                ? cause.getClass().getSimpleName() : cause.getMessage();
        return new ToolFailure(c == null ? message : c.mask(message));
    }

    /** A tool's failure as the model is told it: its message, masked, and nothing else of the original. */
    private static final class ToolFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ToolFailure(String message) {
            super(message, null, false, false);
        }
    }
}

package dev.codexclient.agent;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.protocol.DynamicToolCallParams;
import dev.codexclient.protocol.DynamicToolCallResponse;
import dev.codexclient.protocol.ServerRequestMethods;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which run a server request belongs to, by the thread it names: each run's dynamic tools and approval policy. One
 * client can then serve several runs, each with its own tools and policy: codex declares dynamic tools per thread
 * ({@code dynamicTools} on {@code thread/start}, kept by the thread when it is resumed) and names the thread in every
 * tool call and approval request. One job: the routing table and the two handlers that read it.
 */
final class RunRoutes {
    private static final Logger LOG = LoggerFactory.getLogger(RunRoutes.class);

    /** What answers the requests of one run's thread. */
    record Route(Map<String, DynamicTool> tools, ApprovalPolicy<ApprovalRequest> approvals) {
    }

    private final Map<String, Route> byThread = new ConcurrentHashMap<>();
    private volatile CodexClient client;

    /**
     * Registers the handlers on {@code builder}: every {@code item/tool/call} and every approval goes to the run of
     * its thread. Call {@link #attach} with the client built.
     */
    void install(CodexClientBuilder builder) {
        builder.approvals(this::decide);
        builder.onServerRequest(ServerRequestMethods.ITEM_TOOL_CALL, this::call);
    }

    void attach(CodexClient built) {
        this.client = built;
    }

    /** Routes the requests of {@code threadId} to {@code route} until {@link #remove}. */
    void add(String threadId, Route route) {
        byThread.put(Objects.requireNonNull(threadId, "threadId"), Objects.requireNonNull(route, "route"));
    }

    void remove(String threadId) {
        byThread.remove(threadId);
    }

    private CompletionStage<ApprovalDecision> decide(ApprovalRequest request) {
        Route route = byThread.get(threadOf(request));
        if (route == null) {
            // A thread no run owns (any more): nothing may run on its behalf.
            return CompletableFuture.completedFuture(ApprovalDecision.DECLINE);
        }
        return route.approvals().decide(request);
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

    private CompletionStage<DynamicToolCallResponse> call(DynamicToolCallParams call) {
        Route route = call.threadId() == null ? null : byThread.get(call.threadId());
        DynamicTool tool = route == null || call.tool() == null ? null : route.tools().get(call.tool());
        CodexClient c = client;
        if (tool == null || c == null) {
            LOG.warn("The model called the dynamic tool {}, which the run of thread {} does not declare (declare a "
                    + "run's tools on its AgentRun, not on the client builder)", call.tool(), call.threadId());
            return CompletableFuture.completedFuture(response(ToolResult.failure(
                    "Unsupported dynamic tool: " + call.tool())));
        }
        CompletableFuture<ToolResult> source = tool.call(call, c).toCompletableFuture();
        CompletableFuture<DynamicToolCallResponse> answer = source.handle((result, error) -> {
            if (error != null) {
                Throwable cause = error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                String message = cause.getMessage() == null || cause.getMessage().isBlank()
                        ? cause.getClass().getSimpleName() : cause.getMessage();
                // What the model is told goes to the model's provider: masked like anything the client reports.
                return response(ToolResult.failure(c.mask("tool " + call.tool() + " failed: " + message)));
            }
            return response(result == null ? ToolResult.failure("tool " + call.tool() + " returned no result")
                    : result);
        });
        // The server withdrew the request: the tool's own work is cancelled too.
        answer.whenComplete((r, e) -> {
            if (answer.isCancelled()) {
                source.cancel(true);
            }
        });
        return answer;
    }

    private static DynamicToolCallResponse response(ToolResult result) {
        return DynamicToolCallResponse.builder().success(result.success()).contentItems(result.contentItems())
                .build();
    }
}

package dev.codexclient.internal.requests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.internal.Futures;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.protocol.ApplyPatchApprovalResponse;
import dev.codexclient.protocol.CommandExecutionApprovalDecision;
import dev.codexclient.protocol.CommandExecutionRequestApprovalResponse;
import dev.codexclient.protocol.CurrentTimeReadResponse;
import dev.codexclient.protocol.DynamicToolCallParams;
import dev.codexclient.protocol.DynamicToolCallResponse;
import dev.codexclient.protocol.ExecCommandApprovalResponse;
import dev.codexclient.protocol.FileChangeApprovalDecision;
import dev.codexclient.protocol.FileChangeRequestApprovalResponse;
import dev.codexclient.protocol.McpServerElicitationAction;
import dev.codexclient.protocol.McpServerElicitationRequestResponse;
import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.PermissionsRequestApprovalParams;
import dev.codexclient.protocol.PermissionsRequestApprovalResponse;
import dev.codexclient.protocol.ReviewDecision;
import dev.codexclient.protocol.ServerRequestMethods;
import dev.codexclient.protocol.ToolRequestUserInputAnswer;
import dev.codexclient.protocol.ToolRequestUserInputParams;
import dev.codexclient.protocol.ToolRequestUserInputQuestion;
import dev.codexclient.protocol.ToolRequestUserInputResponse;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the client answers each server request it knows with when the user registered nothing for it: the approval
 * policies (the user's for the kind, else the general one, else a decline logged once), the dynamic tools, a
 * non-interactive answer to user input, a declined elicitation, the clock. Built with the first server request,
 * because the defaults load every request type of the protocol and a client may well never get a server request.
 */
final class DefaultHandlers {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(DefaultHandlers.class);
    }

    static final String NON_INTERACTIVE_ANSWER = ServerRequestRouter.NON_INTERACTIVE_ANSWER;

    private final ObjectMapper mapper;
    private final ObjectMapper userMapper;
    /** Where synchronous approval policies run, so that a withdrawn request can interrupt them. */
    private final Executor callbacks;
    private final ApprovalPolicy<ApprovalRequest> approvals;
    /** Policies for one kind of approval, by method; they take precedence over {@link #approvals}. */
    private final Map<String, ApprovalPolicy<?>> kindApprovals;
    private final ToolTable tools;
    /** The policies of single threads, which take precedence over the client's. */
    private final ThreadApprovals threadApprovals;
    /** The methods whose default was announced in the log already. */
    private final Set<String> warned;

    DefaultHandlers(ObjectMapper mapper, ObjectMapper userMapper, Executor callbacks,
                    ApprovalPolicy<ApprovalRequest> approvals, Map<String, ApprovalPolicy<?>> kindApprovals,
                    ToolTable tools, ThreadApprovals threadApprovals, Set<String> warned) {
        this.mapper = mapper;
        this.userMapper = userMapper;
        this.callbacks = callbacks;
        this.approvals = approvals;
        this.kindApprovals = kindApprovals;
        this.tools = tools;
        this.threadApprovals = threadApprovals;
        this.warned = warned;
    }

    /** {@return the default route of each server request this SDK knows, by method} */
    Map<String, ServerRequestRouter.Route<?, ?>> routes() {
        Map<String, ServerRequestRouter.Route<?, ?>> table = new HashMap<>();
        ApprovalPolicy<ApprovalRequest> general = approvals != null ? approvals : ApprovalPolicy.declineAll();

        put(table, ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL, p -> {
            ApprovalRequest.Command request = new ApprovalRequest.Command(p);
            return approve(policyFor(request, general, "declining"), request, d ->
                    CommandExecutionRequestApprovalResponse.builder().decision(commandDecision(request, d)).build());
        });
        put(table, ServerRequestMethods.ITEM_FILE_CHANGE_REQUEST_APPROVAL, p -> {
            ApprovalRequest.FileChange request = new ApprovalRequest.FileChange(p);
            return approve(policyFor(request, general, "declining"), request, d ->
                    FileChangeRequestApprovalResponse.builder().decision(fileChangeDecision(request, d)).build());
        });
        put(table, ServerRequestMethods.EXEC_COMMAND_APPROVAL, p -> {
            ApprovalRequest.LegacyCommand request = new ApprovalRequest.LegacyCommand(p);
            return approve(policyFor(request, general, "denying"), request, d ->
                    ExecCommandApprovalResponse.builder().decision(reviewDecision(request, d)).build());
        });
        put(table, ServerRequestMethods.APPLY_PATCH_APPROVAL, p -> {
            ApprovalRequest.LegacyPatch request = new ApprovalRequest.LegacyPatch(p);
            return approve(policyFor(request, general, "denying"), request, d ->
                    ApplyPatchApprovalResponse.builder().decision(reviewDecision(request, d)).build());
        });
        put(table, ServerRequestMethods.ITEM_PERMISSIONS_REQUEST_APPROVAL, p -> {
            ApprovalRequest.Permissions request = new ApprovalRequest.Permissions(p);
            return approve(policyFor(request, general, "granting nothing"), request, d -> permissions(request, d));
        });
        put(table, ServerRequestMethods.ITEM_TOOL_REQUEST_USER_INPUT, p -> {
            warnDefault(true, "item/tool/requestUserInput", "answering that no operator is available");
            return CompletableFuture.completedFuture(ServerRequestRouter.Decided.of(nonInteractiveAnswers(p)));
        });
        put(table, ServerRequestMethods.MCP_SERVER_ELICITATION_REQUEST, p -> {
            warnDefault(true, "mcpServer/elicitation/request", "declining");
            return CompletableFuture.completedFuture(ServerRequestRouter.Decided.of(
                    McpServerElicitationRequestResponse.builder().action(McpServerElicitationAction.DECLINE).build()));
        });
        // The clock is the only sensible answer and reveals nothing; no reason to bother the user with it.
        // The schema: "Current time as whole Unix seconds."
        put(table, ServerRequestMethods.CURRENT_TIME_READ, p -> CompletableFuture.completedFuture(
                ServerRequestRouter.Decided.of(CurrentTimeReadResponse.builder()
                        .currentTimeAt(Instant.now().getEpochSecond()).build())));
        put(table, ServerRequestMethods.ITEM_TOOL_CALL, p -> {
            CompletableFuture<DynamicToolCallResponse> called = callTool(p);
            return Futures.cancelling(called.thenApply(ServerRequestRouter.Decided::of), called);
        });
        return table;
    }

    private static <P, R> void put(Map<String, ServerRequestRouter.Route<?, ?>> table, MethodDescriptor<P, R> method,
                                   Function<P, CompletionStage<ServerRequestRouter.Decided<R>>> handler) {
        table.put(method.method(), new ServerRequestRouter.Route<>(method, handler));
    }

    private void warnDefault(boolean isDefault, String method, String what) {
        if (isDefault && warned.add(method)) {
            Log.LOG.warn("No handler registered for {}; {} (register one on CodexClient.builder())", method, what);
        }
    }

    /**
     * The policy for one request: its thread's own, else the kind's, else the general one, else the default (logged
     * once).
     */
    @SuppressWarnings("unchecked")
    private <R extends ApprovalRequest> ApprovalPolicy<? super R> policyFor(R request,
                                                                           ApprovalPolicy<ApprovalRequest> general,
                                                                           String defaultAction) {
        Optional<ApprovalPolicy<ApprovalRequest>> thread = threadApprovals.of(request);
        if (thread.isPresent()) {
            return thread.get();
        }
        ApprovalPolicy<? super R> own = (ApprovalPolicy<? super R>) kindApprovals.get(request.method());
        if (own != null) {
            return own;
        }
        warnDefault(approvals == null, request.method(), defaultAction);
        return general;
    }

    /**
     * Asks {@code policy} and turns its decision into the response. Cancelling the returned stage (the server
     * withdrew the request) cancels the policy's own stage with the same exception, which says why, or interrupts a
     * synchronous policy's thread.
     */
    @SuppressWarnings("unchecked")
    private <R extends ApprovalRequest, T> CompletionStage<ServerRequestRouter.Decided<T>> approve(
            ApprovalPolicy<? super R> policy, R request, Function<ApprovalDecision, T> answer) {
        CompletableFuture<ApprovalDecision> decided;
        try {
            CompletionStage<ApprovalDecision> stage = policy instanceof ApprovalPolicy.Blocking<?> blocking
                    ? SyncApprovalPolicy.decideOn((ApprovalPolicy.Blocking<? super R>) blocking, callbacks, request)
                    : policy.decide(request);
            if (stage == null) {
                return CompletableFuture.failedFuture(new IllegalStateException(
                        "the approval policy returned no stage for " + request.method()));
            }
            decided = stage.toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        // The decision is the policy's: the telemetry reports it as such, not as read back from the answer.
        return Futures.cancelling(decided.thenApply(d -> {
            ApprovalDecision made = Objects.requireNonNull(d, () -> "the approval policy decided null for "
                    + request.method());
            return new ServerRequestRouter.Decided<>(Optional.of(answer.apply(made)), Optional.of(made));
        }), decided);
    }

    /** The wire decision of a command approval. */
    private static CommandExecutionApprovalDecision commandDecision(ApprovalRequest request, ApprovalDecision d) {
        if (d instanceof ApprovalDecision.Command c) {
            return c.decision();
        }
        return switch (common(request, d)) {
            case ACCEPT -> CommandExecutionApprovalDecision.Simple.ACCEPT;
            case ACCEPT_FOR_SESSION -> CommandExecutionApprovalDecision.Simple.ACCEPT_FOR_SESSION;
            case DECLINE -> CommandExecutionApprovalDecision.Simple.DECLINE;
            case CANCEL -> CommandExecutionApprovalDecision.Simple.CANCEL;
        };
    }

    private static FileChangeApprovalDecision fileChangeDecision(ApprovalRequest request, ApprovalDecision d) {
        if (d instanceof ApprovalDecision.FileChange f) {
            return f.decision();
        }
        return switch (common(request, d)) {
            case ACCEPT -> FileChangeApprovalDecision.ACCEPT;
            case ACCEPT_FOR_SESSION -> FileChangeApprovalDecision.ACCEPT_FOR_SESSION;
            case DECLINE -> FileChangeApprovalDecision.DECLINE;
            case CANCEL -> FileChangeApprovalDecision.CANCEL;
        };
    }

    private static ReviewDecision reviewDecision(ApprovalRequest request, ApprovalDecision d) {
        if (d instanceof ApprovalDecision.Legacy l) {
            return l.decision();
        }
        return switch (common(request, d)) {
            case ACCEPT -> ReviewDecision.Simple.APPROVED;
            case ACCEPT_FOR_SESSION -> ReviewDecision.Simple.APPROVED_FOR_SESSION;
            case DECLINE -> new ReviewDecision.Denied("declined by the client");
            case CANCEL -> ReviewDecision.Simple.ABORT;
        };
    }

    /**
     * One of the four common decisions; a protocol decision made for another kind of request cannot answer this
     * one, which is the policy's mistake: the request gets an error reply, and the log says why.
     */
    private static ApprovalDecision.Common common(ApprovalRequest request, ApprovalDecision d) {
        if (d instanceof ApprovalDecision.Common c) {
            return c;
        }
        throw new IllegalStateException("the approval policy answered " + request.method() + " with " + d
                + ", a decision for another kind of approval");
    }

    private PermissionsRequestApprovalResponse permissions(ApprovalRequest.Permissions request, ApprovalDecision d) {
        if (d instanceof ApprovalDecision.Permissions grant) {
            return grant.grant();
        }
        common(request, d);
        PermissionsRequestApprovalParams p = request.params();
        ObjectNode response = mapper.createObjectNode();
        if (d == ApprovalDecision.ACCEPT || d == ApprovalDecision.ACCEPT_FOR_SESSION) {
            // A grant has the shape of the request's profile: grant exactly what was asked.
            JsonNode requested = mapper.valueToTree(p.permissions());
            response.set("permissions", requested == null || requested.isNull()
                    ? mapper.createObjectNode() : requested);
            response.put("scope", d == ApprovalDecision.ACCEPT_FOR_SESSION ? "session" : "turn");
        } else {
            response.putObject("permissions");
            response.put("scope", "turn");
        }
        try {
            return mapper.treeToValue(response, PermissionsRequestApprovalResponse.class);
        } catch (Exception e) {
            throw new IllegalStateException("could not build a permissions answer", e);
        }
    }

    private static ToolRequestUserInputResponse nonInteractiveAnswers(ToolRequestUserInputParams p) {
        Map<String, ToolRequestUserInputAnswer> answers = new LinkedHashMap<>();
        if (p.questions() != null) {
            for (ToolRequestUserInputQuestion q : p.questions()) {
                answers.put(q.id(), new ToolRequestUserInputAnswer(List.of(NON_INTERACTIVE_ANSWER)));
            }
        }
        return ToolRequestUserInputResponse.builder().answers(answers).build();
    }

    private CompletableFuture<DynamicToolCallResponse> callTool(DynamicToolCallParams call) {
        DynamicTool tool = tools.find(call.threadId(), call.tool()).orElse(null);
        if (tool == null) {
            Log.LOG.warn("The model called dynamic tool {}, which this client did not declare", call.tool());
            return CompletableFuture.completedFuture(response(ToolResult.failure(
                    "Unsupported dynamic tool: " + call.tool())));
        }
        CompletionStage<ToolResult> stage;
        try {
            JsonNode args = call.arguments() == null ? mapper.nullNode() : call.arguments();
            stage = tool.implementation().call(args, call, userMapper);
            if (stage == null) {
                stage = CompletableFuture.completedFuture(null);
            }
        } catch (Exception e) {
            stage = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<ToolResult> source = stage.toCompletableFuture();
        return Futures.cancelling(source.handle((result, error) -> {
            if (error != null) {
                Throwable cause = RpcConnection.unwrap(error);
                if (cause instanceof java.util.concurrent.CancellationException) {
                    throw (java.util.concurrent.CancellationException) cause;
                }
                Log.LOG.debug("dynamic tool {} failed", call.tool(), cause);
                return response(ToolResult.failure(toolFailureMessage(call.tool(), cause)));
            }
            return response(result == null ? ToolResult.failure("tool " + call.tool() + " returned no result")
                    : result);
        }), source);
    }

    private static String toolFailureMessage(String tool, Throwable cause) {
        String message = cause.getMessage();
        return "tool " + tool + " failed: " + (message == null || message.isBlank()
                ? cause.getClass().getSimpleName() : message);
    }

    private static DynamicToolCallResponse response(ToolResult r) {
        return DynamicToolCallResponse.builder().success(r.success()).contentItems(r.contentItems()).build();
    }
}

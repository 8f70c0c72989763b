package dev.codexclient.internal.requests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.telemetry.ServerRequestOutcome;
import dev.codexclient.internal.rpc.IncomingRequest;
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
 * Routes each server request by method to its handler: the user's typed handler, else the approval policy or a
 * safe default. Every request gets exactly one answer; a request nobody can handle gets a JSON-RPC error, so the
 * server never waits forever.
 */
public final class ServerRequestRouter {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(ServerRequestRouter.class);
    }

    public static final String NON_INTERACTIVE_ANSWER =
            "This is a non-interactive session. Operator input is unavailable.";

    /**
     * A typed handler for one method.
     *
     * @param <P>     the params type
     * @param <R>     the result type
     * @param method  the method
     * @param handler the handler
     */
    public record Route<P, R>(MethodDescriptor<P, R> method, Function<? super P, ? extends CompletionStage<R>> handler) {
        CompletionStage<?> invoke(ObjectMapper mapper, JsonNode params) throws Exception {
            P typed;
            if (method.paramsType() == Void.class || params == null || params.isNull()) {
                typed = null;
            } else {
                try {
                    typed = mapper.treeToValue(params, method.paramsType());
                } catch (Exception e) {
                    throw new IllegalArgumentException("params of " + method.method()
                            + " do not match the schema: " + e.getMessage(), e);
                }
            }
            CompletionStage<R> stage = handler.apply(typed);
            return Objects.requireNonNull(stage, () -> "the handler for " + method.method() + " returned null");
        }
    }

    private final ObjectMapper mapper;
    private final ObjectMapper userMapper;
    /** Where synchronous approval policies run, so that a withdrawn request can interrupt them. */
    private final Executor callbacks;
    private final ApprovalPolicy<ApprovalRequest> approvals;
    /** Policies for one kind of approval, by method; they take precedence over {@link #approvals}. */
    private final Map<String, ApprovalPolicy<?>> kindApprovals;
    private final Map<String, Route<?, ?>> userRoutes;
    private final Map<String, Function<JsonNode, CompletionStage<?>>> rawRoutes;
    private final ToolTable tools;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    /**
     * The defaults overridden by the user's routes; built on the first server request, because the defaults load
     * every request type of the protocol and a client may well never get a server request.
     */
    private Map<String, Route<?, ?>> routes;

    /**
     * @param mapper     the protocol's mapper
     * @param userMapper the mapper of the user's types (tool arguments)
     * @param handlers   what the user registered
     * @param tools      the dynamic tools, the client's and each thread's own
     * @param callbacks  where synchronous approval policies run
     */
    public ServerRequestRouter(ObjectMapper mapper, ObjectMapper userMapper, RequestHandlers handlers,
                               ToolTable tools, Executor callbacks) {
        this.mapper = mapper;
        this.userMapper = userMapper;
        this.callbacks = callbacks;
        this.approvals = handlers.approvals();
        this.kindApprovals = handlers.kindApprovals();
        this.userRoutes = handlers.routes();
        this.rawRoutes = handlers.rawRoutes();
        this.tools = tools;
    }

    private synchronized Map<String, Route<?, ?>> routes() {
        if (routes == null) {
            Map<String, Route<?, ?>> all = new HashMap<>();
            installDefaults(all, approvals);
            all.putAll(userRoutes);
            routes = all;
        }
        return routes;
    }

    /**
     * Routes {@code request} to whoever answers it and returns what was decided: the reply (a result or an error),
     * who gave it, and the approval decision it carries. The stage fails only by cancellation (the server withdrew
     * the request), which cancels the handler's own stage.
     *
     * @param request the server's request
     * @return the decision
     */
    public CompletableFuture<ServerRequestDecision> route(IncomingRequest request) {
        JsonNode params = request.message().get("params");
        boolean byDefault = answersByDefault(request);
        CompletableFuture<?> source;
        Route<?, ?> route = routes().get(request.method());
        Function<JsonNode, CompletionStage<?>> raw = route == null ? rawRoutes.get(request.method()) : null;
        try {
            if (route != null) {
                source = route.invoke(mapper, params).toCompletableFuture();
            } else if (raw != null) {
                CompletionStage<?> stage = raw.apply(params);
                source = stage == null ? CompletableFuture.completedFuture(null) : stage.toCompletableFuture();
            } else {
                if (warned.add(request.method())) {
                    Log.LOG.warn("No handler for server request {}; answering with a method-not-found error "
                            + "(register one with CodexClientBuilder#onUnknownServerRequest)", request.method());
                }
                return CompletableFuture.completedFuture(new ServerRequestDecision(null,
                        new CodexRpcException(null, CodexRpcException.METHOD_NOT_FOUND,
                                "codex-client has no handler for " + request.method(), null),
                        ServerRequestOutcome.DEFAULTED, Optional.empty()));
            }
        } catch (Exception e) {
            source = CompletableFuture.failedFuture(e);
        }
        ServerRequestOutcome answered = byDefault ? ServerRequestOutcome.DEFAULTED : ServerRequestOutcome.ANSWERED;
        ServerRequestOutcome failed = byDefault ? ServerRequestOutcome.DEFAULTED : ServerRequestOutcome.FAILED;
        return cancelsSource(source, source.handle((value, error) -> {
            if (error == null) {
                return new ServerRequestDecision(value, null, answered, approvalIn(value));
            }
            Throwable cause = RpcConnection.unwrap(error);
            if (cause instanceof java.util.concurrent.CancellationException cancelled) {
                throw cancelled;
            }
            return new ServerRequestDecision(null, cause, failed, Optional.empty());
        }));
    }

    /**
     * Whether the client answers {@code request} itself, with its default, because the user registered nothing
     * that answers it: no handler, no approval policy for it, no dynamic tool of the name it calls.
     */
    private boolean answersByDefault(IncomingRequest request) {
        String method = request.method();
        if (userRoutes.containsKey(method) || rawRoutes.containsKey(method)) {
            return false;
        }
        if (Approvals.METHODS.contains(method)) {
            return approvals == null && !kindApprovals.containsKey(method);
        }
        if (method.equals(ServerRequestMethods.ITEM_TOOL_CALL.method())) {
            JsonNode params = request.message().path("params");
            JsonNode tool = params.path("tool");
            JsonNode threadId = params.path("threadId");
            return !tool.isTextual()
                    || tools.find(threadId.isTextual() ? threadId.textValue() : null, tool.textValue()).isEmpty();
        }
        return true;
    }

    /**
     * The approval methods, read with the first server request: {@code ServerRequestMethods} names the params and
     * result class of every server request, and loading it with this class would load them all at the client's start.
     */
    private static final class Approvals {
        static final Set<String> METHODS = Set.of(
                ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL.method(),
                ServerRequestMethods.ITEM_FILE_CHANGE_REQUEST_APPROVAL.method(),
                ServerRequestMethods.EXEC_COMMAND_APPROVAL.method(),
                ServerRequestMethods.APPLY_PATCH_APPROVAL.method(),
                ServerRequestMethods.ITEM_PERMISSIONS_REQUEST_APPROVAL.method());
    }

    /**
     * The decision an approval's answer carries, in the client's vocabulary; empty for any other answer. Read once,
     * where the answer is decided: a typed handler of an approval method decides in the protocol's types.
     */
    private static Optional<ApprovalDecision> approvalIn(Object answer) {
        if (answer instanceof CommandExecutionRequestApprovalResponse r && r.decision() != null) {
            return Optional.of(ApprovalDecision.of(r.decision()));
        } else if (answer instanceof FileChangeRequestApprovalResponse r && r.decision() != null) {
            return Optional.of(ApprovalDecision.of(r.decision()));
        } else if (answer instanceof ExecCommandApprovalResponse r && r.decision() != null) {
            return Optional.of(ApprovalDecision.of(r.decision()));
        } else if (answer instanceof ApplyPatchApprovalResponse r && r.decision() != null) {
            return Optional.of(ApprovalDecision.of(r.decision()));
        } else if (answer instanceof PermissionsRequestApprovalResponse r) {
            return Optional.of(ApprovalDecision.of(r));
        }
        return Optional.empty();
    }

    // ------------------------------------------------------------------------------------------------ defaults

    private void installDefaults(Map<String, Route<?, ?>> table, ApprovalPolicy<ApprovalRequest> configured) {
        ApprovalPolicy<ApprovalRequest> general = configured != null ? configured : ApprovalPolicy.declineAll();

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
            return CompletableFuture.completedFuture(nonInteractiveAnswers(p));
        });
        put(table, ServerRequestMethods.MCP_SERVER_ELICITATION_REQUEST, p -> {
            warnDefault(true, "mcpServer/elicitation/request", "declining");
            return CompletableFuture.completedFuture(McpServerElicitationRequestResponse.builder()
                    .action(McpServerElicitationAction.DECLINE).build());
        });
        // The clock is the only sensible answer and reveals nothing; no reason to bother the user with it.
        // The schema: "Current time as whole Unix seconds."
        put(table, ServerRequestMethods.CURRENT_TIME_READ, p -> CompletableFuture.completedFuture(
                CurrentTimeReadResponse.builder().currentTimeAt(Instant.now().getEpochSecond()).build()));
        put(table, ServerRequestMethods.ITEM_TOOL_CALL, this::callTool);
    }

    private static <P, R> void put(Map<String, Route<?, ?>> table, MethodDescriptor<P, R> method,
                                   Function<P, CompletionStage<R>> handler) {
        table.put(method.method(), new Route<>(method, handler));
    }

    private void warnDefault(boolean isDefault, String method, String what) {
        if (isDefault && warned.add(method)) {
            Log.LOG.warn("No handler registered for {}; {} (register one on CodexClient.builder())", method, what);
        }
    }

    /** The policy for one kind of request: its own, else the general one, else the default (logged once). */
    @SuppressWarnings("unchecked")
    private <R extends ApprovalRequest> ApprovalPolicy<? super R> policyFor(R request,
                                                                           ApprovalPolicy<ApprovalRequest> general,
                                                                           String defaultAction) {
        ApprovalPolicy<? super R> own = (ApprovalPolicy<? super R>) kindApprovals.get(request.method());
        if (own != null) {
            return own;
        }
        warnDefault(approvals == null, request.method(), defaultAction);
        return general;
    }

    /**
     * Asks {@code policy} and turns its decision into the response. Cancelling the returned stage (the server
     * withdrew the request) cancels the policy's own stage, or interrupts a synchronous policy's thread.
     */
    @SuppressWarnings("unchecked")
    private <R extends ApprovalRequest, T> CompletionStage<T> approve(ApprovalPolicy<? super R> policy, R request,
                                                                     Function<ApprovalDecision, T> answer) {
        CompletableFuture<ApprovalDecision> decided;
        try {
            CompletionStage<ApprovalDecision> stage = policy instanceof SyncApprovalPolicy.Blocking<?> blocking
                    ? SyncApprovalPolicy.decideOn((SyncApprovalPolicy.Blocking<? super R>) blocking, callbacks, request)
                    : policy.decide(request);
            if (stage == null) {
                return CompletableFuture.failedFuture(new IllegalStateException(
                        "the approval policy returned no stage for " + request.method()));
            }
            decided = stage.toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return cancelsSource(decided, decided.thenApply(d -> answer.apply(Objects.requireNonNull(d,
                () -> "the approval policy decided null for " + request.method()))));
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

    private CompletionStage<DynamicToolCallResponse> callTool(DynamicToolCallParams call) {
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
        return cancelsSource(source, source.handle((result, error) -> {
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
        }));
    }

    /**
     * Returns {@code derived}, arranged so that cancelling it (the server withdrew the request) also cancels the
     * user's own {@code source} stage it was derived from; a dependent stage does not do that by itself.
     */
    /**
     * @param <T>     the derived stage's value
     * @param source  the user's stage
     * @param derived the stage derived from it
     * @return {@code derived}
     */
    public static <T> CompletableFuture<T> cancelsSource(CompletableFuture<?> source, CompletableFuture<T> derived) {
        derived.whenComplete((v, e) -> {
            if (derived.isCancelled()) {
                source.cancel(true);
            }
        });
        return derived;
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

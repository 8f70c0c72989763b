package dev.codexclient.internal.requests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.internal.Futures;
import dev.codexclient.internal.rpc.IncomingRequest;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.rpc.ServerRequestReply;
import dev.codexclient.protocol.ApplyPatchApprovalResponse;
import dev.codexclient.protocol.CommandExecutionRequestApprovalResponse;
import dev.codexclient.protocol.ExecCommandApprovalResponse;
import dev.codexclient.protocol.FileChangeRequestApprovalResponse;
import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.PermissionsRequestApprovalResponse;
import dev.codexclient.protocol.ServerRequestMethods;
import dev.codexclient.telemetry.ServerRequestOutcome;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes each server request by method to whoever answers it, decides, and reports: the user's typed handler, else
 * the approval policy, a dynamic tool or the client's safe default ({@link DefaultHandlers}); a method nobody
 * handles gets a JSON-RPC error, so the server never waits forever. What was decided (the reply, who gave it, the
 * approval decision when it was an approval) is reported to the telemetry here, where it is known, and the reply
 * goes to the connection as a typed {@link ServerRequestReply}.
 *
 * <p>The stage {@link #route} returns is cancelled when the server withdraws the request or the connection ends:
 * the cancellation, with its exception (a {@code ServerRequestWithdrawnException} that says why), reaches the
 * handler's own stage (or a synchronous policy's thread), and the request is reported as abandoned.
 */
public final class ServerRequestRouter {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(ServerRequestRouter.class);
    }

    public static final String NON_INTERACTIVE_ANSWER =
            "This is a non-interactive session. Operator input is unavailable.";

    /**
     * What a route decided: the protocol's response, and the approval decision it carries when the request was an
     * approval (known where the decision was made: the policy's, or read from the user's typed answer).
     *
     * @param <R>      the response's type
     * @param response the response; empty for a bare acknowledgement (an empty result)
     * @param approval the approval decision; empty for any other request
     */
    public record Decided<R>(Optional<R> response, Optional<ApprovalDecision> approval) {
        /**
         * Checks both are present or empty.
         *
         * @param response the response
         * @param approval the approval decision
         */
        public Decided {
            Objects.requireNonNull(response, "response");
            Objects.requireNonNull(approval, "approval");
        }

        /** {@return the response of a request that is no approval; null, as a handler may answer, is none} */
        static <R> Decided<R> of(R response) {
            return new Decided<>(Optional.ofNullable(response), Optional.empty());
        }
    }

    /**
     * A typed handler for one method.
     *
     * @param <P>     the params type
     * @param <R>     the result type
     * @param method  the method
     * @param handler decides the request from its typed params
     */
    public record Route<P, R>(MethodDescriptor<P, R> method,
                              Function<? super P, ? extends CompletionStage<Decided<R>>> handler) {

        /**
         * A route of the user's typed handler. For an approval method, the approval decision is read from the
         * user's answer, the one place it is known.
         *
         * @param <P>     the params type
         * @param <R>     the result type
         * @param method  the method
         * @param handler the user's handler
         * @return the route
         */
        public static <P, R> Route<P, R> of(MethodDescriptor<P, R> method,
                                            Function<? super P, ? extends CompletionStage<R>> handler) {
            Function<R, Optional<ApprovalDecision>> approval = approvalIn(method);
            return new Route<>(method, p -> {
                CompletableFuture<R> source = Objects.requireNonNull(handler.apply(p),
                        () -> "the handler for " + method.method() + " returned null").toCompletableFuture();
                return Futures.cancelling(source.thenApply(r -> new Decided<>(Optional.ofNullable(r),
                        r == null ? Optional.empty() : approval.apply(r))), source);
            });
        }

        CompletableFuture<Decided<R>> invoke(ObjectMapper mapper, JsonNode params) {
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
            CompletionStage<Decided<R>> stage = handler.apply(typed);
            return Objects.requireNonNull(stage, () -> "the handler for " + method.method() + " returned null")
                    .toCompletableFuture();
        }
    }

    private final ObjectMapper mapper;
    private final Map<String, Route<?, ?>> userRoutes;
    private final Map<String, Function<JsonNode, CompletionStage<?>>> rawRoutes;
    private final RequestHandlers handlers;
    private final ToolTable tools;
    private final ThreadApprovals threadApprovals;
    /** Told what was decided for each request; null without a telemetry listener, so that nothing is built. */
    private final ServerRequestTelemetry telemetry;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private final DefaultHandlers defaults;
    /** The defaults overridden by the user's routes; built with the first server request (see DefaultHandlers). */
    private Map<String, Route<?, ?>> routes;
    /** The defaults alone, for the approvals of a thread with a policy of its own; built with {@link #routes}. */
    private Map<String, Route<?, ?>> defaultRoutes;

    /**
     * @param mapper     the protocol's mapper
     * @param userMapper the mapper of the user's types (tool arguments)
     * @param handlers   what the user registered
     * @param tools      the dynamic tools, the client's and each thread's own
     * @param approvals  the approval policies of single threads, which decide before the client's
     * @param callbacks  where synchronous approval policies run
     * @param telemetry  told what was decided; null for none
     */
    public ServerRequestRouter(ObjectMapper mapper, ObjectMapper userMapper, RequestHandlers handlers,
                               ToolTable tools, ThreadApprovals approvals, Executor callbacks,
                               ServerRequestTelemetry telemetry) {
        this.mapper = mapper;
        this.handlers = handlers;
        this.userRoutes = handlers.routes();
        this.rawRoutes = handlers.rawRoutes();
        this.tools = tools;
        this.threadApprovals = approvals;
        this.telemetry = telemetry;
        this.defaults = new DefaultHandlers(mapper, userMapper, callbacks, handlers.approvals(),
                handlers.kindApprovals(), tools, approvals, warned);
    }

    private synchronized Map<String, Route<?, ?>> routes() {
        if (routes == null) {
            defaultRoutes = defaults.routes();
            Map<String, Route<?, ?>> all = new HashMap<>(defaultRoutes);
            all.putAll(userRoutes);
            routes = all;
        }
        return routes;
    }

    /**
     * {@return the route of {@code request}} An approval of a thread with a policy of its own takes the default
     * route, which asks that policy, whatever the user registered for the method client-wide.
     */
    private Route<?, ?> routeOf(IncomingRequest request, JsonNode params) {
        Map<String, Route<?, ?>> all = routes();
        if (threadApprovals.threads() > 0 && Approvals.METHODS.contains(request.method())
                && ownPolicy(params)) {
            return defaultRoutes.get(request.method());
        }
        return all.get(request.method());
    }

    /** Whether the thread an approval's params name has a policy of its own. */
    private boolean ownPolicy(JsonNode params) {
        JsonNode id = params == null ? null : params.has("threadId") ? params.get("threadId")
                : params.get("conversationId");
        return id != null && id.isTextual() && threadApprovals.has(id.textValue());
    }

    /**
     * Routes {@code request} to whoever answers it, reports what was decided, and returns the reply. The stage
     * fails only by cancellation of the handler's own stage.
     *
     * @param request the server's request
     * @return the reply
     */
    public CompletableFuture<ServerRequestReply> route(IncomingRequest request) {
        long arrived = telemetry == null ? 0 : telemetry.nanoTime();
        JsonNode params = request.message().get("params");
        Route<?, ?> route = routeOf(request, params);
        Function<JsonNode, CompletionStage<?>> raw = route == null ? rawRoutes.get(request.method()) : null;
        if (route == null && raw == null) {
            if (warned.add(request.method())) {
                Log.LOG.warn("No handler for server request {}; answering with a method-not-found error "
                        + "(register one with CodexClientBuilder#unknownServerRequest)", request.method());
            }
            ServerRequestReply reply = new ServerRequestReply.Failure(new CodexRpcException(null,
                    CodexRpcException.METHOD_NOT_FOUND, "codex-client has no handler for " + request.method(), null));
            return CompletableFuture.completedFuture(reported(request, arrived, reply, ServerRequestOutcome.DEFAULTED,
                    Optional.empty()));
        }
        CompletableFuture<? extends Decided<?>> decided;
        try {
            decided = route != null ? route.invoke(mapper, params) : raw(raw, params);
        } catch (Exception e) {
            decided = CompletableFuture.failedFuture(e);
        }
        boolean byDefault = answersByDefault(request);
        CompletableFuture<? extends Decided<?>> source = decided;
        CompletableFuture<ServerRequestReply> reply = source.handle((d, error) -> {
            if (error == null) {
                return reported(request, arrived, new ServerRequestReply.Result(tree(d.response().orElse(null))),
                        byDefault ? ServerRequestOutcome.DEFAULTED : ServerRequestOutcome.ANSWERED, d.approval());
            }
            Throwable cause = RpcConnection.unwrap(error);
            if (cause instanceof CancellationException cancelled) {
                throw cancelled;
            }
            return reported(request, arrived, new ServerRequestReply.Failure(cause),
                    byDefault ? ServerRequestOutcome.DEFAULTED : ServerRequestOutcome.FAILED, Optional.empty());
        });
        return Futures.whenCancelled(reply, (CancellationException why) -> {
            Futures.cancel(source, why);
            if (telemetry != null) {
                telemetry.handled(request, arrived, ServerRequestOutcome.ABANDONED, Optional.empty());
            }
        });
    }

    /** A handler of a method this SDK does not know: whatever it answers is the result, as JSON. */
    private static CompletableFuture<Decided<?>> raw(Function<JsonNode, CompletionStage<?>> raw, JsonNode params) {
        CompletionStage<?> stage = raw.apply(params);
        CompletableFuture<?> source = stage == null ? CompletableFuture.completedFuture(null)
                : stage.toCompletableFuture();
        return Futures.cancelling(source.thenApply(Decided::of), source);
    }

    /** The response as it goes on the wire; none is an empty object, as codex expects of a bare acknowledgement. */
    private JsonNode tree(Object response) {
        return response == null ? mapper.createObjectNode() : mapper.valueToTree(response);
    }

    private ServerRequestReply reported(IncomingRequest request, long arrived, ServerRequestReply reply,
                                        ServerRequestOutcome outcome, Optional<ApprovalDecision> approval) {
        if (telemetry != null) {
            // Before the reply leaves: whatever the server does in response comes after the report.
            telemetry.handled(request, arrived, outcome, approval);
        }
        return reply;
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
            return handlers.approvals() == null && !handlers.kindApprovals().containsKey(method)
                    && !ownPolicy(request.message().path("params"));
        }
        if (method.equals(ServerRequestMethods.ITEM_TOOL_CALL.method())) {
            JsonNode p = request.message().path("params");
            JsonNode tool = p.path("tool");
            JsonNode threadId = p.path("threadId");
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
     * How the approval decision is read from a typed answer of {@code method}, by the method's own response type;
     * empty for a method that is no approval.
     */
    @SuppressWarnings("unchecked")
    private static <R> Function<R, Optional<ApprovalDecision>> approvalIn(MethodDescriptor<?, R> method) {
        // Each branch's response type is the descriptor's result type: the casts only name it.
        Function<?, Optional<ApprovalDecision>> read = switch (method.method()) {
            case "item/commandExecution/requestApproval" -> (CommandExecutionRequestApprovalResponse r) ->
                    Optional.ofNullable(r.decision()).map(ApprovalDecision::of);
            case "item/fileChange/requestApproval" -> (FileChangeRequestApprovalResponse r) ->
                    Optional.ofNullable(r.decision()).map(ApprovalDecision::of);
            case "execCommandApproval" -> (ExecCommandApprovalResponse r) ->
                    Optional.ofNullable(r.decision()).map(ApprovalDecision::of);
            case "applyPatchApproval" -> (ApplyPatchApprovalResponse r) ->
                    Optional.ofNullable(r.decision()).map(ApprovalDecision::of);
            case "item/permissions/requestApproval" -> (PermissionsRequestApprovalResponse r) ->
                    Optional.of(ApprovalDecision.of(r));
            default -> r -> Optional.empty();
        };
        return (Function<R, Optional<ApprovalDecision>>) read;
    }
}

package dev.codexclient.internal.requests;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.DynamicTool;
import dev.codexclient.internal.Futures;
import dev.codexclient.internal.Redactor;
import dev.codexclient.protocol.ChatgptAuthTokensRefreshParams;
import dev.codexclient.protocol.ChatgptAuthTokensRefreshResponse;
import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.ServerRequestMethods;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * What answers the server's requests, collected as the client's builder is told: the approval policy, the policies
 * of one kind of approval, typed and raw handlers, dynamic tools; and the rules by which a later registration
 * replaces an earlier one. A policy of one kind and a typed handler of the same method replace each other (the one
 * given last answers); a raw handler or a tool is added beside the others, a second tool of one name is refused.
 * {@link #handlers()} fixes what was collected.
 */
public final class RequestHandlerRegistry {
    private ApprovalPolicy<ApprovalRequest> approvals;
    /** Policies for one kind of approval, by method. */
    private final Map<String, ApprovalPolicy<?>> kindApprovals = new LinkedHashMap<>();
    private final Map<String, ServerRequestRouter.Route<?, ?>> handlers = new LinkedHashMap<>();
    private final Map<String, Function<JsonNode, CompletionStage<?>>> rawHandlers = new LinkedHashMap<>();
    private final Map<String, DynamicTool> tools = new LinkedHashMap<>();

    /** A registry with nothing registered: every request gets the client's safe default. */
    public RequestHandlerRegistry() {
    }

    /**
     * The policy for every kind of approval.
     *
     * @param policy the policy
     */
    public void approvals(ApprovalPolicy<ApprovalRequest> policy) {
        this.approvals = Objects.requireNonNull(policy, "policy");
    }

    /**
     * The policy for the approvals of one method, replacing a typed handler of that method.
     *
     * @param method the approval request's method
     * @param policy the policy
     */
    public void kindApproval(String method, ApprovalPolicy<?> policy) {
        Objects.requireNonNull(policy, "policy");
        handlers.remove(method);
        kindApprovals.put(method, policy);
    }

    /**
     * A typed handler of {@code method}, replacing a policy of one kind of approval of that method.
     *
     * @param method  the request's descriptor
     * @param handler answers the request
     * @param <P>     the params type
     * @param <R>     the result type
     */
    public <P, R> void handler(MethodDescriptor<P, R> method,
                               Function<? super P, ? extends CompletionStage<R>> handler) {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(handler, "handler");
        kindApprovals.remove(method.method());
        handlers.put(method.method(), ServerRequestRouter.Route.of(method, handler));
    }

    /**
     * The handler of {@code account/chatgptAuthTokens/refresh}: the access token it returns is masked in what the
     * client logs from then on (the latest ones only, so a client refreshing for weeks keeps a bounded list).
     *
     * @param handler  answers the refresh
     * @param redactor the client's redactor
     */
    public void tokenRefresh(Function<ChatgptAuthTokensRefreshParams,
            CompletionStage<ChatgptAuthTokensRefreshResponse>> handler, Redactor redactor) {
        Objects.requireNonNull(handler, "handler");
        handler(ServerRequestMethods.ACCOUNT_CHATGPT_AUTH_TOKENS_REFRESH, p -> {
            CompletableFuture<ChatgptAuthTokensRefreshResponse> source = handler.apply(p).toCompletableFuture();
            return Futures.cancelling(source.thenApply(r -> {
                if (r != null && r.accessToken() != null) {
                    redactor.registerRefreshed(r.accessToken());
                }
                return r;
            }), source);
        });
    }

    /**
     * A handler of a method the SDK does not know, given the raw params.
     *
     * @param method  the request's method
     * @param handler answers the request
     */
    public void rawHandler(String method, Function<JsonNode, CompletionStage<?>> handler) {
        rawHandlers.put(Objects.requireNonNull(method, "method"), Objects.requireNonNull(handler, "handler"));
    }

    /**
     * A dynamic tool.
     *
     * @param tool the tool
     * @throws IllegalArgumentException when a tool of that name is registered already
     */
    public void tool(DynamicTool tool) {
        Objects.requireNonNull(tool, "tool");
        if (tools.putIfAbsent(tool.name(), tool) != null) {
            throw new IllegalArgumentException("a tool named " + tool.name() + " is already registered");
        }
    }

    /** {@return the names of the dynamic tools registered, in order} */
    public List<String> toolNames() {
        return List.copyOf(tools.keySet());
    }

    /** {@return what was registered, fixed} */
    public RequestHandlers handlers() {
        return new RequestHandlers(approvals, kindApprovals, handlers, rawHandlers, List.copyOf(tools.values()));
    }
}

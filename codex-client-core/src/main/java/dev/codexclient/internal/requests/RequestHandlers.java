package dev.codexclient.internal.requests;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.DynamicTool;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * What the user registered to answer the server's requests, as the builder collected it.
 *
 * @param approvals     the policy for every kind of approval; null for the default (decline, logged once)
 * @param kindApprovals policies for one kind of approval, by method; they take precedence over {@code approvals}
 * @param routes        typed handlers, by method
 * @param rawRoutes     handlers of methods this SDK does not know, by method
 * @param tools         the dynamic tools
 */
public record RequestHandlers(ApprovalPolicy<ApprovalRequest> approvals, Map<String, ApprovalPolicy<?>> kindApprovals,
                              Map<String, ServerRequestRouter.Route<?, ?>> routes,
                              Map<String, Function<JsonNode, CompletionStage<?>>> rawRoutes, List<DynamicTool> tools) {

    /** Copies the collections, so the value does not change with the builder. */
    public RequestHandlers {
        kindApprovals = Map.copyOf(kindApprovals);
        routes = Map.copyOf(routes);
        rawRoutes = Map.copyOf(rawRoutes);
        tools = List.copyOf(tools);
    }
}

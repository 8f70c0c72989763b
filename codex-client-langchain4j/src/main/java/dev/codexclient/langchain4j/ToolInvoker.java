package dev.codexclient.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.protocol.DynamicToolCallParams;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.internal.JsonSchemaElementUtils;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Runs a codex tool call with a LangChain4j {@link ToolExecutor}, as AiServices does: a {@link ToolExecutionRequest}
 * with the call's id, name and JSON arguments, an {@link InvocationContext} with the memory id and the codex thread,
 * turn and call as {@link InvocationParameters}; the result's text goes back to the model, and a result marked as an
 * error (what LangChain4j makes of a {@code @Tool} method that throws) is a failed call. An exception the executor
 * throws fails the call with its message (the client's rule for a tool that throws).
 */
final class ToolInvoker {
    /** The executor and memory id that answer one call. */
    record Binding(ToolExecutor executor, Object memoryId) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private ToolInvoker() {
    }

    /** A codex tool with the specification's name, description and parameters, each call run by what it binds to. */
    static DynamicTool tool(ToolSpecification specification, Function<DynamicToolCallParams, Binding> binding) {
        ObjectNode schema = schemaOf(specification);
        String description = specification.description() == null ? "" : specification.description();
        return DynamicTool.ofAsync(specification.name(), description, schema, (arguments, call, mapper) ->
                CompletableFuture.completedFuture(invoke(binding.apply(call), arguments, call)));
    }

    static ToolResult invoke(Binding binding, JsonNode arguments, DynamicToolCallParams call) {
        String json = arguments == null || arguments.isNull() || arguments.isMissingNode() ? "{}" : arguments.toString();
        ToolExecutionRequest request = ToolExecutionRequest.builder().id(call.callId()).name(call.tool())
                .arguments(json).build();
        InvocationParameters parameters = new InvocationParameters();
        parameters.put(CodexToolContext.THREAD_ID, call.threadId());
        parameters.put(CodexToolContext.TURN_ID, call.turnId());
        parameters.put(CodexToolContext.CALL_ID, call.callId());
        Object memoryId = binding.memoryId() != null ? binding.memoryId() : call.threadId();
        InvocationContext context = InvocationContext.builder().chatMemoryId(memoryId).invocationParameters(parameters)
                .timestampNow().build();
        ToolExecutionResult result = binding.executor().executeWithContext(request, context);
        String text = result.resultText() == null ? "" : result.resultText();
        return result.isError() ? ToolResult.failure(text) : ToolResult.text(text);
    }

    private static ObjectNode schemaOf(ToolSpecification specification) {
        if (specification.parameters() == null) {
            ObjectNode empty = JSON.createObjectNode().put("type", "object");
            empty.putObject("properties");
            return empty;
        }
        // The JSON Schema of the parameters as LangChain4j's own model integrations write it for their providers.
        Map<String, Object> schema = JsonSchemaElementUtils.toMap(specification.parameters());
        return JSON.valueToTree(schema);
    }
}

package dev.codexclient.spring.ai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.protocol.DynamicToolCallParams;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;

/**
 * Runs a codex tool call with a Spring AI {@link ToolCallback}, as Spring AI's own tool calling does: the arguments
 * as the callback's JSON input, a {@link ToolContext} with the call's thread, turn and call ids, the callback's text as
 * the result, and a {@link ToolExecutionException} turned into text by the {@link ToolExecutionExceptionProcessor}.
 * Codex is told such a call failed ({@code success:false}), with that text. Any other exception, or one the processor
 * rethrows, fails the call with the exception's message (the client's rule for a tool that throws).
 */
final class ToolCallbackInvoker {
    /** The callback and the application's context entries that answer one call. */
    record Binding(ToolCallback callback, Map<String, Object> context) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private ToolCallbackInvoker() {
    }

    /**
     * A codex tool with {@code definition}'s name, description and input schema, each call answered by the callback
     * {@code binding} picks for it.
     */
    static DynamicTool tool(ToolDefinition definition, ToolExecutionExceptionProcessor processor,
                            Function<DynamicToolCallParams, Binding> binding) {
        ObjectNode schema = schemaOf(definition);
        String description = definition.description() == null ? "" : definition.description();
        return DynamicTool.ofAsync(definition.name(), description, schema, (arguments, call, mapper) ->
                CompletableFuture.completedFuture(invoke(binding.apply(call), arguments, call, processor)));
    }

    static ToolResult invoke(Binding binding, JsonNode arguments, DynamicToolCallParams call,
                             ToolExecutionExceptionProcessor processor) {
        // Spring AI's callbacks take a JSON object; codex may send none for a tool without parameters.
        String input = arguments == null || arguments.isNull() || arguments.isMissingNode() ? "{}"
                : arguments.toString();
        Map<String, Object> context = new HashMap<>(binding.context());
        context.put(CodexToolContext.THREAD_ID, call.threadId());
        context.put(CodexToolContext.TURN_ID, call.turnId());
        context.put(CodexToolContext.CALL_ID, call.callId());
        try {
            String result = binding.callback().call(input, new ToolContext(context));
            return ToolResult.text(result == null ? "" : result);
        } catch (ToolExecutionException e) {
            String text = processor.process(e);
            return ToolResult.failure(text == null ? String.valueOf(e.getMessage()) : text);
        }
    }

    private static ObjectNode schemaOf(ToolDefinition definition) {
        String schema = definition.inputSchema();
        if (schema == null || schema.isBlank()) {
            ObjectNode empty = JSON.createObjectNode().put("type", "object");
            empty.putObject("properties");
            return empty;
        }
        JsonNode parsed;
        try {
            parsed = JSON.readTree(schema);
        } catch (Exception e) {
            throw new IllegalArgumentException("the input schema of tool " + definition.name()
                    + " is not JSON: " + e.getMessage(), e);
        }
        if (!(parsed instanceof ObjectNode object)) {
            throw new IllegalArgumentException("the input schema of tool " + definition.name()
                    + " is not a JSON object");
        }
        return object;
    }
}

package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.testkit.internal.model.SseWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Encodes a {@link ModelStep} as the Responses API streams it: {@code response.created}, per output item its
 * {@code added}, text deltas and {@code done} events, then {@code response.completed} with the usage. Ids of
 * responses, messages and calls are unique per stream encoder.
 */
final class ResponsesStream {
    private final String model;
    private final AtomicInteger ids = new AtomicInteger();

    ResponsesStream(String model) {
        this.model = model;
    }

    /**
     * Writes the events of one response: created, each output item, completed with the step's token usage.
     *
     * @param out the response body; flushed after each event, not closed
     * @param step the step to play, of kind {@link ModelStep.Kind#RESPONSE}
     */
    void write(OutputStream out, ModelStep step) throws IOException {
        SseWriter sse = new SseWriter(out);
        String responseId = "resp_" + ids.incrementAndGet();
        ObjectNode created = ModelStep.JSON.createObjectNode();
        created.putObject("response").put("id", responseId).put("object", "response").put("status", "in_progress")
                .put("model", model);
        sse.event("response.created", created);
        ArrayNode done = ModelStep.JSON.createArrayNode();
        int index = 0;
        for (ModelStep.Output output : step.outputItems()) {
            ObjectNode item = output instanceof ModelStep.Message message
                    ? streamMessage(sse, index, message, step.chunkCodePoints())
                    : streamCall(sse, index, (ModelStep.FunctionCall) output);
            done.add(item);
            index++;
        }
        ObjectNode completed = ModelStep.JSON.createObjectNode();
        ObjectNode response = completed.putObject("response").put("id", responseId).put("object", "response")
                .put("status", "completed").put("model", model);
        response.set("output", done);
        ObjectNode usage = response.putObject("usage");
        usage.put("input_tokens", step.inputTokens());
        usage.putObject("input_tokens_details").put("cached_tokens", step.cachedInputTokens());
        usage.put("output_tokens", step.outputTokens());
        usage.putObject("output_tokens_details").put("reasoning_tokens", step.reasoningTokens());
        usage.put("total_tokens", step.inputTokens() + step.outputTokens());
        sse.event("response.completed", completed);
    }

    private ObjectNode streamMessage(SseWriter sse, int index, ModelStep.Message message, int chunkCodePoints)
            throws IOException {
        String itemId = "msg_" + ids.incrementAndGet();
        ObjectNode added = ModelStep.JSON.createObjectNode().put("output_index", index);
        added.putObject("item").put("type", "message").put("id", itemId).put("role", "assistant")
                .put("status", "in_progress").putArray("content");
        sse.event("response.output_item.added", added);
        List<String> chunks = chunkCodePoints == 0 ? List.of() : ModelStep.chunks(message.text(), chunkCodePoints);
        for (String chunk : chunks) {
            ObjectNode delta = ModelStep.JSON.createObjectNode().put("item_id", itemId).put("output_index", index)
                    .put("content_index", 0).put("delta", chunk);
            sse.event("response.output_text.delta", delta);
        }
        ObjectNode item = ModelStep.JSON.createObjectNode().put("type", "message").put("id", itemId)
                .put("role", "assistant").put("status", "completed");
        item.putArray("content").addObject().put("type", "output_text").put("text", message.text())
                .putArray("annotations");
        ObjectNode doneEvent = ModelStep.JSON.createObjectNode().put("output_index", index);
        doneEvent.set("item", item);
        sse.event("response.output_item.done", doneEvent);
        return item;
    }

    private ObjectNode streamCall(SseWriter sse, int index, ModelStep.FunctionCall call) throws IOException {
        int id = ids.incrementAndGet();
        String callId = call.callId().orElse("call_" + id);
        ObjectNode item = ModelStep.JSON.createObjectNode().put("type", "function_call").put("id", "fc_" + id)
                .put("call_id", callId).put("name", call.name()).put("arguments", call.argumentsJson())
                .put("status", "completed");
        ObjectNode doneEvent = ModelStep.JSON.createObjectNode().put("output_index", index);
        doneEvent.set("item", item);
        sse.event("response.output_item.done", doneEvent);
        return item;
    }
}

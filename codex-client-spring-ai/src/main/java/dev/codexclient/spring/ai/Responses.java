package dev.codexclient.spring.ai;

import dev.codexclient.TurnResult;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.TurnStatus;
import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;

/** Spring AI responses of codex turns: a streamed delta, and the whole turn with what codex did in it. */
final class Responses {
    private Responses() {
    }

    /** A piece of the answer, as it streams. */
    static ChatResponse delta(String threadId, String turnId, String text) {
        return new ChatResponse(List.of(new Generation(new AssistantMessage(text))),
                ChatResponseMetadata.builder().id(turnId).keyValue(CodexMetadata.THREAD_ID, threadId)
                        .keyValue(CodexMetadata.TURN_ID, turnId).build());
    }

    /**
     * The turn's response: {@code text} (the whole answer for a call, empty for the end of a stream), codex's items,
     * the turn's token usage and the reason it ended.
     */
    static ChatResponse of(TurnResult result, String text, String model) {
        String turnId = result.turnId().orElse("");
        ChatResponseMetadata.Builder metadata = ChatResponseMetadata.builder().id(turnId)
                .keyValue(CodexMetadata.THREAD_ID, result.threadId())
                .keyValue(CodexMetadata.TURN_ID, turnId)
                .keyValue(CodexMetadata.STATUS, result.status())
                .keyValue(CodexMetadata.ITEMS, result.items())
                .keyValue(CodexMetadata.COMMANDS, result.itemsOf(ThreadItem.CommandExecution.class))
                .keyValue(CodexMetadata.TOOL_CALLS, result.items().stream()
                        .filter(i -> i instanceof ThreadItem.DynamicToolCall || i instanceof ThreadItem.McpToolCall)
                        .toList())
                .keyValue(CodexMetadata.FILE_CHANGES, result.itemsOf(ThreadItem.FileChange.class));
        if (model != null) {
            metadata.model(model);
        }
        // The turn's tokens, every model call of it, as core counts them; the thread's report is the native usage.
        result.tokens().ifPresent(t -> metadata.usage(new DefaultUsage(saturated(t.inputTokens()),
                saturated(t.outputTokens()), saturated(t.totalTokens()), result.usage().orElse(null),
                t.cachedInputTokens(), null)));
        String finish = result.status() == TurnStatus.COMPLETED ? "STOP" : result.status().toString();
        return new ChatResponse(List.of(new Generation(new AssistantMessage(text),
                ChatGenerationMetadata.builder().finishReason(finish).build())), metadata.build());
    }

    private static int saturated(long n) {
        return (int) Math.min(Integer.MAX_VALUE, n);
    }
}

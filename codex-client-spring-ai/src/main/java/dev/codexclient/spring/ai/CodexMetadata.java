package dev.codexclient.spring.ai;

import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.TurnStatus;
import java.util.List;
import java.util.Optional;
import org.springframework.ai.chat.model.ChatResponse;

/**
 * What codex did in a turn, as a {@link CodexChatModel}'s {@link ChatResponse} carries it in its metadata: the thread
 * and turn, the commands codex ran, the tool calls it made (dynamic tools and MCP tools), its file changes, and every
 * item of the turn. A streamed response carries them on its last element.
 *
 * <pre>{@code
 * ChatResponse response = chatClient.prompt().user("Run the tests").call().chatResponse();
 * CodexMetadata.commands(response).forEach(c -> log.info("ran {} (exit {})", c.command(), c.exitCode()));
 * }</pre>
 */
public final class CodexMetadata {
    /** The key of the codex thread id ({@code String}). */
    public static final String THREAD_ID = "codex.threadId";
    /** The key of the codex turn id ({@code String}). */
    public static final String TURN_ID = "codex.turnId";
    /** The key of the turn's status ({@link TurnStatus}). */
    public static final String STATUS = "codex.status";
    /** The key of every item of the turn ({@code List<ThreadItem>}). */
    public static final String ITEMS = "codex.items";
    /** The key of the commands codex ran ({@code List<ThreadItem.CommandExecution>}). */
    public static final String COMMANDS = "codex.commands";
    /** The key of the tool calls codex made: dynamic tools and MCP tools ({@code List<ThreadItem>}). */
    public static final String TOOL_CALLS = "codex.toolCalls";
    /** The key of codex's file changes ({@code List<ThreadItem.FileChange>}). */
    public static final String FILE_CHANGES = "codex.fileChanges";

    private CodexMetadata() {
    }

    /**
     * {@return the codex thread of the response, empty for a response of another model}
     *
     * @param response the response
     */
    public static Optional<String> threadId(ChatResponse response) {
        return Optional.ofNullable(response.getMetadata().get(THREAD_ID));
    }

    /**
     * {@return the codex turn of the response, empty for a response of another model}
     *
     * @param response the response
     */
    public static Optional<String> turnId(ChatResponse response) {
        return Optional.ofNullable(response.getMetadata().get(TURN_ID));
    }

    /**
     * {@return every item of the turn, in order; empty for a response of another model}
     *
     * @param response the response
     */
    public static List<ThreadItem> items(ChatResponse response) {
        return list(response, ITEMS);
    }

    /**
     * {@return the commands codex ran in the turn}
     *
     * @param response the response
     */
    public static List<ThreadItem.CommandExecution> commands(ChatResponse response) {
        return list(response, COMMANDS);
    }

    /**
     * {@return the tool calls codex made in the turn: {@link ThreadItem.DynamicToolCall} and
     * {@link ThreadItem.McpToolCall} items}
     *
     * @param response the response
     */
    public static List<ThreadItem> toolCalls(ChatResponse response) {
        return list(response, TOOL_CALLS);
    }

    /**
     * {@return the file changes codex made in the turn}
     *
     * @param response the response
     */
    public static List<ThreadItem.FileChange> fileChanges(ChatResponse response) {
        return list(response, FILE_CHANGES);
    }

    private static <T> List<T> list(ChatResponse response, String key) {
        List<T> value = response.getMetadata().get(key);
        return value == null ? List.of() : value;
    }
}

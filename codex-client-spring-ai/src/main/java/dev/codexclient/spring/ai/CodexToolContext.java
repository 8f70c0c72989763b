package dev.codexclient.spring.ai;

import java.util.Optional;
import org.springframework.ai.chat.model.ToolContext;

/**
 * What a Spring AI tool called by codex finds in its {@link ToolContext}: the codex thread, turn and call it runs for,
 * beside the application's own entries (those given to {@link SpringAiTools.Converter#toolContext} or to the
 * {@code ChatClient}'s {@code toolContext(...)}).
 *
 * <pre>{@code
 * @Tool(description = "Look up a ticket by id")
 * String lookupTicket(String id, ToolContext context) {
 *     String thread = CodexToolContext.threadId(context).orElseThrow();
 *     return tickets.find(id, thread).summary();
 * }
 * }</pre>
 */
public final class CodexToolContext {
    /** The key of the codex thread id. */
    public static final String THREAD_ID = "codex.threadId";
    /** The key of the codex turn id. */
    public static final String TURN_ID = "codex.turnId";
    /** The key of the call's id, as codex names it in the turn's items. */
    public static final String CALL_ID = "codex.callId";

    private CodexToolContext() {
    }

    /**
     * {@return the codex thread the tool runs for, empty when it was not called by codex}
     *
     * @param context the tool's context
     */
    public static Optional<String> threadId(ToolContext context) {
        return text(context, THREAD_ID);
    }

    /**
     * {@return the codex turn the tool runs for, empty when it was not called by codex}
     *
     * @param context the tool's context
     */
    public static Optional<String> turnId(ToolContext context) {
        return text(context, TURN_ID);
    }

    /**
     * {@return the id of the call, empty when it was not called by codex}
     *
     * @param context the tool's context
     */
    public static Optional<String> callId(ToolContext context) {
        return text(context, CALL_ID);
    }

    private static Optional<String> text(ToolContext context, String key) {
        return context == null ? Optional.empty()
                : Optional.ofNullable(context.getContext().get(key)).filter(String.class::isInstance)
                        .map(String.class::cast);
    }
}

package dev.codexclient.langchain4j;

import dev.langchain4j.invocation.InvocationParameters;
import java.util.Optional;

/**
 * What a LangChain4j tool called by codex finds in its {@link InvocationParameters} (a {@code @Tool} method takes them
 * as a parameter of that type): the codex thread, turn and call it runs for. Its {@code @ToolMemoryId} is the memory
 * id of the conversation when {@link CodexChatModel} runs it, the codex thread id otherwise.
 *
 * <pre>{@code
 * @Tool("Look up a ticket by id")
 * String lookupTicket(String id, InvocationParameters parameters) {
 *     return tickets.find(id, CodexToolContext.threadId(parameters).orElseThrow()).summary();
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
     * @param parameters the invocation's parameters
     */
    public static Optional<String> threadId(InvocationParameters parameters) {
        return text(parameters, THREAD_ID);
    }

    /**
     * {@return the codex turn the tool runs for, empty when it was not called by codex}
     *
     * @param parameters the invocation's parameters
     */
    public static Optional<String> turnId(InvocationParameters parameters) {
        return text(parameters, TURN_ID);
    }

    /**
     * {@return the id of the call, empty when it was not called by codex}
     *
     * @param parameters the invocation's parameters
     */
    public static Optional<String> callId(InvocationParameters parameters) {
        return text(parameters, CALL_ID);
    }

    private static Optional<String> text(InvocationParameters parameters, String key) {
        Object value = parameters == null ? null : parameters.get(key);
        return value instanceof String s ? Optional.of(s) : Optional.empty();
    }
}

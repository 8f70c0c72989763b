package dev.codexclient.langchain4j;

import dev.codexclient.Codex;
import dev.codexclient.TurnResult;
import dev.langchain4j.model.ModelProvider;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.DefaultChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Codex as a LangChain4j {@link ChatModel}: each request runs a codex turn, which may run commands, edit files and call
 * tools before it answers. {@link CodexStreamingChatModel} is its streaming twin ({@link #streaming()}).
 *
 * <pre>{@code
 * CodexChatModel codexModel = CodexChatModel.builder(codex).tools(new TicketTools()).build();
 * Assistant assistant = AiServices.builder(Assistant.class)
 *         .chatModel(codexModel)
 *         .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
 *         .chatRequestTransformer(codexModel.memoryIdTransformer())
 *         .build();
 * String answer = assistant.chat("ticket-42", "Why does the build fail?");  // chat(@MemoryId String, @UserMessage String)
 * }</pre>
 *
 * <p><b>A memory id is a codex thread.</b> A request whose parameters carry a memory id ({@link #memoryIdTransformer()}
 * puts the AiServices call's {@code @MemoryId} there) runs on that conversation's thread: codex keeps the history, the
 * model keeps only which thread is the conversation's, in a {@link dev.codexclient.conversation.CodexConversations.Store}
 * (in memory unless you give one that outlives the process; a later process resumes the thread). The chat memory may
 * still replay the history: codex is sent only what it has not seen (a message of a turn that failed included, which
 * codex has). A request without a memory id runs on a thread of its own, which codex does not keep (ephemeral). Turns
 * of one conversation run one after another. The model works on any {@link Codex}: a client, or a pool.
 *
 * <p><b>Tools</b> are the model's own ({@link CodexModelBuilder#tools}, {@link CodexModelBuilder#toolProvider}): codex
 * runs them itself, during its turn, as the conversation thread's dynamic tools; the client needs
 * {@code experimentalApi(true)} ({@code codex.experimental-api=true} with the Spring Boot starter). Tools given to
 * AiServices instead reach the model as specifications without executors: they are not offered to codex (a warning
 * says so once).
 *
 * <p><b>Structured output</b> is codex's own: the model supports {@link Capability#RESPONSE_FORMAT_JSON_SCHEMA}, and a
 * request's JSON schema is the turn's {@code outputSchema}. <b>Listeners</b> ({@link CodexModelBuilder#listeners}) are
 * called as LangChain4j calls any model's. <b>What codex did</b> is in the response's
 * {@link CodexChatResponseMetadata}, with the turn's token usage. Approvals are decided by the client's approval
 * policy, as for any turn. A failed turn throws its {@link dev.codexclient.errors.CodexTurnFailedException}.
 */
public final class CodexChatModel implements ChatModel, AutoCloseable {
    private final CodexTurns turns;
    private final CodexStreamingChatModel streaming;

    CodexChatModel(CodexTurns turns) {
        this.turns = turns;
        this.streaming = new CodexStreamingChatModel(turns, this);
    }

    /**
     * {@return a builder of a model running its turns on {@code codex}: a client, or a pool}
     *
     * @param codex where the turns run; the client's approval policy decides their approvals
     */
    public static Builder builder(Codex codex) {
        return new Builder(codex);
    }

    /** Settings of a {@link CodexChatModel}. */
    public static final class Builder extends CodexModelBuilder<Builder> {
        private Builder(Codex codex) {
            super(codex);
        }

        /** {@return the model} */
        public CodexChatModel build() {
            return new CodexChatModel(new CodexTurns(this));
        }
    }

    /**
     * {@return the streaming twin of this model: the same conversations, tools and listeners} Give both to an
     * AiServices builder that has blocking and streaming methods; a conversation's turns then still run one at a time
     * and codex is sent only what it has not seen, whichever of the two runs them.
     */
    public CodexStreamingChatModel streaming() {
        return streaming;
    }

    /**
     * {@return the AiServices request transformer that hands each call's memory id to this model} Give it to
     * {@code AiServices.builder(...).chatRequestTransformer(...)}.
     */
    public BiFunction<ChatRequest, Object, ChatRequest> memoryIdTransformer() {
        return CodexTurns.memoryIdTransformer();
    }

    @Override
    public ChatRequestParameters defaultRequestParameters() {
        return DefaultChatRequestParameters.EMPTY;
    }

    @Override
    public List<ChatModelListener> listeners() {
        return turns.listeners;
    }

    @Override
    public ModelProvider provider() {
        return ModelProvider.OTHER;
    }

    /** {@return what the model supports beyond text: a JSON schema for the answer (codex's {@code outputSchema})} */
    @Override
    public Set<Capability> supportedCapabilities() {
        return CodexTurns.capabilities();
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        TurnResult result = turns.conversations.call(turns.turn(request), turns.turnTimeout);
        return turns.response(result, result.finalText(), request.modelName());
    }

    /** Stops following the client's notifications; the streaming twin with it. The client and its threads stay. */
    @Override
    public void close() {
        turns.close();
    }
}

package dev.codexclient.conversation;

import dev.codexclient.CodexExperimental;
import dev.codexclient.DynamicTool;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One turn a chat integration asks for: the chat history as the framework has it (its memory's messages and the new
 * one), the conversation it belongs to, the params of a new thread, the thread's tools and the turn's own settings.
 * {@link CodexConversations} decides what of the history codex is sent.
 *
 * <pre>{@code
 * ConversationTurn turn = ConversationTurn.builder(List.of(ConversationMessage.user("Why does the build fail?")))
 *         .conversationId("ticket-42")
 *         .threadParams(ThreadStartParams.builder().cwd("/srv/repo").build())
 *         .turnParams(p -> p.model("gpt-5.1-codex"))
 *         .build();
 * }</pre>
 */
public final class ConversationTurn {
    private final List<ConversationMessage> messages;
    private final String conversationId;
    private final ThreadStartParams threadParams;
    private final Supplier<List<DynamicTool>> tools;
    private final Consumer<TurnStartParams.Builder> turnParams;

    private ConversationTurn(Builder b) {
        this.messages = List.copyOf(b.messages);
        this.conversationId = b.conversationId;
        this.threadParams = b.threadParams;
        this.tools = b.tools;
        this.turnParams = b.turnParams;
    }

    /**
     * {@return a builder of a turn answering the last user message of {@code messages}}
     *
     * @param messages the chat history, oldest first, ending with the message codex is to answer
     */
    public static Builder builder(List<ConversationMessage> messages) {
        return new Builder(messages);
    }

    /** {@return the chat history, oldest first} */
    public List<ConversationMessage> messages() {
        return messages;
    }

    /** {@return the conversation, empty for a turn on a thread of its own that codex does not keep} */
    public Optional<String> conversationId() {
        return Optional.ofNullable(conversationId);
    }

    /** {@return the params of the thread, when one is started; the system messages become its instructions} */
    public ThreadStartParams threadParams() {
        return threadParams;
    }

    /** {@return the thread's own tools; asked for only when the thread is started or resumed} */
    @CodexExperimental("dynamicTools")
    public Supplier<List<DynamicTool>> tools() {
        return tools;
    }

    /** {@return what sets the turn's own settings on its {@code turn/start} params} */
    public Consumer<TurnStartParams.Builder> turnParams() {
        return turnParams;
    }

    /** Settings of a {@link ConversationTurn}. */
    public static final class Builder {
        private final List<ConversationMessage> messages;
        private String conversationId;
        private ThreadStartParams threadParams = ThreadStartParams.builder().build();
        private Supplier<List<DynamicTool>> tools = List::of;
        private Consumer<TurnStartParams.Builder> turnParams = p -> { };

        private Builder(List<ConversationMessage> messages) {
            this.messages = List.copyOf(Objects.requireNonNull(messages, "messages"));
        }

        /**
         * The conversation the turn belongs to (default: none, a thread of its own that codex does not keep).
         *
         * @param conversationId the conversation; null for none
         * @return this builder
         */
        public Builder conversationId(String conversationId) {
            this.conversationId = conversationId;
            return this;
        }

        /**
         * The params of the thread, when the turn starts one (default: the server's defaults). The history's system
         * messages become its developer instructions.
         *
         * @param params the params
         * @return this builder
         */
        public Builder threadParams(ThreadStartParams params) {
            this.threadParams = Objects.requireNonNull(params, "params");
            return this;
        }

        /**
         * The thread's own tools (see {@link dev.codexclient.Codex#startThread(ThreadStartParams, List)}): asked for
         * only when the thread is started or resumed, which is when codex takes them; runs on a callback thread.
         *
         * @param tools the supplier
         * @return this builder
         */
        @CodexExperimental("dynamicTools")
        public Builder tools(Supplier<List<DynamicTool>> tools) {
            this.tools = Objects.requireNonNull(tools, "tools");
            return this;
        }

        /**
         * Sets the turn's own settings (model, effort, sandbox, working directory, output schema) on its params,
         * whose thread id and input are set already; runs on a callback thread.
         *
         * @param turnParams what sets them
         * @return this builder
         */
        public Builder turnParams(Consumer<TurnStartParams.Builder> turnParams) {
            this.turnParams = Objects.requireNonNull(turnParams, "turnParams");
            return this;
        }

        /** {@return the turn} */
        public ConversationTurn build() {
            return new ConversationTurn(this);
        }
    }
}

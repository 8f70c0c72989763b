package dev.codexclient.langchain4j;

import dev.codexclient.Codex;
import dev.codexclient.conversation.CodexConversations;
import dev.codexclient.protocol.ThreadStartParams;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The settings {@link CodexChatModel} and {@link CodexStreamingChatModel} share: where and how their turns run, their
 * tools and their listeners.
 *
 * @param <B> the builder's own type
 */
public abstract class CodexModelBuilder<B extends CodexModelBuilder<B>> {
    final Codex codex;
    ThreadStartParams threadParams = ThreadStartParams.builder().build();
    CodexConversations.Store store = CodexConversations.Store.inMemory();
    int maxConversations = CodexConversations.DEFAULT_MAX_CONVERSATIONS;
    Duration turnTimeout = Duration.ofMinutes(10);
    final Map<ToolSpecification, ToolExecutor> tools = new LinkedHashMap<>();
    ToolProvider toolProvider;
    final List<ChatModelListener> listeners = new ArrayList<>();

    CodexModelBuilder(Codex codex) {
        this.codex = Objects.requireNonNull(codex, "codex");
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * The params of the threads the model starts (working directory, sandbox, approval policy, model, ...);
     * default: the server's defaults. A request's system messages become a new thread's developer instructions.
     *
     * @param params the params
     * @return this builder
     */
    public B threadParams(ThreadStartParams params) {
        this.threadParams = Objects.requireNonNull(params, "params");
        return self();
    }

    /**
     * Where each conversation's thread id is kept, by memory id as text (default: in memory).
     *
     * @param store the store
     * @return this builder
     */
    public B conversationStore(CodexConversations.Store store) {
        this.store = Objects.requireNonNull(store, "store");
        return self();
    }

    /**
     * The most conversations the model keeps in memory (default
     * {@value CodexConversations#DEFAULT_MAX_CONVERSATIONS}; see {@link CodexConversations.Builder#maxConversations}).
     *
     * @param max the bound, positive
     * @return this builder
     */
    public B maxConversations(int max) {
        if (max <= 0) {
            throw new IllegalArgumentException("maxConversations must be positive: " + max);
        }
        this.maxConversations = max;
        return self();
    }

    /**
     * How long a blocking {@code chat} waits for a turn (default 10 minutes); then it interrupts the turn and throws
     * {@link dev.codexclient.errors.CodexTimeoutException}. A stream has no bound of its own: cancel it with its
     * {@code StreamingHandle}.
     *
     * @param timeout the bound
     * @return this builder
     */
    public B turnTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("turnTimeout must be positive: " + timeout);
        }
        this.turnTimeout = timeout;
        return self();
    }

    /**
     * Tools codex may call in every conversation: the {@code @Tool} methods of these objects.
     *
     * @param toolObjects objects with {@code @Tool} methods
     * @return this builder
     */
    public B tools(Object... toolObjects) {
        this.tools.putAll(LangChain4jTools.executorsOf(toolObjects));
        return self();
    }

    /**
     * Tools codex may call in every conversation, each run by its executor.
     *
     * @param tools the specifications and their executors
     * @return this builder
     */
    public B tools(Map<ToolSpecification, ToolExecutor> tools) {
        this.tools.putAll(tools);
        return self();
    }

    /**
     * A provider of each conversation's further tools, asked when the conversation's thread starts or is resumed
     * (with the memory id and the user message), since codex declares a thread's tools then.
     *
     * @param provider the provider, e.g. LangChain4j's MCP tool provider
     * @return this builder
     */
    public B toolProvider(ToolProvider provider) {
        this.toolProvider = Objects.requireNonNull(provider, "provider");
        return self();
    }

    /**
     * Listeners of each request, its response and its error, as LangChain4j calls a model's listeners
     * ({@link ChatModelListener}): observability in LangChain4j's terms.
     *
     * @param listeners the listeners, in order
     * @return this builder
     */
    public B listeners(List<? extends ChatModelListener> listeners) {
        this.listeners.addAll(listeners);
        return self();
    }
}

package dev.codexclient.spring.ai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.Codex;
import dev.codexclient.DynamicTool;
import dev.codexclient.TurnResult;
import dev.codexclient.conversation.AnswerPart;
import dev.codexclient.conversation.CodexConversations;
import dev.codexclient.conversation.ConversationTurn;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.observation.ChatModelObservationContext;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.ai.chat.observation.ChatModelObservationDocumentation;
import org.springframework.ai.chat.observation.DefaultChatModelObservationConvention;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.tool.ToolCallback;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;

/**
 * Codex as a Spring AI {@link ChatModel}: each call runs a codex turn, which may run commands, edit files and call
 * tools before it answers, and a stream gives the answer as codex writes it.
 *
 * <pre>{@code
 * CodexChatModel codexModel = CodexChatModel.builder(codex)
 *         .threadParams(ThreadStartParams.builder().cwd("/srv/repo").sandbox(SandboxMode.WORKSPACE_WRITE).build())
 *         .build();
 * ChatClient chat = ChatClient.builder(codexModel).defaultAdvisors(new CodexConversationAdvisor()).build();
 * Flux<String> answer = chat.prompt().user("Why does the build fail?").tools(new TicketTools())
 *         .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "ticket-42")).stream().content();
 * }</pre>
 *
 * <p><b>Conversations are codex threads.</b> A prompt whose {@link CodexChatOptions} name a conversation (the
 * {@link CodexConversationAdvisor} copies the advisors' {@link ChatMemory#CONVERSATION_ID} there) runs on that
 * conversation's thread: codex keeps the history, the model keeps only which thread is the conversation's, in a
 * {@link CodexConversations.Store} (in memory unless you give one that outlives the process; a later process resumes
 * the thread). A memory advisor may still replay the history: codex is sent only what it has not seen (a message of
 * a turn that failed included, which codex has). A prompt without a conversation runs on a thread of its own, which
 * codex does not keep (ephemeral). Turns of one conversation run one after another. The model works on any
 * {@link Codex}: a client, or a pool.
 *
 * <p><b>Tools.</b> The prompt's tool callbacks ({@code ChatClient}'s {@code tools(...)}, the default options') become
 * the thread's codex dynamic tools (see {@link SpringAiTools}); codex declares a thread's tools when the thread starts,
 * so a later prompt's callbacks replace the implementations of those tools (and their tool context) but cannot add
 * tools. Tools need the client's experimental API ({@code codex.experimental-api=true} with the Spring Boot starter).
 *
 * <p><b>Structured output</b> is codex's own: the options' output schema ({@code ChatClient}'s {@code entity(...)}
 * with {@code AdvisorParams.ENABLE_NATIVE_STRUCTURED_OUTPUT}) is the turn's {@code outputSchema}.
 *
 * <p><b>What codex did</b> is in the response's metadata ({@link CodexMetadata}): commands, tool calls, file changes, all
 * items, the thread and turn; the turn's token usage is the response's usage. Each call and stream is a Spring AI
 * chat-model observation ({@code gen_ai.client.operation}, provider {@code codex}) on the
 * {@link Builder#observationRegistry registry} given. Approvals (commands, file changes) are decided by the client's
 * approval policy, as for any turn. A failed turn throws its {@link dev.codexclient.errors.CodexTurnFailedException};
 * a cancelled stream interrupts the turn.
 */
public final class CodexChatModel implements ChatModel, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CodexChatModel.class);
    private static final ChatModelObservationConvention DEFAULT_CONVENTION = new DefaultChatModelObservationConvention();
    /** The provider name of the observations. */
    public static final String PROVIDER = "codex";

    /** The tools of one conversation as its latest prompt gave them; the thread's tools answer through it. */
    private static final class ConversationTools {
        private final Map<String, ToolCallback> callbacks = new ConcurrentHashMap<>();
        private volatile Map<String, Object> context = Map.of();
        private final Set<String> declared = ConcurrentHashMap.newKeySet();
        private final Set<String> warned = ConcurrentHashMap.newKeySet();

        ToolCallbackInvoker.Binding binding(String name) {
            return new ToolCallbackInvoker.Binding(callbacks.get(name), context);
        }
    }

    private final CodexConversations conversations;
    private final ThreadStartParams threadParams;
    private final Duration turnTimeout;
    private final SpringAiTools.Converter converter;
    private final CodexChatOptions defaultOptions;
    private final ObservationRegistry observations;
    private final ChatModelObservationConvention convention;
    private final ObjectMapper json;

    private CodexChatModel(Builder b) {
        this.conversations = CodexConversations.builder(b.codex).store(b.store).maxConversations(b.maxConversations)
                .build();
        this.threadParams = b.threadParams;
        this.turnTimeout = b.turnTimeout;
        this.converter = b.converter;
        this.defaultOptions = b.defaultOptions;
        this.observations = b.observations;
        this.convention = b.convention;
        this.json = b.json;
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
    public static final class Builder {
        private final Codex codex;
        private ThreadStartParams threadParams = ThreadStartParams.builder().build();
        private CodexConversations.Store store = CodexConversations.Store.inMemory();
        private int maxConversations = CodexConversations.DEFAULT_MAX_CONVERSATIONS;
        private Duration turnTimeout = Duration.ofMinutes(10);
        private SpringAiTools.Converter converter = SpringAiTools.converter();
        private CodexChatOptions defaultOptions = CodexChatOptions.builder().build();
        private ObservationRegistry observations = ObservationRegistry.NOOP;
        private ChatModelObservationConvention convention;
        private ObjectMapper json = new ObjectMapper();

        private Builder(Codex codex) {
            this.codex = Objects.requireNonNull(codex, "codex");
        }

        /**
         * The params of the threads the model starts (working directory, sandbox, approval policy, model, ...);
         * default: the server's defaults. A prompt's system messages become a new thread's developer instructions.
         *
         * @param params the params
         * @return this builder
         */
        public Builder threadParams(ThreadStartParams params) {
            this.threadParams = Objects.requireNonNull(params, "params");
            return this;
        }

        /**
         * Where each conversation's thread id is kept (default: in memory).
         *
         * @param store the store
         * @return this builder
         */
        public Builder conversationStore(CodexConversations.Store store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * The most conversations the model keeps in memory (default
         * {@value CodexConversations#DEFAULT_MAX_CONVERSATIONS}; see {@link CodexConversations.Builder#maxConversations}).
         *
         * @param max the bound, positive
         * @return this builder
         */
        public Builder maxConversations(int max) {
            if (max <= 0) {
                throw new IllegalArgumentException("maxConversations must be positive: " + max);
            }
            this.maxConversations = max;
            return this;
        }

        /**
         * How long {@link #call(Prompt)} waits for a turn, from the prompt (default 10 minutes); then it interrupts the
         * turn and throws {@link CodexTimeoutException}. A stream has no bound of its own: cancel it.
         *
         * @param timeout the bound
         * @return this builder
         */
        public Builder turnTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("turnTimeout must be positive: " + timeout);
            }
            this.turnTimeout = timeout;
            return this;
        }

        /**
         * How the prompts' tool callbacks become codex tools: the exception processor and context entries (default:
         * {@link SpringAiTools#converter()}).
         *
         * @param converter the converter
         * @return this builder
         */
        public Builder toolConverter(SpringAiTools.Converter converter) {
            this.converter = Objects.requireNonNull(converter, "converter");
            return this;
        }

        /**
         * The options every prompt starts from ({@link #getOptions()}): default tool callbacks and tool context, the
         * model, effort, sandbox and working directory of each turn. Options of another model are read as
         * {@link CodexChatOptions#from(ChatOptions)} does.
         *
         * @param options the options
         * @return this builder
         */
        public Builder defaultOptions(ChatOptions options) {
            this.defaultOptions = CodexChatOptions.from(Objects.requireNonNull(options, "options"));
            return this;
        }

        /**
         * Where each call's and stream's chat-model observation goes (default: none, {@code ObservationRegistry.NOOP});
         * Spring Boot's is the application's.
         *
         * @param registry the registry
         * @return this builder
         */
        public Builder observationRegistry(ObservationRegistry registry) {
            this.observations = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * The convention of the observations' names and key values (default: Spring AI's
         * {@link DefaultChatModelObservationConvention}).
         *
         * @param convention the convention
         * @return this builder
         */
        public Builder observationConvention(ChatModelObservationConvention convention) {
            this.convention = Objects.requireNonNull(convention, "convention");
            return this;
        }

        /**
         * The mapper that reads an output schema (default: a plain {@link ObjectMapper}).
         *
         * @param mapper the mapper
         * @return this builder
         */
        public Builder objectMapper(ObjectMapper mapper) {
            this.json = Objects.requireNonNull(mapper, "mapper");
            return this;
        }

        /** {@return the model} */
        public CodexChatModel build() {
            return new CodexChatModel(this);
        }
    }

    /** {@return a copy of the options every prompt starts from: {@link CodexChatOptions}} */
    @Override
    public ChatOptions getOptions() {
        return defaultOptions.mutate().build();
    }

    @Override
    public ChatResponse call(Prompt prompt) {
        CodexChatOptions options = optionsOf(prompt);
        ChatModelObservationContext context = ChatModelObservationContext.builder().prompt(prompt).provider(PROVIDER)
                .build();
        return ChatModelObservationDocumentation.CHAT_MODEL_OPERATION
                .observation(convention, DEFAULT_CONVENTION, () -> context, observations)
                .observe(() -> {
                    TurnResult result = conversations.call(turn(prompt, options), turnTimeout);
                    ChatResponse response = Responses.of(result, result.finalText(), modelOf(options));
                    context.setResponse(response);
                    return response;
                });
    }

    @Override
    public Flux<ChatResponse> stream(Prompt prompt) {
        return Flux.defer(() -> {
            CodexChatOptions options = optionsOf(prompt);
            ChatModelObservationContext context = ChatModelObservationContext.builder().prompt(prompt)
                    .provider(PROVIDER).streaming(true).build();
            Observation observation = ChatModelObservationDocumentation.CHAT_MODEL_OPERATION
                    .observation(convention, DEFAULT_CONVENTION, () -> context, observations);
            observation.start();
            String model = modelOf(options);
            // Bounded: the answer's publisher asks codex's turn publisher for what Reactor asks for.
            return JdkFlowAdapter.flowPublisherToFlux(conversations.stream(turn(prompt, options)))
                    .map(part -> {
                        if (part instanceof AnswerPart.Text text) {
                            return Responses.delta(text.threadId(), text.turnId(), text.text());
                        }
                        ChatResponse end = Responses.of(((AnswerPart.End) part).result(), "", model);
                        context.setResponse(end);
                        return end;
                    })
                    // Stopped before the end reaches the subscriber (doFinally would run after it), so that a caller
                    // that has seen the stream end finds its observation recorded; a cancel stops it too.
                    .doOnError(observation::error)
                    .doOnTerminate(observation::stop)
                    .doOnCancel(observation::stop);
        });
    }

    /** The prompt's options over the model's defaults. */
    private CodexChatOptions optionsOf(Prompt prompt) {
        ChatOptions given = prompt.getOptions();
        if (given instanceof CodexChatOptions codex) {
            return codex;
        }
        CodexChatOptions.Builder merged = defaultOptions.mutate();
        if (given != null) {
            CodexChatOptions from = CodexChatOptions.from(given);
            merged.combineWith(from.mutate());
        }
        return merged.build();
    }

    /** The runner's view of the prompt: its history, conversation, tools and the turn's settings. */
    private ConversationTurn turn(Prompt prompt, CodexChatOptions options) {
        Map<String, Object> context = new LinkedHashMap<>(options.getToolContext());
        List<ToolCallback> callbacks = options.getToolCallbacks();
        // The conversation is the options'; a tool context entry, as an earlier version read it, still counts.
        String conversation = options.getConversationId() != null ? options.getConversationId()
                : context.containsKey(ChatMemory.CONVERSATION_ID)
                ? String.valueOf(context.get(ChatMemory.CONVERSATION_ID)) : null;
        ConversationTools own = conversation == null ? new ConversationTools()
                : conversations.attachment(conversation, ConversationTools.class, ConversationTools::new);
        JsonNode schema = schemaOf(options.getOutputSchema());
        return ConversationTurn.builder(PromptInput.of(prompt.getInstructions()))
                .conversationId(conversation)
                .threadParams(threadParams)
                .tools(() -> toolsOf(own, callbacks))
                .turnParams(params -> {
                    // Turns of a conversation run one at a time: the tools change only between them.
                    update(own, callbacks, context, conversation);
                    settings(params, options, schema);
                })
                .build();
    }

    private static void settings(TurnStartParams.Builder params, CodexChatOptions options, JsonNode schema) {
        if (options.getModel() != null && !options.getModel().isBlank()) {
            params.model(options.getModel());
        }
        if (options.getEffort() != null) {
            params.effort(options.getEffort());
        }
        if (options.getSandbox() != null) {
            params.sandboxPolicy(options.getSandbox());
        }
        if (options.getCwd() != null) {
            params.cwd(options.getCwd());
        }
        if (schema != null) {
            params.outputSchema(schema);
        }
    }

    private JsonNode schemaOf(String schema) {
        if (schema == null || schema.isBlank()) {
            return null;
        }
        try {
            return json.readTree(schema);
        } catch (Exception e) {
            throw new IllegalArgumentException("the output schema is not JSON: " + e.getMessage(), e);
        }
    }

    /** The codex tools of a conversation's callbacks, answering through the conversation's latest callbacks. */
    private List<DynamicTool> toolsOf(ConversationTools own, List<ToolCallback> callbacks) {
        List<DynamicTool> declared = new ArrayList<>();
        for (ToolCallback c : callbacks) {
            String name = c.getToolDefinition().name();
            own.callbacks.putIfAbsent(name, c);
            own.declared.add(name);
            declared.add(ToolCallbackInvoker.tool(c.getToolDefinition(), converter.exceptionProcessor(),
                    call -> own.binding(name)));
        }
        return declared;
    }

    /**
     * Makes {@code callbacks} and {@code context} the ones the conversation's tools answer with; warns once of a tool
     * the conversation's thread was not started with.
     */
    private void update(ConversationTools own, List<ToolCallback> callbacks, Map<String, Object> context,
                        String conversation) {
        Map<String, Object> entries = new LinkedHashMap<>(converter.toolContext());
        entries.putAll(context);
        entries.remove(ChatMemory.CONVERSATION_ID);
        own.context = Map.copyOf(entries);
        for (ToolCallback c : callbacks) {
            String name = c.getToolDefinition().name();
            own.callbacks.put(name, c);
            if (conversation != null && !own.declared.contains(name) && own.warned.add(name)) {
                LOG.warn("Tool {} is not offered to codex on conversation {}: codex fixes a thread's tools when the "
                        + "thread starts", name, conversation);
            }
        }
    }

    private String modelOf(CodexChatOptions options) {
        return options.getModel() != null ? options.getModel() : threadParams.model();
    }

    /** Stops following the client's notifications. The client and its threads are untouched. */
    @Override
    public void close() {
        conversations.close();
    }
}

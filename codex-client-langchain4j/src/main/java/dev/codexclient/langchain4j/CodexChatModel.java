package dev.codexclient.langchain4j;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexConversations;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.DynamicTool;
import dev.codexclient.Subscription;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TokenUsageBreakdown;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.protocol.TurnStatus;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.ModelProvider;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.DefaultChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Codex as a LangChain4j {@link ChatModel} and {@link StreamingChatModel}: each request runs a codex turn, which may run
 * commands, edit files and call tools before it answers; streamed, the answer comes as codex writes it.
 *
 * <pre>{@code
 * CodexChatModel codexModel = CodexChatModel.builder(codex).tools(new TicketTools()).build();
 * Assistant assistant = AiServices.builder(Assistant.class)
 *         .streamingChatModel(codexModel)
 *         .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
 *         .chatRequestTransformer(codexModel.memoryIdTransformer())
 *         .build();
 * TokenStream answer = assistant.chat("ticket-42", "Why does the build fail?");  // chat(@MemoryId String, @UserMessage String)
 * }</pre>
 *
 * <p><b>A memory id is a codex thread.</b> A request whose parameters carry a memory id ({@link #memoryIdTransformer()}
 * puts the AiServices call's {@code @MemoryId} there) runs on that conversation's thread: codex keeps the history, the
 * model keeps only which thread is the conversation's, in a {@link CodexConversations.Store} (in memory unless you
 * give one that outlives the process; a later process resumes the thread). The chat memory may still replay the
 * history: only what follows the last AI message is sent. A request without a memory id runs on a thread of its own,
 * which codex does not keep (ephemeral). Turns of one conversation run one after another.
 *
 * <p><b>Tools</b> are the model's own ({@link Builder#tools}, {@link Builder#toolProvider}): codex runs them itself,
 * during its turn, as the conversation thread's dynamic tools; the client needs {@code experimentalApi(true)}. Tools
 * given to AiServices instead reach the model as specifications without executors: they are not offered to codex (a
 * warning says so once).
 *
 * <p><b>What codex did</b> is in the response's {@link CodexChatResponseMetadata}. Approvals are decided by the
 * client's approval policy, as for any turn. A failed turn throws (or reports to the handler) its
 * {@link dev.codexclient.errors.CodexTurnFailedException}.
 */
public final class CodexChatModel implements ChatModel, StreamingChatModel, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CodexChatModel.class);

    private final CodexClient client;
    private final CodexConversations conversations;
    private final ThreadStartParams threadParams;
    private final Duration turnTimeout;
    private final Map<ToolSpecification, ToolExecutor> tools;
    private final ToolProvider toolProvider;
    private final AtomicBoolean warnedOfServiceTools = new AtomicBoolean();

    private CodexChatModel(Builder b) {
        this.client = b.client;
        this.conversations = CodexConversations.builder(b.client).store(b.store).build();
        this.threadParams = b.threadParams;
        this.turnTimeout = b.turnTimeout;
        this.tools = Map.copyOf(b.tools);
        this.toolProvider = b.toolProvider;
    }

    /**
     * {@return a builder of a model running its turns on {@code client}}
     *
     * @param client the client; its approval policy decides the turns' approvals
     */
    public static Builder builder(CodexClient client) {
        return new Builder(client);
    }

    /** Settings of a {@link CodexChatModel}. */
    public static final class Builder {
        private final CodexClient client;
        private ThreadStartParams threadParams = ThreadStartParams.builder().build();
        private CodexConversations.Store store = CodexConversations.Store.inMemory();
        private Duration turnTimeout = Duration.ofMinutes(10);
        private final Map<ToolSpecification, ToolExecutor> tools = new LinkedHashMap<>();
        private ToolProvider toolProvider;

        private Builder(CodexClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /**
         * The params of the threads the model starts (working directory, sandbox, approval policy, model, ...);
         * default: the server's defaults. A request's system messages become a new thread's developer instructions.
         *
         * @param params the params
         * @return this builder
         */
        public Builder threadParams(ThreadStartParams params) {
            this.threadParams = Objects.requireNonNull(params, "params");
            return this;
        }

        /**
         * Where each conversation's thread id is kept, by memory id as text (default: in memory).
         *
         * @param store the store
         * @return this builder
         */
        public Builder conversationStore(CodexConversations.Store store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * How long a blocking {@link #chat(ChatRequest)} waits for a turn (default 10 minutes); then it interrupts the
         * turn and throws {@link CodexTimeoutException}.
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
         * Tools codex may call in every conversation: the {@code @Tool} methods of these objects.
         *
         * @param toolObjects objects with {@code @Tool} methods
         * @return this builder
         */
        public Builder tools(Object... toolObjects) {
            this.tools.putAll(LangChain4jTools.executorsOf(toolObjects));
            return this;
        }

        /**
         * Tools codex may call in every conversation, each run by its executor.
         *
         * @param tools the specifications and their executors
         * @return this builder
         */
        public Builder tools(Map<ToolSpecification, ToolExecutor> tools) {
            this.tools.putAll(tools);
            return this;
        }

        /**
         * A provider of each conversation's further tools, asked when the conversation's thread starts or is resumed
         * (with the memory id and the user message), since codex declares a thread's tools then.
         *
         * @param provider the provider, e.g. LangChain4j's MCP tool provider
         * @return this builder
         */
        public Builder toolProvider(ToolProvider provider) {
            this.toolProvider = Objects.requireNonNull(provider, "provider");
            return this;
        }

        /** {@return the model} */
        public CodexChatModel build() {
            return new CodexChatModel(this);
        }
    }

    /**
     * {@return the AiServices request transformer that hands each call's memory id to this model} Give it to
     * {@code AiServices.builder(...).chatRequestTransformer(...)}.
     */
    public BiFunction<ChatRequest, Object, ChatRequest> memoryIdTransformer() {
        return (request, memoryId) -> {
            if (memoryId == null) {
                return request;
            }
            ChatRequestParameters parameters = request.parameters() == null ? DefaultChatRequestParameters.EMPTY
                    : request.parameters();
            return request.toBuilder().parameters(CodexChatRequestParameters.codexBuilder().overrideWith(parameters)
                    .memoryId(memoryId).build()).build();
        };
    }

    @Override
    public ChatRequestParameters defaultRequestParameters() {
        return DefaultChatRequestParameters.EMPTY;
    }

    @Override
    public List<ChatModelListener> listeners() {
        return List.of();
    }

    @Override
    public ModelProvider provider() {
        return ModelProvider.OTHER;
    }

    @Override
    public Set<Capability> supportedCapabilities() {
        return Set.of();
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        CodexTurn turn = await(start(request));
        TurnResult result;
        try {
            result = turn.await(turnTimeout);
        } catch (CodexTimeoutException e) {
            // Interrupted, so the conversation's next request does not wait for a turn nobody reads.
            turn.interruptAsync();
            throw e;
        }
        return response(result.orThrow(), result.finalText(), request.modelName());
    }

    @Override
    public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
        CompletableFuture<CodexTurn> started;
        try {
            started = start(request);
        } catch (RuntimeException e) {
            handler.onError(e);
            return;
        }
        started.whenComplete((turn, error) -> {
            if (error != null) {
                handler.onError(unwrap(error));
                return;
            }
            // A listener added after the first deltas still gets them: a turn replays what it has seen.
            Subscription deltas = turn.onAgentMessageDelta(d -> handler.onPartialResponse(d.delta()));
            turn.result().whenComplete((result, failure) -> {
                deltas.close();
                if (failure != null) {
                    handler.onError(unwrap(failure));
                    return;
                }
                try {
                    handler.onCompleteResponse(response(result.orThrow(), result.finalText(), request.modelName()));
                } catch (RuntimeException failed) {
                    handler.onError(failed);
                }
            });
        });
    }

    /** Starts the request's turn on its conversation's thread, or on an ephemeral thread without a memory id. */
    private CompletableFuture<CodexTurn> start(ChatRequest request) {
        Object memoryId = request.parameters() instanceof CodexChatRequestParameters p ? p.memoryId().orElse(null)
                : null;
        List<ToolSpecification> serviceTools = request.toolSpecifications();
        if (serviceTools != null && !serviceTools.isEmpty() && warnedOfServiceTools.compareAndSet(false, true)) {
            LOG.warn("Tools given to AiServices ({}) are not offered to codex, which runs a conversation's tools "
                    + "itself: give them to CodexChatModel.builder().tools(...)", serviceTools.stream()
                    .map(ToolSpecification::name).toList());
        }
        ThreadStartParams.Builder newThread = threadParams.toBuilder();
        MessageInput.instructions(request.messages()).ifPresent(newThread::developerInstructions);
        String model = request.modelName();
        if (memoryId == null) {
            return client.startThreadAsync(newThread.ephemeral(true).build(), toolsFor(null, request))
                    .thenCompose(thread -> thread.startTurnAsync(turnParams(thread, request, true, model)));
        }
        return conversations.startTurn(memoryId.toString(), newThread.build(), () -> toolsFor(memoryId, request),
                opened -> turnParams(opened.thread(), request, opened.started(), model));
    }

    private List<DynamicTool> toolsFor(Object memoryId, ChatRequest request) {
        Map<ToolSpecification, ToolExecutor> all = new LinkedHashMap<>(tools);
        if (toolProvider != null) {
            UserMessage last = null;
            for (var m : request.messages()) {
                if (m instanceof UserMessage u) {
                    last = u;
                }
            }
            all.putAll(toolProvider.provideTools(new ToolProviderRequest(memoryId, last)).tools());
        }
        List<DynamicTool> declared = new ArrayList<>(all.size());
        all.forEach((specification, executor) -> {
            ToolInvoker.Binding binding = new ToolInvoker.Binding(executor, memoryId);
            declared.add(ToolInvoker.tool(specification, call -> binding));
        });
        return declared;
    }

    private static TurnStartParams turnParams(CodexThread thread, ChatRequest request, boolean newThread,
                                              String model) {
        TurnStartParams.Builder params = thread.turnParams().input(MessageInput.of(request.messages(), newThread));
        if (model != null && !model.isBlank()) {
            params.model(model);
        }
        return params.build();
    }

    private ChatResponse response(TurnResult result, String text, String model) {
        String turnId = result.turnId().orElse("");
        CodexChatResponseMetadata.Builder metadata = CodexChatResponseMetadata.codexBuilder()
                .threadId(result.threadId()).status(result.status()).items(result.items()).id(turnId)
                .modelName(model != null ? model : threadParams.model())
                .finishReason(result.status() == TurnStatus.COMPLETED ? FinishReason.STOP : FinishReason.OTHER);
        result.usage().ifPresent(u -> {
            TokenUsageBreakdown last = u.last();
            metadata.tokenUsage(new TokenUsage(Math.toIntExact(last.inputTokens()),
                    Math.toIntExact(last.outputTokens()), Math.toIntExact(last.totalTokens())));
        });
        return ChatResponse.builder().aiMessage(AiMessage.from(text)).metadata(metadata.build()).build();
    }

    private CodexTurn await(CompletableFuture<CodexTurn> started) {
        try {
            return started.get(turnTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            started.cancel(false);
            throw new CancellationException("interrupted while the turn was starting");
        } catch (TimeoutException e) {
            throw CodexTimeoutException.waitingFor("the start of a turn", turnTimeout);
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        }
    }

    private static RuntimeException unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof RuntimeException r ? r : new CompletionException(cause);
    }

    /** Stops following the client's notifications. The client and its threads are untouched. */
    @Override
    public void close() {
        conversations.close();
    }
}

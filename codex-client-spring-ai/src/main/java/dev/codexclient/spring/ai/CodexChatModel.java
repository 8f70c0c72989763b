package dev.codexclient.spring.ai;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexConversations;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.DynamicTool;
import dev.codexclient.Subscription;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

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
 * <p><b>Conversations are codex threads.</b> A prompt whose options carry a conversation id (the
 * {@link CodexConversationAdvisor} copies the advisors' {@link ChatMemory#CONVERSATION_ID} there) runs on that
 * conversation's thread: codex keeps the history, the model keeps only which thread is the conversation's, in a
 * {@link CodexConversations.Store} (in memory unless you give one that outlives the process; a later process resumes the
 * thread). A memory advisor may still replay the history: only what follows the last assistant message is sent. A
 * prompt without a conversation id runs on a thread of its own, which codex does not keep (ephemeral). Turns of one
 * conversation run one after another.
 *
 * <p><b>Tools.</b> The prompt's tool callbacks ({@code ChatClient}'s {@code tools(...)}, the default options') become
 * the thread's codex dynamic tools (see {@link SpringAiTools}); codex declares a thread's tools when the thread starts,
 * so a later prompt's callbacks replace the implementations of those tools (and their tool context) but cannot add
 * tools. The client needs {@code experimentalApi(true)} for tools.
 *
 * <p><b>What codex did</b> is in the response's metadata ({@link CodexMetadata}): commands, tool calls, file changes, all
 * items, the thread and turn; token usage is the response's usage. Approvals (commands, file changes) are decided by
 * the client's approval policy, as for any turn. A failed turn throws its
 * {@link dev.codexclient.errors.CodexTurnFailedException}; a cancelled stream interrupts the turn.
 */
public final class CodexChatModel implements ChatModel, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CodexChatModel.class);

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

    private final CodexClient client;
    private final CodexConversations conversations;
    private final ThreadStartParams threadParams;
    private final Duration turnTimeout;
    private final SpringAiTools.Converter converter;
    private final ToolCallingChatOptions defaultOptions;
    private final Map<String, ConversationTools> tools = new ConcurrentHashMap<>();

    private CodexChatModel(Builder b) {
        this.client = b.client;
        this.conversations = CodexConversations.builder(b.client).store(b.store).build();
        this.threadParams = b.threadParams;
        this.turnTimeout = b.turnTimeout;
        this.converter = b.converter;
        this.defaultOptions = b.defaultOptions;
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
        private SpringAiTools.Converter converter = SpringAiTools.converter();
        private ToolCallingChatOptions defaultOptions = ToolCallingChatOptions.builder().build();

        private Builder(CodexClient client) {
            this.client = Objects.requireNonNull(client, "client");
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
         * model of each turn.
         *
         * @param options the options
         * @return this builder
         */
        public Builder defaultOptions(ToolCallingChatOptions options) {
            this.defaultOptions = Objects.requireNonNull(options, "options");
            return this;
        }

        /** {@return the model} */
        public CodexChatModel build() {
            return new CodexChatModel(this);
        }
    }

    /** {@return a copy of the options every prompt starts from; tool-calling options, so a prompt's tools reach codex} */
    @Override
    public ChatOptions getOptions() {
        return defaultOptions.mutate().build();
    }

    @Override
    public ChatResponse call(Prompt prompt) {
        CodexTurn turn = await(start(prompt));
        TurnResult result;
        try {
            result = turn.await(turnTimeout);
        } catch (CodexTimeoutException e) {
            // Interrupted, so the conversation's next prompt does not wait for a turn nobody reads.
            turn.interruptAsync();
            throw e;
        }
        return Responses.of(result.orThrow(), result.finalText(), modelOf(prompt));
    }

    @Override
    public Flux<ChatResponse> stream(Prompt prompt) {
        return Flux.create(sink -> {
            AtomicReference<CodexTurn> running = new AtomicReference<>();
            sink.onCancel(() -> {
                CodexTurn t = running.get();
                if (t != null && !t.isDone()) {
                    t.interruptAsync();
                }
            });
            CompletableFuture<CodexTurn> started;
            try {
                started = start(prompt);
            } catch (RuntimeException e) {
                sink.error(e);
                return;
            }
            started.whenComplete((turn, error) -> {
                if (error != null) {
                    sink.error(unwrap(error));
                    return;
                }
                running.set(turn);
                if (sink.isCancelled()) {
                    turn.interruptAsync();
                    return;
                }
                relay(turn, sink, modelOf(prompt));
            });
        }, FluxSink.OverflowStrategy.BUFFER);
    }

    private static void relay(CodexTurn turn, FluxSink<ChatResponse> sink, String model) {
        // A listener added after the first deltas still gets them: a turn replays what it has seen.
        Subscription deltas = turn.onAgentMessageDelta(d -> sink.next(Responses.delta(turn.threadId(), turn.id(),
                d.delta())));
        turn.result().whenComplete((result, error) -> {
            deltas.close();
            if (error != null) {
                sink.error(unwrap(error));
            } else if (result.status() == dev.codexclient.protocol.TurnStatus.FAILED) {
                try {
                    result.orThrow();
                } catch (RuntimeException failed) {
                    sink.error(failed);
                }
            } else {
                sink.next(Responses.of(result, "", model));
                sink.complete();
            }
        });
    }

    /** Starts the prompt's turn on its conversation's thread, or on an ephemeral thread without a conversation. */
    private CompletableFuture<CodexTurn> start(Prompt prompt) {
        ToolCallingChatOptions options = prompt.getOptions() instanceof ToolCallingChatOptions t ? t : defaultOptions;
        // Spring AI's options hold null for what was never set.
        Map<String, Object> context = options.getToolContext() == null ? new LinkedHashMap<>()
                : new LinkedHashMap<>(options.getToolContext());
        List<ToolCallback> callbacks = options.getToolCallbacks() == null ? List.of() : options.getToolCallbacks();
        Object conversation = context.get(ChatMemory.CONVERSATION_ID);
        ThreadStartParams.Builder newThread = threadParams.toBuilder();
        PromptInput.instructions(prompt.getInstructions()).ifPresent(newThread::developerInstructions);
        String model = options.getModel();
        if (conversation == null) {
            ConversationTools own = new ConversationTools();
            List<DynamicTool> declared = update(own, callbacks, context, null);
            return client.startThreadAsync(newThread.ephemeral(true).build(), declared)
                    .thenCompose(thread -> thread.startTurnAsync(turnParams(thread, prompt, true, model)));
        }
        String id = conversation.toString();
        ConversationTools own = tools.computeIfAbsent(id, k -> new ConversationTools());
        return conversations.startTurn(id, newThread.build(), () -> toolsOf(own, callbacks), opened -> {
            // Turns of a conversation run one at a time: the tools change only between them.
            update(own, callbacks, context, opened.started() ? null : id);
            return turnParams(opened.thread(), prompt, opened.started(), model);
        });
    }

    private static TurnStartParams turnParams(CodexThread thread, Prompt prompt, boolean newThread, String model) {
        TurnStartParams.Builder params = thread.turnParams().input(PromptInput.of(prompt.getInstructions(), newThread));
        if (model != null && !model.isBlank()) {
            params.model(model);
        }
        return params.build();
    }

    /** The codex tools of a conversation's callbacks, answering through the conversation's latest callbacks. */
    private List<DynamicTool> toolsOf(ConversationTools own, List<ToolCallback> callbacks) {
        List<DynamicTool> declared = new ArrayList<>();
        for (ToolCallback c : callbacks) {
            String name = c.getToolDefinition().name();
            declared.add(ToolCallbackInvoker.tool(c.getToolDefinition(), converter.exceptionProcessor(),
                    call -> own.binding(name)));
        }
        return declared;
    }

    /**
     * Makes {@code callbacks} and {@code context} the ones the conversation's tools answer with; for a conversation
     * whose thread exists ({@code conversation} not null), warns once of a tool the thread was not started with.
     */
    private List<DynamicTool> update(ConversationTools own, List<ToolCallback> callbacks, Map<String, Object> context,
                                     String conversation) {
        Map<String, Object> entries = new LinkedHashMap<>(converter.toolContext());
        entries.putAll(context);
        own.context = Map.copyOf(entries);
        for (ToolCallback c : callbacks) {
            String name = c.getToolDefinition().name();
            own.callbacks.put(name, c);
            if (conversation == null) {
                own.declared.add(name);
            } else if (!own.declared.isEmpty() && !own.declared.contains(name) && own.warned.add(name)) {
                LOG.warn("Tool {} is not offered to codex on conversation {}: codex fixes a thread's tools when the "
                        + "thread starts", name, conversation);
            }
        }
        return toolsOf(own, callbacks);
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

    private String modelOf(Prompt prompt) {
        ChatOptions options = prompt.getOptions();
        String model = options == null ? null : options.getModel();
        return model != null ? model : threadParams.model();
    }

    /** Stops following the client's notifications. The client and its threads are untouched. */
    @Override
    public void close() {
        conversations.close();
    }
}

package dev.codexclient.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.DynamicTool;
import dev.codexclient.TurnResult;
import dev.codexclient.conversation.CodexConversations;
import dev.codexclient.conversation.ConversationTurn;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStatus;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.internal.JsonSchemaElementUtils;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.DefaultChatRequestParameters;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.request.ResponseFormatType;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProviderRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the blocking and the streaming model share: the LangChain4j request as the turn runner's
 * {@link ConversationTurn} (its memory id, history, tools, model and JSON schema) and the turn's result as a
 * LangChain4j response. One job: that translation; the running is core's {@link CodexConversations}.
 */
final class CodexTurns implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CodexTurns.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    final CodexConversations conversations;
    final Duration turnTimeout;
    final List<ChatModelListener> listeners;
    private final ThreadStartParams threadParams;
    private final Map<ToolSpecification, ToolExecutor> tools;
    private final dev.langchain4j.service.tool.ToolProvider toolProvider;
    private final AtomicBoolean warnedOfServiceTools = new AtomicBoolean();

    CodexTurns(CodexModelBuilder<?> b) {
        this.conversations = CodexConversations.builder(b.codex).store(b.store).maxConversations(b.maxConversations)
                .build();
        this.turnTimeout = b.turnTimeout;
        this.listeners = List.copyOf(b.listeners);
        this.threadParams = b.threadParams;
        this.tools = Map.copyOf(b.tools);
        this.toolProvider = b.toolProvider;
    }

    static Set<Capability> capabilities() {
        return Set.of(Capability.RESPONSE_FORMAT_JSON_SCHEMA);
    }

    static BiFunction<ChatRequest, Object, ChatRequest> memoryIdTransformer() {
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

    ConversationTurn turn(ChatRequest request) {
        Object memoryId = request.parameters() instanceof CodexChatRequestParameters p ? p.memoryId().orElse(null)
                : null;
        List<ToolSpecification> serviceTools = request.toolSpecifications();
        if (serviceTools != null && !serviceTools.isEmpty() && warnedOfServiceTools.compareAndSet(false, true)) {
            LOG.warn("Tools given to AiServices ({}) are not offered to codex, which runs a conversation's tools "
                    + "itself: give them to the Codex model's builder, tools(...)", serviceTools.stream()
                    .map(ToolSpecification::name).toList());
        }
        String model = request.modelName();
        JsonNode schema = schemaOf(request.responseFormat());
        return ConversationTurn.builder(MessageInput.of(request.messages()))
                .conversationId(memoryId == null ? null : memoryId.toString())
                .threadParams(threadParams)
                .tools(() -> toolsFor(memoryId, request))
                .turnParams(params -> {
                    if (model != null && !model.isBlank()) {
                        params.model(model);
                    }
                    if (schema != null) {
                        params.outputSchema(schema);
                    }
                })
                .build();
    }

    /** A JSON response format with a schema is codex's native structured output: the turn's {@code outputSchema}. */
    private static JsonNode schemaOf(ResponseFormat format) {
        if (format == null || format.type() != ResponseFormatType.JSON || format.jsonSchema() == null
                || format.jsonSchema().rootElement() == null) {
            return null;
        }
        // Strict, as OpenAI's structured outputs want it: every property required, no others allowed.
        return JSON.valueToTree(JsonSchemaElementUtils.toMap(format.jsonSchema().rootElement(), true));
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

    ChatResponse response(TurnResult result, String text, String model) {
        String turnId = result.turnId().orElse("");
        CodexChatResponseMetadata.Builder metadata = CodexChatResponseMetadata.codexBuilder()
                .threadId(result.threadId()).status(result.status()).items(result.items()).id(turnId)
                .modelName(model != null ? model : threadParams.model())
                .finishReason(result.status() == TurnStatus.COMPLETED ? FinishReason.STOP : FinishReason.OTHER);
        // The turn's tokens, every model call of it, as core counts them.
        result.tokens().ifPresent(t -> metadata.tokenUsage(new TokenUsage(saturated(t.inputTokens()),
                saturated(t.outputTokens()), saturated(t.totalTokens()))));
        return ChatResponse.builder().aiMessage(AiMessage.from(text)).metadata(metadata.build()).build();
    }

    private static int saturated(long n) {
        return (int) Math.min(Integer.MAX_VALUE, n);
    }

    @Override
    public void close() {
        conversations.close();
    }
}

package dev.codexclient.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.CodexClient;
import dev.codexclient.DynamicTool;
import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.ClientReply;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The mapping between LangChain4j's types and codex's, on the testkit's fake. */
@ExtendWith(CodexTestExtension.class)
class LangChain4jBridgeTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final ToolSpecification LOOKUP = ToolSpecification.builder().name("lookup_ticket")
            .description("Look up a ticket").parameters(JsonObjectSchema.builder().addStringProperty("id")
                    .required("id").build()).build();

    private static CodexClient client(FakeCodexAppServer fake) {
        return CodexClient.builder().transport(fake.connectInMemory()).experimentalApi(true)
                .requestTimeout(Duration.ofSeconds(10)).build();
    }

    private static String text(ClientReply reply) {
        return reply.result().path("contentItems").get(0).path("text").asText();
    }

    @Test
    void aSpecificationAndItsExecutorAreACodexToolAndAnErrorResultIsAFailedCall(FakeCodexAppServer fake)
            throws Exception {
        AtomicReference<String> arguments = new AtomicReference<>();
        AtomicReference<InvocationContext> context = new AtomicReference<>();
        ToolExecutor executor = new ToolExecutor() {
            @Override
            public String execute(dev.langchain4j.agent.tool.ToolExecutionRequest request, Object memoryId) {
                throw new UnsupportedOperationException();
            }

            @Override
            public ToolExecutionResult executeWithContext(dev.langchain4j.agent.tool.ToolExecutionRequest request,
                                                          InvocationContext invocation) {
                arguments.set(request.arguments());
                context.set(invocation);
                String id = request.arguments().contains("T-404") ? null : "found";
                return id == null ? ToolExecutionResult.builder().isError(true).resultText("no ticket T-404").build()
                        : ToolExecutionResult.builder().resultText("ticket is OPEN").build();
            }
        };
        try (CodexClient client = client(fake)) {
            String threadId = client.startThread(ThreadStartParams.builder().build(),
                    LangChain4jTools.from(Map.of(LOOKUP, executor))).id();
            JsonNode spec = fake.takeRequest("thread/start", WAIT).params().path("dynamicTools").get(0);
            assertThat(spec.path("name").asText()).isEqualTo("lookup_ticket");
            assertThat(spec.path("description").asText()).isEqualTo("Look up a ticket");
            assertThat(spec.path("inputSchema").path("properties").path("id").path("type").asText())
                    .isEqualTo("string");
            assertThat(spec.path("inputSchema").path("required").toString()).contains("id");

            ClientReply ok = fake.requestToolCall(threadId, "turn-1", "lookup_ticket", Map.of("id", "T-1"))
                    .awaitResponse(WAIT);
            assertThat(ok.result().path("success").asBoolean()).isTrue();
            assertThat(text(ok)).isEqualTo("ticket is OPEN");
            assertThat(new ObjectMapper().readTree(arguments.get()).path("id").asText()).isEqualTo("T-1");
            assertThat(context.get().chatMemoryId()).isEqualTo(threadId);
            assertThat(CodexToolContext.threadId(context.get().invocationParameters())).contains(threadId);
            assertThat(CodexToolContext.turnId(context.get().invocationParameters())).contains("turn-1");

            ClientReply failed = fake.requestToolCall(threadId, "turn-1", "lookup_ticket", Map.of("id", "T-404"))
                    .awaitResponse(WAIT);
            assertThat(failed.result().path("success").asBoolean(true)).isFalse();
            assertThat(text(failed)).isEqualTo("no ticket T-404");
        }
    }

    @Test
    void aMemoryIdKeepsOneThreadAndOnlyTheNewMessageIsSent(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("noted").tokenUsage(50, 5).completed());
        try (CodexClient client = client(fake); CodexChatModel model = CodexChatModel.builder(client).build()) {
            ChatRequest first = ChatRequest.builder().messages(SystemMessage.from("Be brief."),
                    UserMessage.from("my name is Ada")).build();
            ChatResponse answer = model.chat(model.memoryIdTransformer().apply(first, 7));
            ChatRequest second = ChatRequest.builder().messages(SystemMessage.from("Be brief."),
                    UserMessage.from("my name is Ada"), AiMessage.from("noted"), UserMessage.from("who am I?")).build();
            model.chat(model.memoryIdTransformer().apply(second, 7));

            assertThat(answer.aiMessage().text()).isEqualTo("noted");
            assertThat(answer.tokenUsage().inputTokenCount()).isEqualTo(50);
            assertThat(answer.metadata()).isInstanceOfSatisfying(CodexChatResponseMetadata.class, m ->
                    assertThat(m.threadId()).isEqualTo(fake.threadIds().get(0)));
            assertThat(fake.threadIds()).hasSize(1);
            JsonNode start = fake.takeRequest("thread/start", WAIT).params();
            assertThat(start.path("developerInstructions").asText()).isEqualTo("Be brief.");
            assertThat(start.path("ephemeral").asBoolean(false)).isFalse();
            fake.takeRequest("turn/start", WAIT);
            List<String> texts = new ArrayList<>();
            fake.takeRequest("turn/start", WAIT).params().path("input").forEach(i -> texts.add(i.path("text").asText()));
            assertThat(texts).containsExactly("who am I?");

            // Without a memory id: a thread of its own, which codex does not keep.
            model.chat(ChatRequest.builder().messages(UserMessage.from("hello")).build());
            assertThat(fake.takeRequest("thread/start", WAIT).params().path("ephemeral").asBoolean()).isTrue();
            assertThat(fake.threadIds()).hasSize(2);
        }
    }

    @Test
    void aFailedTurnThrows(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.failed("upstream returned 502"));
        try (CodexClient client = client(fake); CodexChatModel model = CodexChatModel.builder(client).build()) {
            assertThatThrownBy(() -> model.chat(ChatRequest.builder().messages(UserMessage.from("go")).build()))
                    .isInstanceOf(CodexTurnFailedException.class).hasMessageContaining("upstream returned 502");
            assertThatThrownBy(() -> model.chat(ChatRequest.builder().messages(AiMessage.from("alone")).build()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no user message");
        }
    }

    @Test
    void aToolProviderIsAskedWhenTheConversationsThreadStartsWithItsMemoryIdAndMessage(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("ok").completed());
        List<ToolProviderRequest> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicReference<Object> memoryOfCall = new AtomicReference<>();
        ToolProvider provider = request -> {
            asked.add(request);
            ToolExecutor executor = (call, memoryId) -> {
                memoryOfCall.set(memoryId);
                return "provided for " + memoryId;
            };
            return ToolProviderResult.builder().add(LOOKUP, executor).build();
        };
        try (CodexClient client = client(fake);
             CodexChatModel model = CodexChatModel.builder(client).toolProvider(provider).build()) {
            model.chat(model.memoryIdTransformer().apply(ChatRequest.builder()
                    .messages(UserMessage.from("find T-1")).build(), "m-1"));
            assertThat(asked).singleElement().satisfies(r -> {
                assertThat(r.chatMemoryId()).isEqualTo("m-1");
                assertThat(r.userMessage().singleText()).isEqualTo("find T-1");
            });
            assertThat(fake.takeRequest("thread/start", WAIT).params().path("dynamicTools").get(0).path("name")
                    .asText()).isEqualTo("lookup_ticket");
            String threadId = fake.threadIds().get(0);
            ClientReply reply = fake.requestToolCall(threadId, "t", "lookup_ticket", Map.of("id", "T-1"))
                    .awaitResponse(WAIT);
            assertThat(text(reply)).isEqualTo("provided for m-1");
            assertThat(memoryOfCall.get()).isEqualTo("m-1");
            // The thread has its tools: the provider is not asked again for the conversation's next message.
            model.chat(model.memoryIdTransformer().apply(ChatRequest.builder()
                    .messages(UserMessage.from("find T-1"), AiMessage.from("ok"), UserMessage.from("and T-2")).build(),
                    "m-1"));
            assertThat(asked).hasSize(1);
        }
        List<DynamicTool> direct = LangChain4jTools.from(provider, new ToolProviderRequest("m-2", UserMessage.from("x")));
        assertThat(direct).extracting(DynamicTool::name).containsExactly("lookup_ticket");
    }
}

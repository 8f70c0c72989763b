package dev.codexclient.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.CodexClient;
import dev.codexclient.DynamicTool;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.ClientReply;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor;
import org.springframework.ai.tool.execution.ToolExecutionException;

/** How Spring AI tools become codex tools, on the testkit's fake: what is declared, what a call runs and answers. */
@ExtendWith(CodexTestExtension.class)
class SpringAiToolsTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},"
            + "\"required\":[\"id\"]}";

    /** A callback recording what it was called with; it throws what {@code failure} holds, if anything. */
    static class Recording implements ToolCallback {
        final AtomicReference<String> input = new AtomicReference<>();
        final AtomicReference<ToolContext> context = new AtomicReference<>();
        final AtomicReference<RuntimeException> failure = new AtomicReference<>();
        final String result;

        Recording(String result) {
            this.result = result;
        }

        @Override
        public ToolDefinition getToolDefinition() {
            return ToolDefinition.builder().name("lookup_ticket").description("Look up a ticket").inputSchema(SCHEMA)
                    .build();
        }

        @Override
        public String call(String toolInput) {
            return call(toolInput, null);
        }

        @Override
        public String call(String toolInput, ToolContext toolContext) {
            input.set(toolInput);
            context.set(toolContext);
            if (failure.get() != null) {
                throw failure.get();
            }
            return result;
        }
    }

    private static CodexClient client(FakeCodexAppServer fake) {
        return CodexClient.builder().transport(fake.connectInMemory()).experimentalApi(true)
                .requestTimeout(Duration.ofSeconds(10)).build();
    }

    private static String text(ClientReply reply) {
        return reply.result().path("contentItems").get(0).path("text").asText();
    }

    @Test
    void nameDescriptionAndSchemaAreDeclaredAndACallGetsItsArgumentsAndContext(FakeCodexAppServer fake)
            throws Exception {
        Recording callback = new Recording("\"OPEN\"");
        List<DynamicTool> tools = SpringAiTools.converter().toolContext(Map.of("tenant", "acme"))
                .from(List.of(callback));
        try (CodexClient client = client(fake)) {
            String threadId = client.startThread(ThreadStartParams.builder().build(), tools).id();
            JsonNode spec = fake.takeRequest("thread/start", WAIT).params().path("dynamicTools").get(0);
            assertThat(spec.path("name").asText()).isEqualTo("lookup_ticket");
            assertThat(spec.path("description").asText()).isEqualTo("Look up a ticket");
            assertThat(spec.path("inputSchema")).isEqualTo(new ObjectMapper().readTree(SCHEMA));

            ClientReply reply = fake.requestToolCall(threadId, "turn-1", "lookup_ticket", Map.of("id", "T-1"))
                    .awaitResponse(WAIT);
            assertThat(reply.result().path("success").asBoolean()).isTrue();
            assertThat(text(reply)).isEqualTo("\"OPEN\"");
            assertThat(new ObjectMapper().readTree(callback.input.get())).isEqualTo(
                    new ObjectMapper().readTree("{\"id\":\"T-1\"}"));
            ToolContext context = callback.context.get();
            assertThat(CodexToolContext.threadId(context)).contains(threadId);
            assertThat(CodexToolContext.turnId(context)).contains("turn-1");
            assertThat(CodexToolContext.callId(context)).hasValueSatisfying(id -> assertThat(id).isNotBlank());
            assertThat(context.getContext()).containsEntry("tenant", "acme");

            // A call without arguments hands the callback an empty object, as Spring AI does.
            fake.sendRequest("item/tool/call", Map.of("callId", "c2", "threadId", threadId, "turnId", "turn-1",
                    "tool", "lookup_ticket")).awaitResponse(WAIT);
            assertThat(callback.input.get()).isEqualTo("{}");
        }
    }

    @Test
    void aToolExecutionExceptionIsAFailedCallWithTheProcessorsText(FakeCodexAppServer fake) {
        Recording callback = new Recording("unused");
        ToolDefinition definition = callback.getToolDefinition();
        try (CodexClient client = client(fake)) {
            List<DynamicTool> tools = SpringAiTools.converter()
                    .exceptionProcessor(e -> "processed: " + e.getCause().getMessage()).from(List.of(callback));
            String threadId = client.startThread(ThreadStartParams.builder().build(), tools).id();
            callback.failure.set(new ToolExecutionException(definition, new IllegalStateException("locked")));
            ClientReply processed = fake.requestToolCall(threadId, "t", "lookup_ticket", Map.of("id", "T-1"))
                    .awaitResponse(WAIT);
            assertThat(processed.isError()).isFalse();
            assertThat(processed.result().path("success").asBoolean(true)).isFalse();
            assertThat(text(processed)).isEqualTo("processed: locked");

            // The default processor gives the exception's message, as Spring AI tells its models.
            String second = client.startThread(ThreadStartParams.builder().build(), List.of(SpringAiTools.from(callback))).id();
            ClientReply byDefault = fake.requestToolCall(second, "t", "lookup_ticket", Map.of("id", "T-1"))
                    .awaitResponse(WAIT);
            assertThat(byDefault.result().path("success").asBoolean(true)).isFalse();
            assertThat(text(byDefault)).isEqualTo("locked");

            // A processor that rethrows, and an exception that is no ToolExecutionException, fail the call too.
            String third = client.startThread(ThreadStartParams.builder().build(), SpringAiTools.converter()
                    .exceptionProcessor(new DefaultToolExecutionExceptionProcessor(true)).from(List.of(callback))).id();
            ClientReply rethrown = fake.requestToolCall(third, "t", "lookup_ticket", Map.of("id", "T-1"))
                    .awaitResponse(WAIT);
            assertThat(rethrown.result().path("success").asBoolean(true)).isFalse();
            assertThat(text(rethrown)).contains("locked");
            callback.failure.set(new IllegalArgumentException("bad id"));
            ClientReply other = fake.requestToolCall(third, "t", "lookup_ticket", Map.of("id", "T-1"))
                    .awaitResponse(WAIT);
            assertThat(other.result().path("success").asBoolean(true)).isFalse();
            assertThat(text(other)).contains("bad id");
        }
    }

    @Test
    void aToolWhoseNameOrSchemaCodexCannotTakeIsRefused() {
        ToolCallback spaced = new Recording("x") {
            @Override
            public ToolDefinition getToolDefinition() {
                return ToolDefinition.builder().name("look up").description("d").inputSchema(SCHEMA).build();
            }
        };
        assertThatThrownBy(() -> SpringAiTools.from(spaced)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("look up");
        ToolCallback listSchema = new Recording("x") {
            @Override
            public ToolDefinition getToolDefinition() {
                return ToolDefinition.builder().name("t").description("d").inputSchema("[1]").build();
            }
        };
        assertThatThrownBy(() -> SpringAiTools.from(listSchema)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a JSON object");
    }
}

package dev.codexclient.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ModelRequest;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.client.AdvisorParams;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.observation.ChatModelObservationContext;

/**
 * Codex in Spring AI's own contracts, on the real codex: native structured output, a chat-model observation, and
 * codex's settings of a turn in {@link CodexChatOptions}.
 */
@Tag("real-codex")
@Timeout(120)
class RealCodexSpringAiContractsTest {
    private final ScriptedModelServer model = ScriptedModelServer.start();
    @TempDir
    Path workspace;

    @AfterEach
    void stopModel() {
        model.close();
    }

    private CodexClient client() {
        String configured = System.getProperty("codex.binary", "");
        return CodexClient.builder().codexBinary(configured.isBlank() ? CodexBinary.pinned() : Path.of(configured))
                .workingDirectory(workspace).requestTimeout(Duration.ofSeconds(30)).stdio(model::applyEnvironment)
                .build();
    }

    private ThreadStartParams threadParams() {
        return ThreadStartParams.builder().cwd(workspace.toString()).approvalPolicy(AskForApproval.Simple.NEVER)
                .sandbox(SandboxMode.READ_ONLY).build();
    }

    /** A structured answer. */
    record Verdict(boolean safe, List<String> risks) {
    }

    /** Every chat-model observation that stopped, with what it saw. */
    static final class Recorded implements ObservationHandler<ChatModelObservationContext> {
        final List<ChatModelObservationContext> stopped = new CopyOnWriteArrayList<>();

        @Override
        public void onStop(ChatModelObservationContext context) {
            stopped.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return context instanceof ChatModelObservationContext;
        }
    }

    @Test
    void anEntityComesThroughCodexsOutputSchemaAndEachCallIsAChatModelObservation() {
        model.enqueue(ModelStep.json(Map.of("safe", false, "risks", List.of("deletes files"))),
                ModelStep.reply("Streamed.").withChunkSize(3));
        Recorded recorded = new Recorded();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(recorded);
        try (CodexClient codex = client();
             CodexChatModel chatModel = CodexChatModel.builder(codex).threadParams(threadParams())
                     .observationRegistry(registry).build()) {
            ChatClient chat = ChatClient.builder(chatModel).build();

            Verdict verdict = chat.prompt().user("Is rm -rf build/ safe?")
                    .advisors(AdvisorParams.ENABLE_NATIVE_STRUCTURED_OUTPUT).call().entity(Verdict.class);
            List<ChatResponse> streamed = chat.prompt().user("stream something")
                    .options(CodexChatOptions.builder().effort("low"))
                    .stream().chatResponse().collectList().block(Duration.ofSeconds(60));

            assertThat(verdict).isEqualTo(new Verdict(false, List.of("deletes files")));
            ModelRequest first = model.requests().get(0);
            assertThat(first.textFormat()).hasValueSatisfying(format -> {
                assertThat(format.path("type").asText()).isEqualTo("json_schema");
                assertThat(format.path("schema").path("properties").has("risks")).isTrue();
            });
            // The options' effort reached codex, which asks the model with it.
            assertThat(model.requests().get(1).json().path("reasoning").path("effort").asText()).isEqualTo("low");
            assertThat(streamed).hasSizeGreaterThan(2);
            assertThat(recorded.stopped).hasSize(2).allSatisfy(c -> {
                assertThat(c.getOperationMetadata().provider()).isEqualTo(CodexChatModel.PROVIDER);
                assertThat(c.getResponse()).isNotNull();
                assertThat(c.getResponse().getMetadata().getUsage().getTotalTokens()).isEqualTo(15);
            });
            assertThat(recorded.stopped.get(1).isStreaming()).isTrue();
        }
    }
}

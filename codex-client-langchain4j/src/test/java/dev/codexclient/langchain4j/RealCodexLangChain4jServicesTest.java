package dev.codexclient.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ModelRequest;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import dev.langchain4j.agentic.Agent;
import dev.langchain4j.agentic.AgenticServices;
import dev.langchain4j.agentic.UntypedAgent;
import dev.langchain4j.agentic.supervisor.SupervisorAgent;
import dev.langchain4j.agentic.supervisor.SupervisorResponseStrategy;
import dev.langchain4j.model.chat.listener.ChatModelErrorContext;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.listener.ChatModelRequestContext;
import dev.langchain4j.model.chat.listener.ChatModelResponseContext;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.UserMessage;
import dev.langchain4j.service.V;
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

/**
 * Codex in LangChain4j's own contracts, on the real codex: {@code AiServices.create}, structured output through the
 * JSON-schema capability, listeners, and codex as an agent of the agentic workflows (sequence, parallel, supervisor).
 */
@Tag("real-codex")
@Timeout(180)
class RealCodexLangChain4jServicesTest {
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

    private CodexChatModel.Builder chatModel(CodexClient codex) {
        return CodexChatModel.builder(codex).threadParams(ThreadStartParams.builder().cwd(workspace.toString())
                .approvalPolicy(AskForApproval.Simple.NEVER).sandbox(SandboxMode.READ_ONLY).build());
    }

    /** A structured answer, as an AI service returns it. */
    record Verdict(boolean safe, List<String> risks) {
    }

    interface Reviewer {
        Verdict review(String change);
    }

    @Test
    void anAiServiceCreatedOnTheModelGetsItsStructuredAnswerThroughCodexsOutputSchema() {
        model.enqueue(ModelStep.json(Map.of("safe", false, "risks", List.of("deletes files"))));
        List<String> heard = new CopyOnWriteArrayList<>();
        ChatModelListener listener = new ChatModelListener() {
            @Override
            public void onRequest(ChatModelRequestContext context) {
                heard.add("request " + context.chatRequest().messages().size());
            }

            @Override
            public void onResponse(ChatModelResponseContext context) {
                heard.add("response " + context.chatResponse().tokenUsage().totalTokenCount());
            }

            @Override
            public void onError(ChatModelErrorContext context) {
                heard.add("error " + context.error());
            }
        };
        try (CodexClient codex = client();
             CodexChatModel chatModel = chatModel(codex).listeners(List.of(listener)).build()) {
            // One class, one interface of LangChain4j: AiServices.create is not ambiguous.
            Reviewer reviewer = AiServices.create(Reviewer.class, chatModel);

            Verdict verdict = reviewer.review("rm -rf build/");

            assertThat(verdict).isEqualTo(new Verdict(false, List.of("deletes files")));
            ModelRequest request = model.requests().get(0);
            assertThat(request.textFormat()).hasValueSatisfying(format -> {
                assertThat(format.path("type").asText()).isEqualTo("json_schema");
                assertThat(format.path("schema").path("properties").has("risks")).isTrue();
            });
            // The turn's own tokens (the scripted model reports 10 in, 5 out).
            assertThat(heard).containsExactly("request 1", "response 15");
        }
    }

    public interface Researcher {
        @Agent(description = "Finds facts about a topic", outputKey = "facts")
        @UserMessage("Find facts about {{topic}}")
        String research(@V("topic") String topic);
    }

    public interface Writer {
        @Agent(description = "Writes a sentence from facts", outputKey = "text")
        @UserMessage("Write a sentence from these facts: {{facts}}")
        String write(@V("facts") String facts);
    }

    public interface Critic {
        @Agent(description = "Names the weak point of a topic", outputKey = "critique")
        @UserMessage("Name the weak point of {{topic}}")
        String critique(@V("topic") String topic);
    }

    @Test
    void codexAgentsComposeInASequenceAndInParallel() {
        model.whenAlways(r -> r.lastUserText().equals("Find facts about tides"),
                ModelStep.reply("Tides follow the moon."));
        model.whenAlways(r -> r.lastUserText().equals("Write a sentence from these facts: Tides follow the moon."),
                ModelStep.reply("The moon pulls the sea."));
        model.whenAlways(r -> r.lastUserText().equals("Name the weak point of tides"),
                ModelStep.reply("Tide tables drift."));
        try (CodexClient codex = client(); CodexChatModel chatModel = chatModel(codex).build()) {
            Researcher researcher = AgenticServices.agentBuilder(Researcher.class).chatModel(chatModel).build();
            Writer writer = AgenticServices.agentBuilder(Writer.class).chatModel(chatModel).build();
            Critic critic = AgenticServices.agentBuilder(Critic.class).chatModel(chatModel).build();

            UntypedAgent sequence = AgenticServices.sequenceBuilder().subAgents(researcher, writer).outputKey("text")
                    .build();
            UntypedAgent parallel = AgenticServices.parallelBuilder().subAgents(researcher, critic)
                    .output(scope -> scope.readState("facts") + " / " + scope.readState("critique")).build();

            assertThat(sequence.invoke(Map.of("topic", "tides"))).isEqualTo("The moon pulls the sea.");
            assertThat(parallel.invoke(Map.of("topic", "tides"))).isEqualTo("Tides follow the moon. / Tide tables drift.");
        }
    }

    @Test
    void aSupervisorOnCodexPlansWithCodexAndCallsACodexAgent() {
        // A planner's call without a memory id runs on a thread of its own: its history comes first, as a transcript.
        model.whenAlways(r -> r.inputContains("planner expert") && r.lastUserText().strip().endsWith("is: ''."),
                ModelStep.json(Map.of("agentName", "research", "arguments", Map.of("topic", "tides"))));
        model.whenAlways(r -> r.inputContains("planner expert")
                        && r.lastUserText().strip().endsWith("is: 'Tides follow the moon.'."),
                ModelStep.json(Map.of("agentName", "done", "arguments", Map.of("response", "Tides follow the moon."))));
        model.whenAlways(r -> r.lastUserText().equals("Find facts about tides"),
                ModelStep.reply("Tides follow the moon."));
        try (CodexClient codex = client(); CodexChatModel chatModel = chatModel(codex).build()) {
            Researcher researcher = AgenticServices.agentBuilder(Researcher.class).chatModel(chatModel).build();
            SupervisorAgent supervisor = AgenticServices.supervisorBuilder().chatModel(chatModel)
                    .subAgents(researcher).responseStrategy(SupervisorResponseStrategy.LAST).build();

            String answer = supervisor.invoke("Tell me about tides");

            assertThat(answer).isEqualTo("Tides follow the moon.");
            assertThat(model.requests()).filteredOn(r -> r.inputContains("planner expert")).hasSize(2)
                    .allSatisfy(r -> assertThat(r.textFormat()).isPresent());
        }
    }
}

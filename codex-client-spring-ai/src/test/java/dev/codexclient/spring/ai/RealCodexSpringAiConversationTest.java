package dev.codexclient.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ModelRequest;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;

/**
 * What a Spring AI user relies on, on the real codex: a conversation with a chat memory that survives a failed turn,
 * a streamed answer that came without deltas, and a failed stream that reaches the subscriber as codex's exception.
 */
@Tag("real-codex")
@Timeout(120)
class RealCodexSpringAiConversationTest {
    private static final Duration TURN = Duration.ofSeconds(60);
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
                .workingDirectory(workspace).experimentalApi(true).requestTimeout(Duration.ofSeconds(30))
                .stdio(model::applyEnvironment).build();
    }

    private ThreadStartParams threadParams() {
        return ThreadStartParams.builder().cwd(workspace.toString()).approvalPolicy(AskForApproval.Simple.NEVER)
                .sandbox(SandboxMode.READ_ONLY).build();
    }

    private static ChatClient chatWithMemory(CodexChatModel chatModel) {
        ChatMemory memory = MessageWindowChatMemory.builder().maxMessages(20).build();
        return ChatClient.builder(chatModel).defaultAdvisors(new CodexConversationAdvisor(),
                MessageChatMemoryAdvisor.builder(memory).build()).build();
    }

    /** How many times {@code text} is in the request's input. */
    private static int occurrences(ModelRequest request, String text) {
        Matcher m = Pattern.compile(Pattern.quote(text)).matcher(request.json().path("input").toString());
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    void aConversationWithAChatMemoryGoesOnAfterAFailedTurnSendingCodexOnlyWhatItHasNotSeen() {
        model.enqueue(ModelStep.fail(500, "{\"error\":{\"message\":\"scripted failure\"}}"),
                ModelStep.reply("The second answer."));
        try (CodexClient codex = client();
             CodexChatModel chatModel = CodexChatModel.builder(codex).threadParams(threadParams()).build()) {
            ChatClient chat = chatWithMemory(chatModel);

            assertThatThrownBy(() -> chat.prompt().user("the first question, which fails")
                    .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "c-1")).call().content())
                    .isInstanceOf(CodexTurnFailedException.class);
            String second = chat.prompt().user("the second question")
                    .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "c-1")).call().content();

            assertThat(second).isEqualTo("The second answer.");
            ModelRequest last = model.requests().get(model.requests().size() - 1);
            assertThat(last.lastUserText()).isEqualTo("the second question");
            // Codex's thread has the failed message: it is not sent again beside the new one.
            assertThat(occurrences(last, "the first question, which fails")).isEqualTo(1);
            assertThat(occurrences(last, "the second question")).isEqualTo(1);
        }
    }

    @Test
    void aStreamedAnswerThatCameWithoutDeltasReachesTheStreamsContent() {
        model.enqueue(ModelStep.reply("An answer codex sent whole.").withoutDeltas());
        try (CodexClient codex = client();
             CodexChatModel chatModel = CodexChatModel.builder(codex).threadParams(threadParams()).build()) {
            ChatClient chat = ChatClient.builder(chatModel).build();

            List<String> content = chat.prompt().user("answer in one piece").stream().content().collectList()
                    .block(TURN);

            assertThat(String.join("", content)).isEqualTo("An answer codex sent whole.");
        }
    }

    @Test
    void aFailedStreamReachesTheSubscriberAsTheTurnsFailureWithNothingLoggedAtError() {
        model.enqueue(ModelStep.fail(500, "{\"error\":{\"message\":\"scripted failure\"}}"));
        try (CodexClient codex = client();
             CodexChatModel chatModel = CodexChatModel.builder(codex).threadParams(threadParams()).build();
             ErrorLog log = new ErrorLog()) {
            ChatClient chat = chatWithMemory(chatModel);

            assertThatThrownBy(() -> chat.prompt().user("this fails")
                    .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "c-2")).stream().content().collectList()
                    .block(TURN)).isInstanceOf(CodexTurnFailedException.class);
            assertThat(log.errors()).isEmpty();
        }
    }
}

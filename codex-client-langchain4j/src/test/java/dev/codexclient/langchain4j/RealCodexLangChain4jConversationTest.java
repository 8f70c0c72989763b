package dev.codexclient.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ModelRequest;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a LangChain4j user relies on, on the real codex: an AI service's conversation that survives a failed turn,
 * and a streaming handler of the context variant that gets the partials and can cancel the turn.
 */
@Tag("real-codex")
@Timeout(120)
class RealCodexLangChain4jConversationTest {
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

    interface Assistant {
        String chat(@MemoryId String conversation, @dev.langchain4j.service.UserMessage String text);
    }

    private static int occurrences(ModelRequest request, String text) {
        Matcher m = Pattern.compile(Pattern.quote(text)).matcher(request.json().path("input").toString());
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    void anAiServicesConversationGoesOnAfterAFailedTurnSendingCodexOnlyWhatItHasNotSeen() {
        model.enqueue(ModelStep.fail(500, "{\"error\":{\"message\":\"scripted failure\"}}"),
                ModelStep.reply("The second answer."));
        try (CodexClient codex = client();
             CodexChatModel chatModel = CodexChatModel.builder(codex).threadParams(threadParams()).build()) {
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(chatModel)
                    .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
                    .chatRequestTransformer(chatModel.memoryIdTransformer()).build();

            assertThatThrownBy(() -> assistant.chat("c-1", "the first question, which fails"))
                    .isInstanceOf(CodexTurnFailedException.class);
            String second = assistant.chat("c-1", "the second question");

            assertThat(second).isEqualTo("The second answer.");
            ModelRequest last = model.requests().get(model.requests().size() - 1);
            assertThat(last.lastUserText()).isEqualTo("the second question");
            assertThat(occurrences(last, "the first question, which fails")).isEqualTo(1);
        }
    }

    @Test
    void aHandlerOfTheContextVariantGetsThePartialsAndItsHandleInterruptsTheTurn() throws Exception {
        // The answer's first words, then a command that would run for half a minute: cancelled in between.
        model.enqueue(ModelStep.of(ModelStep.reply("Looking into it now.").withChunkSize(4),
                ModelStep.exec("sleep 30")));
        try (CodexClient codex = client();
             CodexStreamingChatModel chatModel = CodexStreamingChatModel.builder(codex).threadParams(threadParams())
                     .build()) {
            CompletableFuture<TurnStatus> ended = new CompletableFuture<>();
            codex.onNotification(n -> {
                if (n instanceof ServerNotification.TurnCompleted c) {
                    ended.complete(c.params().turn().status());
                }
            });
            List<String> partials = new CopyOnWriteArrayList<>();
            List<String> after = new CopyOnWriteArrayList<>();
            CompletableFuture<Boolean> cancelled = new CompletableFuture<>();
            chatModel.chat(ChatRequest.builder().messages(UserMessage.from("look into it")).build(),
                    new StreamingChatResponseHandler() {
                        @Override
                        public void onPartialResponse(PartialResponse partial, PartialResponseContext context) {
                            if (context.streamingHandle().isCancelled()) {
                                after.add(partial.text());
                                return;
                            }
                            partials.add(partial.text());
                            context.streamingHandle().cancel();
                            cancelled.complete(context.streamingHandle().isCancelled());
                        }

                        @Override
                        public void onCompleteResponse(ChatResponse response) {
                            after.add("complete");
                        }

                        @Override
                        public void onError(Throwable error) {
                            after.add("error " + error);
                        }
                    });

            assertThat(cancelled.get(TURN.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(ended.get(TURN.toSeconds(), TimeUnit.SECONDS)).isEqualTo(TurnStatus.INTERRUPTED);
            assertThat(partials).containsExactly("Look");
            assertThat(after).isEmpty();
        }
    }
}

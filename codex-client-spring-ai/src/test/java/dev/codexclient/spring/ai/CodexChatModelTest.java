package dev.codexclient.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.observation.ChatModelObservationContext;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import reactor.core.Disposable;

/** The mapping between Spring AI prompts and responses and codex turns, on the testkit's fake. */
@ExtendWith(CodexTestExtension.class)
class CodexChatModelTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    private static CodexClient client(FakeCodexAppServer fake) {
        return CodexClient.builder().transport(fake.connectInMemory()).experimentalApi(true)
                .requestTimeout(Duration.ofSeconds(10)).build();
    }

    private static ToolCallingChatOptions conversation(String id) {
        return ToolCallingChatOptions.builder().toolContext(ChatMemory.CONVERSATION_ID, id).build();
    }

    private static List<String> inputTexts(JsonNode turnStart) {
        List<String> texts = new ArrayList<>();
        turnStart.path("input").forEach(i -> texts.add(i.path("text").asText()));
        return texts;
    }

    @Test
    void aPromptWithoutConversationRunsOnAnEphemeralThreadAndTheResponseCarriesWhatCodexDid(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.commandExecution("make test", "ok", 0).agentMessage("All green.")
                .tokenUsage(120, 30).completed());
        try (CodexClient codex = client(fake);
             CodexChatModel model = CodexChatModel.builder(codex)
                     .threadParams(ThreadStartParams.builder().cwd("/srv/repo").build()).build()) {
            ChatResponse response = model.call(new Prompt(List.of(new SystemMessage("Be brief."),
                    new UserMessage("Run the tests"))));

            assertThat(response.getResult().getOutput().getText()).isEqualTo("All green.");
            assertThat(response.getResult().getMetadata().getFinishReason()).isEqualTo("STOP");
            assertThat(CodexMetadata.commands(response)).singleElement().satisfies(c ->
                    assertThat(c.command()).isEqualTo("make test"));
            assertThat(CodexMetadata.items(response)).hasSizeGreaterThanOrEqualTo(2);
            assertThat(response.getMetadata().getUsage().getPromptTokens()).isEqualTo(120);
            assertThat(response.getMetadata().getUsage().getCompletionTokens()).isEqualTo(30);
            JsonNode start = fake.takeRequest("thread/start", WAIT).params();
            assertThat(start.path("ephemeral").asBoolean()).isTrue();
            assertThat(start.path("cwd").asText()).isEqualTo("/srv/repo");
            assertThat(start.path("developerInstructions").asText()).isEqualTo("Be brief.");
            assertThat(CodexMetadata.threadId(response)).contains(fake.threadIds().get(0));

            model.call(new Prompt("again"));
            assertThat(fake.threadIds()).hasSize(2);
        }
    }

    @Test
    void aConversationKeepsItsThreadAndSendsOnlyWhatFollowsTheLastAnswer(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("noted").completed());
        try (CodexClient codex = client(fake); CodexChatModel model = CodexChatModel.builder(codex).build()) {
            // The conversation's first prompt to codex brings a history kept elsewhere: sent as a transcript.
            model.call(new Prompt(List.of(new UserMessage("my name is Ada"), new AssistantMessage("Hello Ada"),
                    new UserMessage("remember it")), conversation("c1")));
            // A memory advisor replays the history: codex has it, only the new message goes.
            model.call(new Prompt(List.of(new UserMessage("my name is Ada"), new AssistantMessage("Hello Ada"),
                    new UserMessage("remember it"), new AssistantMessage("noted"), new UserMessage("who am I?")),
                    conversation("c1")));

            assertThat(fake.threadIds()).hasSize(1);
            JsonNode first = fake.takeRequest("turn/start", WAIT).params();
            assertThat(inputTexts(first)).hasSize(2);
            assertThat(inputTexts(first).get(0)).contains("User: my name is Ada").contains("Assistant: Hello Ada");
            assertThat(inputTexts(first).get(1)).isEqualTo("remember it");
            assertThat(inputTexts(fake.takeRequest("turn/start", WAIT).params())).containsExactly("who am I?");
            assertThat(fake.takeRequest("thread/start", WAIT).params().path("ephemeral").asBoolean(false)).isFalse();
        }
    }

    @Test
    void aFailedTurnThrowsAndFailsTheStream(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("trying").failed("upstream returned 502"));
        try (CodexClient codex = client(fake); CodexChatModel model = CodexChatModel.builder(codex).build()) {
            assertThatThrownBy(() -> model.call(new Prompt("go"))).isInstanceOf(CodexTurnFailedException.class)
                    .hasMessageContaining("upstream returned 502");
            assertThatThrownBy(() -> model.stream(new Prompt("go")).collectList().block(WAIT))
                    .isInstanceOf(CodexTurnFailedException.class);
        }
    }

    @Test
    void aCancelledStreamInterruptsTheTurn(FakeCodexAppServer fake) throws Exception {
        fake.onTurnStart(turn -> turn.agentMessageDeltas("one ", "two ").neverComplete());
        try (CodexClient codex = client(fake); CodexChatModel model = CodexChatModel.builder(codex).build()) {
            List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.concurrent.CountDownLatch two = new java.util.concurrent.CountDownLatch(2);
            Disposable subscription = model.stream(new Prompt("talk")).subscribe(r -> {
                seen.add(r.getResult().getOutput().getText());
                two.countDown();
            });
            assertThat(two.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            subscription.dispose();
            assertThat(fake.takeRequest("turn/interrupt", WAIT).params().path("threadId").asText())
                    .isEqualTo(fake.threadIds().get(0));
            assertThat(seen).containsExactly("one ", "two ");
        }
    }

    @Test
    void approvalsFollowTheClientsPolicy(FakeCodexAppServer fake) {
        List<String> decisions = new java.util.concurrent.CopyOnWriteArrayList<>();
        fake.onTurnStart(turn -> turn.commandApproval("rm -rf build", r -> decisions.add(r.decision().orElse("?")))
                .agentMessage("cleaned").completed());
        try (CodexClient codex = CodexClient.builder().transport(fake.connectInMemory())
                .approvals(dev.codexclient.ApprovalPolicy.acceptAll()).requestTimeout(Duration.ofSeconds(10)).build();
             CodexChatModel model = CodexChatModel.builder(codex).build()) {
            ChatResponse response = model.call(new Prompt("clean the build"));
            assertThat(decisions).containsExactly("accept");
            assertThat(CodexMetadata.commands(response)).singleElement().satisfies(c ->
                    assertThat(c.command()).isEqualTo("rm -rf build"));
        }
    }

    /** Counts the chat-model observations that stopped, and whether with an error. */
    private static final class Stops implements ObservationHandler<ChatModelObservationContext> {
        final List<Boolean> failed = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void onStop(ChatModelObservationContext context) {
            failed.add(context.getError() != null);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return context instanceof ChatModelObservationContext;
        }
    }

    @Test
    void aStreamsObservationHasStoppedWhenItsEndReachesTheSubscriberAndWhenItIsCancelled(FakeCodexAppServer fake)
            throws Exception {
        fake.enqueueTurn(turn -> turn.agentMessageDeltas("all ", "done").completed());
        fake.enqueueTurn(turn -> turn.agentMessage("trying").failed("upstream returned 502"));
        fake.enqueueTurn(turn -> turn.agentMessageDeltas("one ", "two ").neverComplete());
        Stops stops = new Stops();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(stops);
        try (CodexClient codex = client(fake);
             CodexChatModel model = CodexChatModel.builder(codex).observationRegistry(registry).build()) {
            // What the subscriber sees of the observations at its end: doFinally would stop them only afterwards.
            CompletableFuture<List<Boolean>> atCompletion = new CompletableFuture<>();
            model.stream(new Prompt("go")).subscribe(r -> { }, atCompletion::completeExceptionally,
                    () -> atCompletion.complete(List.copyOf(stops.failed)));
            assertThat(atCompletion.get(5, TimeUnit.SECONDS)).containsExactly(false);

            CompletableFuture<List<Boolean>> atError = new CompletableFuture<>();
            model.stream(new Prompt("go")).subscribe(r -> { }, e -> atError.complete(List.copyOf(stops.failed)),
                    () -> atError.completeExceptionally(new AssertionError("completed")));
            assertThat(atError.get(5, TimeUnit.SECONDS)).containsExactly(false, true);

            CountDownLatch first = new CountDownLatch(1);
            Disposable subscription = model.stream(new Prompt("talk")).subscribe(r -> first.countDown());
            assertThat(first.await(5, TimeUnit.SECONDS)).isTrue();
            subscription.dispose();
            assertThat(stops.failed).containsExactly(false, true, false);
        }
    }
}

package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.Codex;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexConversations;
import dev.codexclient.CodexThread;
import dev.codexclient.DynamicTool;
import dev.codexclient.Inputs;
import dev.codexclient.Subscription;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.RecordedRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The face a client shares with a pool: code written against {@link Codex} and {@link CodexThread} runs on a client,
 * the interfaces' default methods reach the client's own, and an application's own {@code Codex} (a decorator)
 * plugs into what takes one.
 */
@ExtendWith(CodexTestExtension.class)
class CodexFaceTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    /** An application service that knows only the face. */
    private static TurnResult summarise(Codex codex, String cwd) {
        CodexThread thread = codex.startThread(ThreadStartParams.builder().cwd(cwd).build());
        return thread.startTurn("Summarise " + cwd).await(WAIT);
    }

    @Test
    void aServiceWrittenAgainstTheFaceRunsOnAClient(FakeCodexAppServer fake) {
        fake.enqueueTurn(turn -> turn.agentMessage("a summary").completed());
        try (CodexClient client = inMemory(fake).build()) {
            TurnResult result = summarise(client, "/work/repo");

            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(result.finalText()).isEqualTo("a summary");
            RecordedRequest start = fake.takeRequest("thread/start", WAIT);
            assertThat(start.params().path("cwd").asText()).isEqualTo("/work/repo");
            // The default startTurn(String) went to the client's thread, with that thread's id and the one input.
            RecordedRequest turn = fake.takeRequest("turn/start", WAIT);
            assertThat(turn.params().path("threadId").asText()).isEqualTo(result.threadId());
            JsonNode input = turn.params().path("input");
            assertThat(input).hasSize(1);
            assertThat(input.get(0).path("text").asText()).isEqualTo("Summarise /work/repo");
        }
    }

    @Test
    void theDefaultOverloadsOfTheFaceAreTheClientsOwn(FakeCodexAppServer fake) throws Exception {
        fake.enqueueTurn(turn -> turn.agentMessage("one").completed());
        try (CodexClient client = inMemory(fake).build()) {
            Codex codex = client;
            CodexThread started = codex.startThreadAsync().get(5, TimeUnit.SECONDS);
            started.startTurnAsync(List.of(Inputs.text("hello"))).get(5, TimeUnit.SECONDS).await(WAIT);
            assertThat(started.turnParams().input(Inputs.text("x")).build().threadId()).isEqualTo(started.id());
            assertThat(fake.takeRequest("turn/start", WAIT).params().path("input").get(0).path("text").asText())
                    .isEqualTo("hello");
        }
    }

    @Test
    void anApplicationsOwnCodexPlugsIntoWhatTakesOne(FakeCodexAppServer fake) throws Exception {
        fake.enqueueTurn(turn -> turn.agentMessage("counted").completed());
        try (CodexClient client = inMemory(fake).build()) {
            Counting counting = new Counting(client);
            try (CodexConversations conversations = CodexConversations.builder(counting).build()) {
                TurnResult result = conversations.startTurn("c-1", ThreadStartParams.builder().build(), List::of,
                        opened -> opened.thread().turnParams().input(Inputs.text("hi")).build())
                        .get(5, TimeUnit.SECONDS).await(WAIT);
                assertThat(result.finalText()).isEqualTo("counted");
            }
            assertThat(counting.calls).containsExactly("onNotification", "startThreadAsync");
        }
    }

    /** A decorator of the face, as an application writes one: it counts what goes through it. */
    private static final class Counting implements Codex {
        private final Codex delegate;
        private final List<String> calls = new CopyOnWriteArrayList<>();

        Counting(Codex delegate) {
            this.delegate = delegate;
        }

        @Override
        public CodexThread startThread(ThreadStartParams params, List<DynamicTool> tools) {
            calls.add("startThread");
            return delegate.startThread(params, tools);
        }

        @Override
        public CompletableFuture<CodexThread> startThreadAsync(ThreadStartParams params, List<DynamicTool> tools) {
            calls.add("startThreadAsync");
            return delegate.startThreadAsync(params, tools);
        }

        @Override
        public CodexThread resumeThread(String threadId) {
            calls.add("resumeThread");
            return delegate.resumeThread(threadId);
        }

        @Override
        public CodexThread resumeThread(ThreadResumeParams params, List<DynamicTool> tools) {
            calls.add("resumeThread");
            return delegate.resumeThread(params, tools);
        }

        @Override
        public CompletableFuture<CodexThread> resumeThreadAsync(String threadId) {
            calls.add("resumeThreadAsync");
            return delegate.resumeThreadAsync(threadId);
        }

        @Override
        public CompletableFuture<CodexThread> resumeThreadAsync(ThreadResumeParams params, List<DynamicTool> tools) {
            calls.add("resumeThreadAsync");
            return delegate.resumeThreadAsync(params, tools);
        }

        @Override
        public Subscription onNotification(Consumer<? super ServerNotification> listener) {
            calls.add("onNotification");
            return delegate.onNotification(listener);
        }

        @Override
        public String mask(CharSequence text) {
            return delegate.mask(text);
        }

        @Override
        public void publishTelemetry(dev.codexclient.telemetry.ExtensionTelemetry telemetry) {
            delegate.publishTelemetry(telemetry);
        }
    }
}

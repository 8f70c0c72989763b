package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.ClientReply;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Tools of one thread: declared on its {@code thread/start} only, answering its calls only, until it is closed. */
@ExtendWith(CodexTestExtension.class)
class ThreadToolsTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String TURN = "turn-1";

    record Ticket(String id) {
    }

    private static DynamicTool lookup(String owner, List<String> calls) {
        return DynamicTool.of("lookup_ticket", "Look up a ticket", Ticket.class, t -> {
            calls.add(owner + ":" + t.id());
            return ToolResult.text(owner + " has " + t.id());
        });
    }

    private static List<String> declaredNames(FakeCodexAppServer fake) {
        JsonNode params = fake.takeRequest("thread/start", WAIT).params();
        List<String> names = new ArrayList<>();
        params.path("dynamicTools").forEach(t -> names.add(t.path("name").asText()));
        return names;
    }

    private static String answerText(ClientReply reply) {
        return reply.result().path("contentItems").get(0).path("text").asText();
    }

    @Test
    void eachThreadDeclaresAndAnswersItsOwnTools(FakeCodexAppServer fake) {
        List<String> calls = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake).experimentalApi(true)
                .tool(DynamicTool.ofJson("now", "The time", schema(), a -> ToolResult.text("noon")))
                .build()) {
            CodexThread alice = client.startThread(ThreadStartParams.builder().build(), List.of(lookup("alice", calls)));
            assertThat(declaredNames(fake)).containsExactly("now", "lookup_ticket");
            CodexThread bob = client.startThreadAsync(ThreadStartParams.builder().build(), List.of(lookup("bob", calls)))
                    .join();
            assertThat(declaredNames(fake)).containsExactly("now", "lookup_ticket");
            CodexThread plain = client.startThread();
            assertThat(declaredNames(fake)).containsExactly("now");

            assertThat(answerText(fake.requestToolCall(alice.id(), TURN, "lookup_ticket", Map.of("id", "A-1"))
                    .awaitResponse(WAIT))).isEqualTo("alice has A-1");
            assertThat(answerText(fake.requestToolCall(bob.id(), TURN, "lookup_ticket", Map.of("id", "B-2"))
                    .awaitResponse(WAIT))).isEqualTo("bob has B-2");
            ClientReply elsewhere = fake.requestToolCall(plain.id(), TURN, "lookup_ticket", Map.of("id", "C-3"))
                    .awaitResponse(WAIT);
            assertThat(elsewhere.result().path("success").asBoolean(true)).isFalse();
            assertThat(answerText(elsewhere)).contains("lookup_ticket");
            // The client's own tool answers on every thread.
            assertThat(answerText(fake.requestToolCall(bob.id(), TURN, "now", Map.of()).awaitResponse(WAIT)))
                    .isEqualTo("noon");
            assertThat(calls).containsExactly("alice:A-1", "bob:B-2");
        }
    }

    @Test
    void aClosedThreadsToolsAreForgottenAndAResumeDeclaresThemAgain(FakeCodexAppServer fake) throws Exception {
        List<String> calls = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake).experimentalApi(true).build()) {
            String id = client.startThread(ThreadStartParams.builder().build(), List.of(lookup("first", calls))).id();
            CountDownLatch closed = new CountDownLatch(1);
            client.onNotification(n -> {
                if (n instanceof ServerNotification.ThreadClosed) {
                    closed.countDown();
                }
            });
            fake.notify("thread/closed", Map.of("threadId", id));
            assertThat(closed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            ClientReply afterClose = fake.requestToolCall(id, TURN, "lookup_ticket", Map.of("id", "X"))
                    .awaitResponse(WAIT);
            assertThat(afterClose.result().path("success").asBoolean(true)).isFalse();

            client.resumeThread(ThreadResumeParams.builder().threadId(id).build(), List.of(lookup("resumed", calls)));
            assertThat(answerText(fake.requestToolCall(id, TURN, "lookup_ticket", Map.of("id", "Y"))
                    .awaitResponse(WAIT))).isEqualTo("resumed has Y");
            client.resumeThreadAsync(ThreadResumeParams.builder().threadId(id).build(),
                    List.of(lookup("again", calls))).join();
            assertThat(answerText(fake.requestToolCall(id, TURN, "lookup_ticket", Map.of("id", "Z"))
                    .awaitResponse(WAIT))).isEqualTo("again has Z");
            assertThat(calls).containsExactly("resumed:Y", "again:Z");
        }
    }

    @Test
    void toolsThatClashOrNeedTheExperimentalApiAreRefusedBeforeAnythingIsSent(FakeCodexAppServer fake) {
        List<String> calls = new ArrayList<>();
        ThreadStartParams params = ThreadStartParams.builder().build();
        try (CodexClient client = inMemory(fake).experimentalApi(true).tool(lookup("client", calls)).build()) {
            assertThatThrownBy(() -> client.startThread(params, List.of(lookup("thread", calls))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lookup_ticket");
            DynamicTool other = DynamicTool.ofJson("other", "Other", schema(), a -> ToolResult.text(""));
            assertThatThrownBy(() -> client.startThreadAsync(params, List.of(other, other)).join())
                    .isInstanceOf(CompletionException.class).hasCauseInstanceOf(IllegalArgumentException.class);
        }
        try (CodexClient client = inMemory(fake).build()) {
            assertThatThrownBy(() -> client.startThread(params, List.of(lookup("thread", calls))))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("experimentalApi(true)");
            assertThatThrownBy(() -> client.resumeThread(ThreadResumeParams.builder().threadId("t").build(),
                    List.of(lookup("thread", calls)))).isInstanceOf(IllegalStateException.class);
        }
        assertThat(fake.requests()).extracting(r -> r.method()).doesNotContain("thread/start", "thread/resume");
    }

    private static com.fasterxml.jackson.databind.node.ObjectNode schema() {
        com.fasterxml.jackson.databind.node.ObjectNode s = dev.codexclient.protocol.ProtocolJson.mapper()
                .createObjectNode().put("type", "object");
        s.putObject("properties");
        return s;
    }
}

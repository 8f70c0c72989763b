package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelRequest;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Several things at once against the real codex: parallel tool calls, parallel threads, steering a running turn. */
@Tag("real-codex")
@Timeout(60)
class RealCodexConcurrencyTest {
    private static final Duration TURN = Duration.ofSeconds(30);
    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();


    private static ObjectNode keySchema() {
        ObjectNode schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        schema.putObject("properties").putObject("key").put("type", "string");
        schema.putArray("required").add("key");
        schema.put("additionalProperties", false);
        return schema;
    }

    @Test
    void twoToolCallsInOneResponseAreBothAnswered() {
        codex.model.enqueue(
                ModelStep.of(ModelStep.callTool("lookup", Map.of("key", "first")),
                        ModelStep.callTool("lookup", Map.of("key", "second"))),
                ModelStep.reply("both looked up"));
        Set<String> inFlight = ConcurrentHashMap.newKeySet();
        Set<String> seenTogether = ConcurrentHashMap.newKeySet();
        CountDownLatch bothArrived = new CountDownLatch(2);
        DynamicTool lookup = DynamicTool.ofAsync("lookup", "Looks a key up", keySchema(), (args, call, mapper) -> {
            String key = args.path("key").asText();
            inFlight.add(key);
            bothArrived.countDown();
            // Answer only once the other call has arrived too (bounded), so overlapping requests are observable.
            return CompletableFuture.supplyAsync(() -> {
                try {
                    if (bothArrived.await(3, TimeUnit.SECONDS)) {
                        seenTogether.addAll(inFlight);
                    }
                } catch (InterruptedException e) {
                    java.lang.Thread.currentThread().interrupt();
                }
                return ToolResult.text("value of " + key + " is " + key.toUpperCase());
            });
        });
        try (CodexClient client = codex.client(b -> b.experimentalApi(true).tool(lookup))) {
            TurnResult result = client.startThread(codex.threadParams().build()).startTurn("look both up")
                    .await(TURN);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(result.finalText()).isEqualTo("both looked up");
            assertThat(result.itemsOf(ThreadItem.DynamicToolCall.class)).hasSize(2);
        }
        ModelRequest second = codex.model.requests().get(1);
        assertThat(second.functionCallOutputs()).hasSize(2);
        assertThat(second.functionCallOutputs().values()).anySatisfy(o -> assertThat(o).contains("FIRST"))
                .anySatisfy(o -> assertThat(o).contains("SECOND"));
        assertThat(seenTogether).as("both server requests were pending at the same time")
                .containsExactlyInAnyOrder("first", "second");
    }

    @Test
    void fourThreadsRunTurnsAtOnce() {
        List<String> names = List.of("alpha", "bravo", "charlie", "delta");
        for (String name : names) {
            String answer = ("Thread " + name + " answers: ").repeat(20) + name.toUpperCase() + " ✓";
            codex.model.when(r -> r.lastUserText().equals("who is " + name + "?"),
                    ModelStep.reply(answer).withChunkSize(4));
        }
        try (CodexClient client = codex.client(b -> { })) {
            List<CodexTurn> turns = new ArrayList<>();
            List<CodexThread> threads = new ArrayList<>();
            for (String name : names) {
                threads.add(client.startThread(codex.threadParams().build()));
            }
            List<StringBuilder> streamed = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                CodexTurn turn = threads.get(i).startTurn("who is " + names.get(i) + "?");
                StringBuilder sb = new StringBuilder();
                turn.onAgentMessageDelta(d -> sb.append(d.delta()));
                streamed.add(sb);
                turns.add(turn);
            }
            for (int i = 0; i < names.size(); i++) {
                String name = names.get(i);
                String answer = ("Thread " + name + " answers: ").repeat(20) + name.toUpperCase() + " ✓";
                TurnResult result = turns.get(i).await(TURN);
                assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
                assertThat(result.threadId()).isEqualTo(threads.get(i).id());
                assertThat(result.finalText()).isEqualTo(answer);
                assertThat(streamed.get(i).toString()).isEqualTo(answer);
            }
        }
        assertThat(codex.model.unmatchedRequests()).isEmpty();
    }

    @Test
    void steeredInputReachesTheModelsNextRequest() throws Exception {
        codex.model.enqueue(ModelStep.callTool("exec_command", Map.of("cmd", "sleep 2", "login", false)),
                ModelStep.reply("steered answer"));
        try (CodexClient client = codex.client(b -> { })) {
            CodexThread thread = client.startThread(codex.threadParams()
                    .approvalPolicy(AskForApproval.Simple.NEVER).sandbox(SandboxMode.DANGER_FULL_ACCESS).build());
            CodexTurn turn = thread.startTurn("start something slow");
            assertThat(codex.model.takeRequest(Duration.ofSeconds(10))).isPresent();
            // The command is running now; steer the turn.
            assertThat(turn.steerAsync("also: answer in French").get(10, TimeUnit.SECONDS).turnId())
                    .isEqualTo(turn.id());
            TurnResult result = turn.await(TURN);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(result.finalText()).isEqualTo("steered answer");
        }
        assertThat(codex.model.requests()).hasSize(2);
        assertThat(codex.model.requests().get(0).inputContains("also: answer in French")).isFalse();
        assertThat(codex.model.requests().get(1).inputContains("also: answer in French")).isTrue();
    }
}

package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelRequest;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A thread's own tools against the real codex: offered on that thread only, and kept by codex across a resume. */
@Tag("real-codex")
@Timeout(90)
class RealCodexThreadToolsTest {
    private static final Duration TURN = Duration.ofSeconds(30);
    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();

    record Ticket(String id) {
    }

    private static DynamicTool lookup(String owner, List<String> calls) {
        return DynamicTool.of("lookup_ticket", "Look up a ticket by id", Ticket.class, t -> {
            calls.add(owner + ":" + t.id());
            return ToolResult.text(owner + " found " + t.id() + " open");
        });
    }

    private static String lastItemType(ModelRequest request) {
        List<com.fasterxml.jackson.databind.JsonNode> input = request.input();
        return input.isEmpty() ? "" : input.get(input.size() - 1).path("type").asText();
    }

    @Test
    void aThreadsToolIsOfferedOnItsThreadOnlyAndAnsweredAgainAfterAResumeInANewServer() {
        List<String> calls = new CopyOnWriteArrayList<>();
        // A stateless script: the last input item says whether the tool was answered already.
        codex.model.whenAlways(r -> lastItemType(r).equals("function_call_output"), ModelStep.reply("done"));
        codex.model.whenAlways(r -> r.lastUserText().equals("plain thread"), ModelStep.reply("nothing to look up"));
        codex.model.whenAlways(r -> r.lastUserText().startsWith("check"),
                ModelStep.callTool("lookup_ticket", Map.of("id", "T-7")));
        String threadId;
        try (CodexClient client = codex.client(b -> b.experimentalApi(true))) {
            CodexThread thread = client.startThread(codex.threadParams().build(), List.of(lookup("first", calls)));
            threadId = thread.id();
            assertThat(thread.startTurn("check T-7").await(TURN).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(client.startThread(codex.threadParams().build()).startTurn("plain thread").await(TURN)
                    .status()).isEqualTo(TurnStatus.COMPLETED);
        }
        List<ModelRequest> firstServer = codex.model.requests();
        assertThat(firstServer.get(0).tools()).contains("lookup_ticket");
        assertThat(firstServer.get(1).functionCallOutputs().values()).singleElement()
                .satisfies(out -> assertThat(out).contains("first found T-7 open"));
        assertThat(firstServer.get(2).lastUserText()).isEqualTo("plain thread");
        assertThat(firstServer.get(2).tools()).doesNotContain("lookup_ticket");

        // A new server process: codex restores the thread's declared tools from its store, this client answers them.
        try (CodexClient client = codex.client(b -> b.experimentalApi(true))) {
            CodexThread resumed = client.resumeThread(ThreadResumeParams.builder().threadId(threadId).build(),
                    List.of(lookup("resumed", calls)));
            TurnResult result = resumed.startTurn("check T-7 again").await(TURN);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
        }
        ModelRequest afterResume = codex.model.requests().get(3);
        assertThat(afterResume.tools()).contains("lookup_ticket");
        assertThat(codex.model.requests().get(4).functionCallOutputs().values())
                .anySatisfy(out -> assertThat(out).contains("resumed found T-7 open"));
        assertThat(calls).containsExactly("first:T-7", "resumed:T-7");
    }
}

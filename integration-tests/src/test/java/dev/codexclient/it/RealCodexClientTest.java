package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.CommandExecutionStatus;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelRequest;
import dev.codexclient.testkit.ModelStep;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The client API against the real codex app-server, driven offline by a scripted model. */
@Tag("real-codex")
@Timeout(60)
class RealCodexClientTest {
    private static final Duration TURN = Duration.ofSeconds(30);
    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();

    @Test
    void interruptRightAfterStartSettlesTheTurn() {
        codex.model.enqueue(ModelStep.stall(Duration.ofSeconds(30)));
        try (CodexClient client = codex.client(b -> { })) {
            CodexTurn turn = client.startThread(codex.threadParams().build()).startTurn("take your time");
            TurnResult result = turn.interruptAsync().join();
            assertThat(result.status()).isEqualTo(TurnStatus.INTERRUPTED);
            assertThat(result.stalled()).isFalse();
        }
    }


    @Test
    void handshakeReportsTheServer() {
        try (CodexClient client = codex.client(b -> { })) {
            assertThat(client.serverInfo().userAgent()).hasValueSatisfying(a -> assertThat(a).contains("codex"));
            assertThat(client.serverInfo().codexHome()).isPresent();
            assertThat(client.serverInfo().platformOs()).isPresent();
        }
    }

    @Test
    void streamedDeltasConcatenateToTheFinalMessage() {
        String text = "Héllo wörld — ünïcödé ✓ 🚀 emoji, 漢字とかな, 한국어, done.";
        codex.model.enqueue(ModelStep.reply(text).withChunkSize(3).withUsage(120, 30));
        try (CodexClient client = codex.client(b -> { })) {
            CodexThread thread = client.startThread(codex.threadParams().build());
            CodexTurn turn = thread.startTurn("Say hello");
            StringBuilder streamed = new StringBuilder();
            turn.onAgentMessageDelta(d -> streamed.append(d.delta()));
            TurnResult result = turn.await(TURN);

            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(result.finalText()).isEqualTo(text);
            assertThat(streamed.toString()).isEqualTo(text);
            assertThat(result.itemsOf(ThreadItem.AgentMessage.class)).extracting(ThreadItem.AgentMessage::text)
                    .containsExactly(text);
            assertThat(result.usage()).hasValueSatisfying(u ->
                    assertThat(u.last().outputTokens()).isEqualTo(30));
        }
    }

    @Test
    void acceptedCommandRunsAndItsOutputReachesTheResult() throws Exception {
        codex.model.enqueue(ModelStep.callTool("exec_command",
                        Map.of("cmd", "printf 'from-java\\n' | tee out.txt", "login", false)),
                ModelStep.reply("done"));
        List<String> approved = new CopyOnWriteArrayList<>();
        try (CodexClient client = codex.client(b -> b.commandApprovals(ApprovalPolicy.sync(req -> {
            approved.add(req.params().command());
            return ApprovalDecision.ACCEPT;
        })))) {
            TurnResult result = client.startThread(codex.threadParams().build()).startTurn("write a file")
                    .await(TURN);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(approved).singleElement().asString().contains("tee out.txt");
            ThreadItem.CommandExecution cmd = result.itemsOf(ThreadItem.CommandExecution.class).get(0);
            assertThat(cmd.status()).isEqualTo(CommandExecutionStatus.COMPLETED);
            assertThat(cmd.aggregatedOutput()).contains("from-java");
            assertThat(Files.readString(codex.workspace.resolve("out.txt"))).isEqualTo("from-java\n");
        }
    }

    @Test
    void declinedCommandEndsDeclinedByDefault() {
        codex.model.enqueue(ModelStep.callTool("exec_command",
                        Map.of("cmd", "printf 'nope\\n' | tee nope.txt", "login", false)),
                ModelStep.reply("ok, not doing it"));
        try (CodexClient client = codex.client(b -> { })) {   // no handler: the safe default declines
            TurnResult result = client.startThread(codex.threadParams().build()).startTurn("write a file")
                    .await(TURN);
            assertThat(result.itemsOf(ThreadItem.CommandExecution.class)).singleElement()
                    .satisfies(c -> assertThat(c.status()).isEqualTo(CommandExecutionStatus.DECLINED));
            assertThat(codex.workspace.resolve("nope.txt")).doesNotExist();
        }
    }

    @Test
    void fileChangeApprovalAppliesThePatch() {
        codex.model.enqueue(ModelStep.applyPatch(ModelStep.addFilePatch("hello.txt", "hi from a patch\n")),
                ModelStep.reply("patched"));
        try (CodexClient client = codex.client(b -> b.fileChangeApprovals(ApprovalPolicy.acceptAll()))) {
            TurnResult result = client.startThread(codex.threadParams().build()).startTurn("add a file")
                    .await(TURN);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(result.itemsOf(ThreadItem.FileChange.class)).isNotEmpty();
            assertThat(codex.workspace.resolve("hello.txt")).hasContent("hi from a patch");
        }
    }

    record LookupTicket(String id) {
    }

    @Test
    void dynamicToolResultReachesTheModel() throws Exception {
        codex.model.enqueue(ModelStep.callTool("lookup_ticket", Map.of("id", "ABC-123")),
                ModelStep.reply("The ticket is open."));
        List<String> calls = new CopyOnWriteArrayList<>();
        try (CodexClient client = codex.client(b -> b.experimentalApi(true).tool(DynamicTool.of("lookup_ticket",
                "Look up a ticket by id", LookupTicket.class, args -> {
                    calls.add(args.id());
                    return ToolResult.text("ticket " + args.id() + " is OPEN (prio 2)");
                })))) {
            TurnResult result = client.startThread(codex.threadParams().build()).startTurn("check ABC-123")
                    .await(TURN);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(calls).containsExactly("ABC-123");
            ModelRequest second = codex.model.requests().get(1);
            assertThat(second.functionCallOutputs().values()).anySatisfy(out ->
                    assertThat(out).contains("ticket ABC-123 is OPEN (prio 2)"));
            assertThat(codex.model.requests().get(0).tools()).contains("lookup_ticket");
        }
    }

    record Verdict(boolean safe, List<String> risks) {
    }

    @Test
    void structuredOutputParsesIntoARecord() {
        codex.model.enqueue(ModelStep.json(Map.of("safe", false, "risks", List.of("deletes files", "no tests"))));
        try (CodexClient client = codex.client(b -> { })) {
            Verdict v = client.startThread(codex.threadParams().build()).startTurn("Is it safe?", Verdict.class)
                    .await(TURN);
            assertThat(v).isEqualTo(new Verdict(false, List.of("deletes files", "no tests")));
            assertThat(codex.model.requests().get(0).textFormat()).hasValueSatisfying(f ->
                    assertThat(f.toString()).contains("risks"));
        }
    }

    @Test
    void httpFailureFailsTheTurnWithTheServersError() {
        codex.model.enqueue(ModelStep.fail(500, "boom"));
        try (CodexClient client = codex.client(b -> { })) {
            TurnResult result = client.startThread(codex.threadParams().build()).startTurn("fail please")
                    .await(TURN);
            assertThat(result.status()).isEqualTo(TurnStatus.FAILED);
            assertThat(result.error()).hasValueSatisfying(e -> assertThat(e.message()).isNotBlank());
            org.assertj.core.api.Assertions.assertThatThrownBy(result::orThrow)
                    .isInstanceOf(dev.codexclient.errors.CodexTurnFailedException.class);
        }
    }

    @Test
    void interruptSettlesTheTurnAsInterrupted() throws Exception {
        codex.model.enqueue(ModelStep.stall(Duration.ofSeconds(30)));
        try (CodexClient client = codex.client(b -> { })) {
            CodexTurn turn = client.startThread(codex.threadParams().build()).startTurn("take your time");
            List<ServerNotification> events = new CopyOnWriteArrayList<>();
            turn.onEvent(events::add);
            assertThat(codex.model.takeRequest(Duration.ofSeconds(10))).isPresent();
            TurnResult result = turn.interruptAsync().join();
            assertThat(result.status()).isEqualTo(TurnStatus.INTERRUPTED);
            assertThat(result.stalled()).isFalse();
            assertThat(events).anyMatch(e -> e instanceof ServerNotification.TurnCompleted);
        }
    }

    @Test
    void killingTheServerFailsPendingWorkWithATypedException() throws Exception {
        codex.model.enqueue(ModelStep.stall(Duration.ofSeconds(30)));
        CodexClient client = codex.client(b -> { });
        try {
            CodexTurn turn = client.startThread(codex.threadParams().build()).startTurn("hang");
            ProcessHandle server = ProcessHandle.current().children().findFirst().orElseThrow();
            server.descendants().forEach(ProcessHandle::destroyForcibly);
            server.destroyForcibly();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> turn.await(Duration.ofSeconds(15)))
                    .isInstanceOf(CodexTransportException.class);
            assertThat(client.isClosed()).isTrue();
        } finally {
            client.close();
        }
    }
}

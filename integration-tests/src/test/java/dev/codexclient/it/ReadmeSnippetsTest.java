package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClient;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.CurrentTimeReadResponse;
import dev.codexclient.protocol.ServerRequestMethods;
import dev.codexclient.protocol.ToolRequestUserInputParams;
import dev.codexclient.protocol.ToolRequestUserInputResponse;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import dev.codexclient.testkit.WireRecorder;
import dev.codexclient.transport.Transport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The code of README.md, compiled and run, so the README never lies. Keep the two in sync. */
@ExtendWith(CodexTestExtension.class)
class ReadmeSnippetsTest {

    record LookupTicket(String id) {
    }

    @Test
    void handlersSnippetBuilds(FakeCodexAppServer fake) {
        Map<String, String> tickets = Map.of("ABC-123", "open");
        try (CodexClient codex = CodexClient.builder()
                .transport(fake.connectInMemory())
                .approvals(ApprovalPolicy.sync(request -> request instanceof ApprovalRequest.Command c
                        && "pwd".equals(c.params().command())
                        ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE))
                .onFileChangeApproval(change -> CompletableFuture.supplyAsync(() -> askReviewer(change)))
                .onUserInput(req -> CompletableFuture.supplyAsync(() -> askSomeone(req)))
                .onServerRequest(ServerRequestMethods.CURRENT_TIME_READ, req -> CompletableFuture.completedFuture(
                        CurrentTimeReadResponse.builder().currentTimeAt(42L).build()))
                .experimentalApi(true)
                .tool(DynamicTool.of("lookup_ticket", "Look up a ticket by id", LookupTicket.class,
                        args -> ToolResult.text(tickets.get(args.id()))))
                .build()) {
            fake.onTurnStart(turn -> turn
                    .commandApproval("pwd", reply -> assertThat(reply.decision()).contains("accept"))
                    .commandApproval("pwd; rm -rf ~", reply -> assertThat(reply.decision()).contains("decline"))
                    .fileChangeApproval("NOTES.md", "+notes\n", reply -> assertThat(reply.decision())
                            .contains("acceptForSession"))
                    .commandApproval("rm -rf /", reply -> assertThat(reply.decision()).contains("decline"))
                    .toolCall("lookup_ticket", Map.of("id", "ABC-123"), reply ->
                            assertThat(reply.result().toString()).contains("open"))
                    .completed());
            assertThat(codex.startThread().startTurn("go").await(Duration.ofSeconds(10)).status())
                    .isEqualTo(TurnStatus.COMPLETED);
        }
    }

    private static ApprovalDecision askReviewer(ApprovalRequest.FileChange change) {
        return ApprovalDecision.ACCEPT_FOR_SESSION;
    }

    private static ToolRequestUserInputResponse askSomeone(ToolRequestUserInputParams req) {
        return ToolRequestUserInputResponse.builder().answers(Map.of()).build();
    }

    @Test
    void declines(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn
                .commandApproval("rm -rf /", reply -> assertThat(reply.decision()).contains("decline"))
                .agentMessage("Not deleting anything.")
                .completed());
        try (CodexClient codex = CodexClient.builder().transport(fake.connectInMemory()).build()) {
            TurnResult r = codex.startThread().startTurn("clean up").await(Duration.ofSeconds(10));
            assertThat(r.status()).isEqualTo(TurnStatus.COMPLETED);
        }
        assertThat(fake.takeRequest("turn/start", Duration.ofSeconds(1)).params().path("input")).isNotEmpty();
    }

    @Test
    void closingSnippetRuns(FakeCodexAppServer fake) throws Exception {
        CompletableFuture<Long> exited = new CompletableFuture<>();
        long pid;
        try (CodexClient codex = CodexClient.builder()
                .command(fake.childProcessCommand())            // the README spawns codex from the PATH
                .closeTimeout(Duration.ofSeconds(2))
                .build()) {
            ProcessHandle server = codex.serverProcess().orElseThrow();
            server.onExit().thenRun(() -> exited.complete(server.pid()));
            pid = server.pid();
        }
        assertThat(exited.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(pid);
    }

    @Test
    void survivingCrashesSnippetRuns(FakeCodexAppServer fake) throws Exception {
        fake.enqueueTurn(t -> t.pause(Duration.ofSeconds(30)).completed());
        CodexClient codex = CodexClient.builder()
                .command(fake.childProcessCommand())            // the README spawns codex from the PATH
                .restartPolicy(dev.codexclient.RestartPolicy.builder()
                        .maxAttempts(5)                                             // per outage
                        .backoff(Duration.ofMillis(200), Duration.ofSeconds(10))    // doubling, jittered
                        .budget(20, Duration.ofMinutes(10))                         // attempts in any ten minutes
                        .build())
                .build();
        try {
            dev.codexclient.CodexThread thread = codex.startThread();
            dev.codexclient.CodexTurn turn = thread.startTurn("work");
            codex.serverProcess().orElseThrow().destroyForcibly();        // the server dies under the turn
            boolean restarted = false;
            try {
                turn.await(Duration.ofMinutes(10));
            } catch (dev.codexclient.errors.CodexServerRestartedException e) {  // the server died under this turn
                restarted = true;
                TurnResult again = thread.startTurn("Go on where you stopped")  // same handle, on the new server
                        .await(Duration.ofSeconds(30));
                assertThat(again.status()).isEqualTo(TurnStatus.COMPLETED);
            }
            assertThat(restarted).isTrue();
        } finally {
            codex.close();
        }

        try (dev.codexclient.pool.CodexPool pool = dev.codexclient.pool.CodexPool.builder()
                .spawned(3, () -> CodexClient.builder().command(fake.childProcessCommand())
                        .restartPolicy(dev.codexclient.RestartPolicy.defaults()))
                .maxTurnsPerMember(4).maxQueuedTurnsPerMember(32)          // beyond: CodexPoolRejectedException
                .build()) {
            TurnResult r = pool.startThread().startTurn("Summarise README.md").await(Duration.ofMinutes(5));
            assertThat(r.status()).isEqualTo(TurnStatus.COMPLETED);
        }
    }

    @Test
    @Tag("real-codex")
    void realCodexOffline() throws Exception {
        // The README says CodexBinary.pinned(); CI may point at a preinstalled binary of the same version instead.
        Path binary = RealCodexFixture.binary();
        try (ScriptedModelServer model = ScriptedModelServer.start();
             CodexClient codex = CodexClient.builder()
                     .codexBinary(binary)
                     .stdio(model::applyEnvironment)        // a private HOME and CODEX_HOME pointing codex at the model
                     .onCommandApproval(ApprovalPolicy.acceptAll())
                     .build()) {
            model.enqueue(ModelStep.exec("ls"), ModelStep.reply("Listed."));
            TurnResult r = codex.startThread().startTurn("list files").await(Duration.ofSeconds(30));
            assertThat(r.finalText()).isEqualTo("Listed.");
            assertThat(model.requests().get(1).functionCallOutputs()).isNotEmpty();
        }
    }

    @Test
    void recordAndReplay(@TempDir Path dir, FakeCodexAppServer live) throws Exception {
        Path incident = dir.resolve("incident.jsonl");
        live.onTurnStart(turn -> turn.agentMessage("as in production").completed());
        Transport recorded = WireRecorder.wrap(live.connectInMemory(), incident);
        try (CodexClient codex = CodexClient.builder().transport(recorded).build()) {
            codex.startThread().startTurn("reproduce").await(Duration.ofSeconds(10));
        }
        assertThat(Files.readAllLines(incident)).isNotEmpty();

        try (FakeCodexAppServer replay = FakeCodexAppServer.replay(incident);
             CodexClient codex = CodexClient.builder().transport(replay.connectInMemory()).build()) {
            TurnResult r = codex.startThread().startTurn("reproduce").await(Duration.ofSeconds(10));
            assertThat(r.finalText()).isEqualTo("as in production");
        }
    }

    @Test
    void threading(FakeCodexAppServer fake) throws Exception {
        fake.onTurnStart(t -> t.agentMessage("done").completed());
        try (CodexClient codex = CodexClient.builder().transport(fake.connectInMemory()).build()) {
            dev.codexclient.CodexThread thread = codex.startThread();
            CompletableFuture<String> changelog = new CompletableFuture<>();
            // README "Threading", with the println replaced by something the test can wait for.
            java.util.concurrent.atomic.AtomicBoolean chained = new java.util.concurrent.atomic.AtomicBoolean();
            thread.onEvent(n -> {
                if (n instanceof dev.codexclient.protocol.ServerNotification.TurnCompleted
                        && chained.compareAndSet(false, true)) {
                    dev.codexclient.CodexTurn next = thread.startTurn("Now write the changelog");
                    next.result().thenAccept(r -> changelog.complete(r.finalText()));
                }
            });
            thread.startTurn("Fix the tests");
            assertThat(changelog.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("done");
        }
    }
}

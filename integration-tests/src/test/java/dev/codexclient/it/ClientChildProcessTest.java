package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.childProcess;
import static dev.codexclient.it.ClientTestSupport.failureOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.ModelListParams;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.Fault;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The client driving the fake as a real child process over stdio pipes. */
@ExtendWith(CodexTestExtension.class)
class ClientChildProcessTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    record AddArgs(int a, int b) {
    }

    @Test
    void fullTurnOverRealStdio(FakeCodexAppServer fake) {
        List<String> replies = new CopyOnWriteArrayList<>();
        fake.onTurnStart(turn -> turn
                .commandApproval("make test", r -> replies.add(r.decision().orElse("")))
                .toolCall("add", Map.of("a", 40, "b", 2), r -> replies.add(r.result().path("contentItems")
                        .get(0).path("text").asText()))
                .agentMessage("Tests pass; the answer is 42.")
                .tokenUsage(500, 40)
                .completed());
        Set<Long> before = children();
        try (CodexClient client = childProcess(fake).experimentalApi(true)
                .approvals(ApprovalPolicy.acceptAll())
                .tool(DynamicTool.of("add", "Adds", AddArgs.class, a -> ToolResult.text("" + (a.a() + a.b()))))
                .build()) {
            Set<Long> spawned = children();
            spawned.removeAll(before);
            assertThat(spawned).hasSize(1);
            assertThat(client.serverInfo().userAgent()).hasValueSatisfying(a -> assertThat(a).startsWith("codex_fake/"));

            CodexThread thread = client.startThread();
            TurnResult result = thread.startTurn("run the tests").await(WAIT);
            assertThat(result.isCompleted()).isTrue();
            assertThat(result.finalText()).isEqualTo("Tests pass; the answer is 42.");
            assertThat(result.itemsOf(ThreadItem.CommandExecution.class)).singleElement()
                    .satisfies(c -> assertThat(c.command()).isEqualTo("make test"));
            assertThat(result.usage()).hasValueSatisfying(u -> assertThat(u.last().inputTokens()).isEqualTo(500));
            assertThat(replies).containsExactly("accept", "42");
            assertThat(fake.takeRequest("turn/start", WAIT).params().path("input").get(0).path("text").asText())
                    .isEqualTo("run the tests");
            client.close();
            long pid = spawned.iterator().next();
            awaitCondition("the child process exits", () -> ProcessHandle.of(pid).map(p -> !p.isAlive())
                    .orElse(true));
        }
    }

    @Test
    void stderrFloodDoesNotBlockTheChildAndTheTailIsReported(FakeCodexAppServer fake) {
        try (CodexClient client = childProcess(fake).build()) {
            fake.apply(Fault.floodStderr(4 * 1024 * 1024));
            // The child writes 4 MB of logs; the client keeps draining them and the connection stays responsive.
            for (int i = 0; i < 3; i++) {
                assertThat(client.startThread().id()).isNotBlank();
            }
            fake.on("model/list").fault(Fault.exit(5));
            Throwable failure = failureOf(client.rpc().modelList(ModelListParams.builder().build()), WAIT);
            assertThat(failure).isInstanceOfSatisfying(CodexTransportException.class, e -> {
                assertThat(e.exitCode()).hasValue(5);
                assertThat(e.stderrTail()).isNotBlank();
                assertThat(e.stderrTail().length()).isLessThan(1024 * 1024);
            });
        }
    }

    @Test
    void missingExecutableIsAClearTypedError() {
        Path missing = Path.of("/nonexistent/bin/codex-missing");
        assertThatThrownBy(() -> CodexClient.builder().codexBinary(missing).build())
                .isInstanceOf(CodexTransportException.class)
                .hasMessageContaining("codex-missing");
    }

    private static Set<Long> children() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
                .collect(Collectors.toSet());
    }
}

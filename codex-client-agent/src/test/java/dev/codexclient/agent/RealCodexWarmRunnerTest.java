package dev.codexclient.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.testkit.ModelRequest;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import dev.codexclient.agent.workspace.Workspace;
import dev.codexclient.agent.workspace.HostMount;

/**
 * A runner keeping one warm client between runs, on the real codex: each run's thread has the run's own tools and
 * approval policy on the shared server (codex declares dynamic tools per thread), concurrent runs included; a budget
 * on a resumed thread counts the run's tokens only; a server that ended is replaced.
 */
@Tag("real-codex")
@Timeout(180)
class RealCodexWarmRunnerTest {
    @TempDir
    Path tmp;
    ScriptedModelServer model;
    final AtomicInteger clientsBuilt = new AtomicInteger();

    record Query(String q) {
    }

    @BeforeEach
    void setUp() throws IOException {
        model = ScriptedModelServer.start();
        Files.createDirectories(tmp.resolve("repo"));
        Files.writeString(tmp.resolve("repo/README.md"), "hello\n");
    }

    @AfterEach
    void tearDown() {
        model.close();
    }

    private AgentRunner warmRunner() {
        Path codex = TestCodex.binary();
        return AgentRunner.builder().warmClient(true)
                .client(() -> {
                    clientsBuilt.incrementAndGet();
                    return CodexClient.builder().codexBinary(codex).workingDirectory(tmp)
                            .stdio(model::applyEnvironment).requestTimeout(Duration.ofSeconds(30))
                            .interruptGracePeriod(Duration.ofSeconds(10));
                })
                .build();
    }

    private Workspace workspace() {
        return Workspace.builder().parentDirectory(tmp.resolve("ws")).allowedRoot(tmp)
                .mount(HostMount.of(tmp.resolve("repo"), "repo")).build();
    }

    private static DynamicTool tool(String name) {
        return DynamicTool.of(name, "Answers from " + name, Query.class, q -> ToolResult.text(name + " says " + q.q()));
    }

    @Test
    void concurrentRunsOnOneServerEachSeeOnlyTheirOwnTools() throws Exception {
        model.when(r -> r.lastUserText().equals("alpha job"), ModelStep.callTool("alpha", new Query("a")),
                ModelStep.reply("alpha done"));
        model.when(r -> r.lastUserText().equals("beta job"), ModelStep.callTool("beta", new Query("b")),
                ModelStep.reply("beta done"));
        try (AgentRunner runner = warmRunner(); Workspace a = workspace(); Workspace b = workspace()) {
            CompletableFuture<AgentResult<Void>> first = CompletableFuture.supplyAsync(() ->
                    runner.run(AgentRun.builder("alpha job").workspace(a).tool(tool("alpha")).build()));
            CompletableFuture<AgentResult<Void>> second = CompletableFuture.supplyAsync(() ->
                    runner.run(AgentRun.builder("beta job").workspace(b).tool(tool("beta")).build()));
            assertThat(first.get(120, TimeUnit.SECONDS).text()).isEqualTo("alpha done");
            assertThat(second.get(120, TimeUnit.SECONDS).text()).isEqualTo("beta done");
        }
        assertThat(clientsBuilt).hasValue(1);
        for (ModelRequest r : model.requests()) {
            if (r.lastUserText().equals("alpha job")) {
                assertThat(r.tools()).contains("alpha").doesNotContain("beta");
            } else {
                assertThat(r.tools()).contains("beta").doesNotContain("alpha");
            }
        }
        // Each call was answered by its own run's tool.
        assertThat(model.requests()).anySatisfy(r -> assertThat(r.functionCallOutputs().values())
                .containsExactly("alpha says a"));
        assertThat(model.requests()).anySatisfy(r -> assertThat(r.functionCallOutputs().values())
                .containsExactly("beta says b"));
    }

    @Test
    void eachRunsApprovalPolicyAnswersItsOwnThread() {
        model.when(r -> r.lastUserText().equals("allowed"), ModelStep.exec("echo yes | tee allowed.txt"),
                ModelStep.reply("ok"));
        model.when(r -> r.lastUserText().equals("refused"), ModelStep.exec("echo no | tee refused.txt"),
                ModelStep.reply("ok"));
        try (AgentRunner runner = warmRunner(); Workspace ws = workspace()) {
            AgentResult<Void> accepted = runner.run(AgentRun.builder("allowed").workspace(ws)
                    .askForApproval(dev.codexclient.protocol.AskForApproval.Simple.UNTRUSTED)
                    .approvals(ApprovalPolicy.acceptAll()).build());
            AgentResult<Void> declined = runner.run(AgentRun.builder("refused").workspace(ws)
                    .askForApproval(dev.codexclient.protocol.AskForApproval.Simple.UNTRUSTED)
                    .approvals(ApprovalPolicy.declineAll()).build());
            assertThat(accepted.invocations()).singleElement()
                    .satisfies(i -> assertThat(i.outcome()).isEqualTo(ToolInvocation.Outcome.COMPLETED));
            assertThat(declined.invocations()).singleElement()
                    .satisfies(i -> assertThat(i.outcome()).isEqualTo(ToolInvocation.Outcome.DECLINED));
            assertThat(ws.directory().resolve("allowed.txt")).exists();
            assertThat(ws.directory().resolve("refused.txt")).doesNotExist();
        }
        assertThat(clientsBuilt).hasValue(1);
    }

    @Test
    void aBudgetOnAResumedThreadCountsTheRunsTokensOnly() {
        model.enqueue(ModelStep.reply("one").withUsage(5_000, 100),
                ModelStep.reply("two").withUsage(500, 100),
                ModelStep.reply("three").withUsage(500, 100));
        try (AgentRunner runner = warmRunner(); Workspace ws = workspace()) {
            AgentResult<Void> first = runner.run(AgentRun.builder("start").workspace(ws).sessionKey("k").build());
            // The thread has 5,100 tokens; this run's budget of 1,000 holds its own 600.
            AgentResult<Void> second = runner.run(AgentRun.builder("go on").workspace(ws).sessionKey("k")
                    .budget(TokenBudget.ofTotal(1_000)).build());
            assertThat(second.resumed()).isTrue();
            assertThat(second.threadId()).isEqualTo(first.threadId());
            assertThat(second.usage().totalTokens()).isEqualTo(600);
            assertThat(second.threadUsage().totalTokens()).isEqualTo(5_700);
            // A budget of 500 is crossed by the run's 600, not by the thread's 6,300.
            assertThatThrownBy(() -> runner.run(AgentRun.builder("and more").workspace(ws).sessionKey("k")
                    .budget(TokenBudget.ofTotal(500)).build()))
                    .isInstanceOfSatisfying(AgentBudgetExceededException.class, e -> {
                        assertThat(e.limit()).isEqualTo(AgentBudgetExceededException.Limit.TOTAL_TOKENS);
                        assertThat(e.tokenLimit()).hasValue(500);
                        assertThat(e.usage()).hasValueSatisfying(u -> assertThat(u.totalTokens()).isEqualTo(600));
                    });
        }
        assertThat(clientsBuilt).hasValue(1);
    }

    @Test
    void aWarmServerThatEndedIsReplacedAndCloseEndsTheLastOne() throws Exception {
        model.enqueue(ModelStep.reply("one"), ModelStep.reply("two"));
        AgentRunner runner = warmRunner();
        try (Workspace ws = workspace()) {
            runner.run(AgentRun.builder("first").workspace(ws).build());
            List<ProcessHandle> servers = codexChildren();
            assertThat(servers).isNotEmpty();
            servers.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle p : servers) {
                p.onExit().get(30, TimeUnit.SECONDS);
            }
            assertThat(runner.run(AgentRun.builder("second").workspace(ws).build()).text()).isEqualTo("two");
            assertThat(clientsBuilt).hasValue(2);
            List<ProcessHandle> second = codexChildren();
            runner.close();
            for (ProcessHandle p : second) {
                p.onExit().get(30, TimeUnit.SECONDS);
            }
            assertThat(codexChildren()).isEmpty();
            assertThatThrownBy(() -> runner.run(AgentRun.builder("third").workspace(ws).build()))
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    private static List<ProcessHandle> codexChildren() {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().commandLine().orElse("").contains("codex")).toList();
    }
}

package dev.codexclient.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ExtensionTelemetry;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import dev.codexclient.agent.workspace.Workspace;
import dev.codexclient.agent.workspace.HostMount;
import dev.codexclient.agent.session.SessionEntry;
import dev.codexclient.agent.session.SessionStore;

/** Agent runs against the real codex app-server, driven offline by a scripted model. */
@Tag("real-codex")
@Timeout(120)
class RealCodexAgentTest {
    @TempDir
    Path tmp;
    Path repo;
    ScriptedModelServer model;
    final List<ExtensionTelemetry> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        model = ScriptedModelServer.start();
        repo = tmp.resolve("repo");
        Files.createDirectories(repo.resolve("src"));
        Files.writeString(repo.resolve("src/Main.java"), "class Main {}\n");
    }

    @AfterEach
    void tearDown() {
        model.close();
    }

    private AgentRunner.Builder runner() {
        Path codex = TestCodex.binary();
        // The client is spawned outside the workspace: the thread's directory is what codex works in.
        return AgentRunner.builder()
                .client(() -> CodexClient.builder()
                        .codexBinary(codex)
                        .workingDirectory(tmp)
                        .stdio(model::applyEnvironment)
                        .requestTimeout(Duration.ofSeconds(30))
                        .interruptGracePeriod(Duration.ofSeconds(10))
                        .telemetryListener(new CodexTelemetryListener() {
                            @Override
                            public void extensionTelemetry(ExtensionTelemetry event) {
                                events.add(event);
                            }
                        }));
    }

    private Workspace workspace() {
        return Workspace.builder().parentDirectory(tmp.resolve("workspaces")).allowedRoot(repo)
                .mount(HostMount.of(repo, "repo")).build();
    }

    @Test
    void theModelWritesAFileInsideTheWorkspaceAndTheHostIsUntouched() throws IOException {
        model.enqueue(ModelStep.applyPatch(ModelStep.addFilePatch("repo/NOTES.md", "written by the model\n")),
                ModelStep.reply("I wrote the notes.").withUsage(200, 20));
        try (Workspace ws = workspace()) {
            AgentResult<Void> result = runner().build().run(AgentRun.builder("Write notes")
                    .workspace(ws).approvals(ApprovalPolicy.acceptAll()).build());
            assertThat(result.text()).isEqualTo("I wrote the notes.");
            assertThat(Files.readString(ws.directory().resolve("repo/NOTES.md"))).isEqualTo("written by the model\n");
            assertThat(repo.resolve("NOTES.md")).doesNotExist();
            assertThat(result.invocations()).anySatisfy(i -> {
                assertThat(i.kind()).isEqualTo(ToolInvocation.Kind.FILE_CHANGE);
                assertThat(i.outcome()).isEqualTo(ToolInvocation.Outcome.COMPLETED);
            });
            assertThat(result.usage().totalTokens()).isPositive();
            assertThat(events).hasAtLeastOneElementOfType(AgentRunTelemetry.Started.class)
                    .anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(AgentRunTelemetry.ToolInvoked.class,
                            t -> assertThat(t.kind()).isEqualTo(ToolInvocation.Kind.FILE_CHANGE)))
                    .last().isInstanceOfSatisfying(AgentRunTelemetry.Completed.class, c -> {
                        assertThat(c.failure()).isEmpty();
                        assertThat(c.usage()).isEqualTo(result.usage());
                        assertThat(c.threadId()).contains(result.threadId());
                    });
        }
    }

    @Test
    void aSecondRunWithTheSameKeyResumesTheThreadAndAChangedMountStartsANewOne() throws IOException {
        model.enqueue(ModelStep.reply("first answer").withUsage(100, 10),
                ModelStep.reply("second answer").withUsage(150, 10),
                ModelStep.reply("third answer").withUsage(50, 5));
        AgentRunner runner = runner().sessions(SessionStore.inDirectory(tmp.resolve("sessions"))).build();
        try (Workspace ws = workspace()) {
            AgentResult<Void> first = runner.run(AgentRun.builder("remember the word PELICAN")
                    .workspace(ws).sessionKey("review-1").build());
            AgentResult<Void> second = runner.run(AgentRun.builder("which word?")
                    .workspace(ws).sessionKey("review-1").build());
            assertThat(first.resumed()).isFalse();
            assertThat(second.resumed()).isTrue();
            assertThat(second.threadId()).isEqualTo(first.threadId());
            // The model sees the first turn in the second's input.
            String secondInput = model.requests().get(1).input().toString();
            assertThat(secondInput).contains("remember the word PELICAN").contains("first answer");
            // The run's usage is its own; the thread's covers both.
            assertThat(second.usage().inputTokens()).isEqualTo(150);
            assertThat(second.threadUsage().inputTokens()).isEqualTo(250);
        }
        Files.writeString(repo.resolve("src/Other.java"), "class Other {}\n");
        try (Workspace changed = workspace()) {
            AgentResult<Void> third = runner.run(AgentRun.builder("and now?")
                    .workspace(changed).sessionKey("review-1").build());
            assertThat(third.resumed()).isFalse();
            assertThat(model.requests().get(2).input().toString()).doesNotContain("PELICAN");
            assertThat(runner.sessions().load("review-1")).hasValueSatisfying(e -> {
                assertThat(e.threadId()).isEqualTo(third.threadId());
                assertThat(e.fingerprint()).isEqualTo(changed.fingerprint());
                assertThat(e.codexVersion()).isEqualTo(TestCodex.pinnedVersion().orElse(e.codexVersion()))
                        .isNotEmpty();
            });
        }
    }

    @Test
    void aStoredThreadThatCannotBeResumedIsReplacedByANewOne() {
        model.enqueue(ModelStep.reply("fresh").withUsage(10, 1));
        AgentRunner runner = runner().build();
        try (Workspace ws = workspace()) {
            runner.sessions().save("k", new SessionEntry("00000000-0000-0000-0000-000000000000", "",
                    ws.fingerprint(), ""));
            AgentResult<Void> result = runner.run(AgentRun.builder("hi").workspace(ws).sessionKey("k").build());
            assertThat(result.resumed()).isFalse();
            assertThat(runner.sessions().load("k").orElseThrow().threadId()).isEqualTo(result.threadId());
        }
    }

    @Test
    void anEphemeralRunStoresNothing() {
        model.enqueue(ModelStep.reply("gone").withUsage(10, 1));
        AgentRunner runner = runner().build();
        try (Workspace ws = workspace()) {
            AgentResult<Void> result = runner.run(AgentRun.builder("hi").workspace(ws).sessionKey("k").ephemeral()
                    .build());
            assertThat(result.text()).isEqualTo("gone");
            assertThat(runner.sessions().load("k")).isEmpty();
        }
    }

    @Test
    void aBudgetCrossedMidRunInterruptsTheTurnAndEndsTyped() {
        model.enqueue(ModelStep.exec("echo step").withUsage(5_000, 100),
                ModelStep.stall(Duration.ofSeconds(90)));
        try (Workspace ws = workspace()) {
            AgentRunner runner = runner().interruptWait(Duration.ofSeconds(20)).build();
            long start = System.nanoTime();
            assertThatThrownBy(() -> runner.run(AgentRun.builder("work hard").workspace(ws)
                    .budget(TokenBudget.ofTotal(1_000)).approvals(ApprovalPolicy.acceptAll()).build()))
                    .isInstanceOfSatisfying(AgentBudgetExceededException.class, e -> {
                        assertThat(e.phase()).isEqualTo(FailurePhase.BUDGET);
                        assertThat(e.limit()).isEqualTo(AgentBudgetExceededException.Limit.TOTAL_TOKENS);
                        assertThat(e.usage()).hasValueSatisfying(u -> assertThat(u.totalTokens()).isEqualTo(5_100));
                        assertThat(e.threadId()).isPresent();
                    });
            // Far less than the stall: the turn was interrupted, not waited out.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));
            assertThat(events).last().isInstanceOfSatisfying(AgentRunTelemetry.Completed.class,
                    c -> assertThat(c.failure()).contains(FailurePhase.BUDGET));
        }
    }

    @Test
    void aDeadlinePassedMidRunInterruptsTheTurnAndEndsTyped() {
        model.enqueue(ModelStep.stall(Duration.ofSeconds(90)));
        try (Workspace ws = workspace()) {
            AgentRunner runner = runner().build();
            assertThatThrownBy(() -> runner.run(AgentRun.builder("take long").workspace(ws)
                    .timeout(Duration.ofSeconds(3)).build()))
                    .isInstanceOfSatisfying(AgentBudgetExceededException.class,
                            e -> assertThat(e.limit()).isEqualTo(AgentBudgetExceededException.Limit.DEADLINE));
        }
    }

    record Ticket(String id) {
    }

    @Test
    void aDynamicToolAndCommandsAppearInTheInvocations() {
        model.enqueue(ModelStep.callTool("lookup_ticket", new Ticket("T-7")),
                ModelStep.exec("echo hello"),
                ModelStep.exec("exit 3"),
                ModelStep.reply("all done"));
        try (Workspace ws = workspace()) {
            AgentResult<Void> result = runner().build().run(AgentRun.builder("check the ticket").workspace(ws)
                    .tool(DynamicTool.of("lookup_ticket", "Looks a ticket up", Ticket.class,
                            t -> ToolResult.text("ticket " + t.id() + " is open")))
                    .approvals(ApprovalPolicy.acceptAll()).build());
            assertThat(result.text()).isEqualTo("all done");
            List<ToolInvocation> inv = result.invocations();
            assertThat(inv).extracting(ToolInvocation::kind).containsExactly(ToolInvocation.Kind.DYNAMIC_TOOL,
                    ToolInvocation.Kind.COMMAND, ToolInvocation.Kind.COMMAND);
            assertThat(inv.get(0).name()).isEqualTo("lookup_ticket");
            assertThat(inv.get(0).arguments().path("id").asText()).isEqualTo("T-7");
            assertThat(inv.get(0).outcome()).isEqualTo(ToolInvocation.Outcome.COMPLETED);
            assertThat(inv.get(1).name()).contains("echo hello");
            assertThat(inv.get(1).outcome()).isEqualTo(ToolInvocation.Outcome.COMPLETED);
            assertThat(inv.get(2).outcome()).isEqualTo(ToolInvocation.Outcome.FAILED);
            assertThat(inv.get(2).detail()).contains("exit code 3");
            assertThat(model.requests().get(1).functionCallOutputs().values())
                    .anySatisfy(o -> assertThat(o).contains("ticket T-7 is open"));
        }
    }

    @Test
    void aToolThatThrowsFailsTheRunInTheToolPhase() {
        model.enqueue(ModelStep.callTool("lookup_ticket", new Ticket("T-8")),
                ModelStep.stall(Duration.ofSeconds(90)));
        try (Workspace ws = workspace()) {
            assertThatThrownBy(() -> runner().build().run(AgentRun.builder("check").workspace(ws)
                    .tool(DynamicTool.of("lookup_ticket", "Looks a ticket up", Ticket.class, t -> {
                        throw new IllegalStateException("ticket system down");
                    })).build()))
                    .isInstanceOfSatisfying(AgentRunException.class, e -> {
                        assertThat(e.phase()).isEqualTo(FailurePhase.TOOL);
                        assertThat(e.getCause()).hasMessage("ticket system down");
                    });
        }
    }

    record Verdict(boolean approve, String reason) {
    }

    @Test
    void structuredOutputIsParsedIntoTheOutputType() {
        model.enqueue(ModelStep.json(new Verdict(true, "looks fine")));
        try (Workspace ws = workspace()) {
            AgentResult<Verdict> result = runner().build().run(AgentRun.builder("review", Verdict.class).workspace(ws)
                    .build());
            assertThat(result.output()).contains(new Verdict(true, "looks fine"));
            assertThat(model.requests().get(0).textFormat()).isPresent();
        }
    }

    @Test
    void outputThatDoesNotParseFailsInTheResponsePhase() {
        model.enqueue(ModelStep.reply("not json at all"));
        try (Workspace ws = workspace()) {
            assertThatThrownBy(() -> runner().build().run(AgentRun.builder("review", Verdict.class).workspace(ws)
                    .build()))
                    .isInstanceOfSatisfying(AgentRunException.class,
                            e -> assertThat(e.phase()).isEqualTo(FailurePhase.RESPONSE));
        }
    }

    @Test
    void aFailedTurnKeepsTheTypedErrorInfoAndTheStderrTail() {
        model.enqueue(ModelStep.fail(500, "{\"error\":{\"message\":\"boom\"}}"));
        try (Workspace ws = workspace()) {
            assertThatThrownBy(() -> runner().build().run(AgentRun.builder("go").workspace(ws).build()))
                    .isInstanceOfSatisfying(AgentRunException.class, e -> {
                        assertThat(e.codexErrorInfo()).isPresent();
                        assertThat(e.phase()).isEqualTo(FailurePhase.of(e.codexErrorInfo().orElseThrow()));
                        assertThat(e.stderrTail().length()).isLessThanOrEqualTo(AgentRunException.STDERR_TAIL_CHARS);
                        assertThat(e.threadId()).isPresent();
                    });
        }
    }

    @Test
    void aDeclinedCommandIsReportedDeclined() {
        model.enqueue(ModelStep.exec("echo data | tee written.txt"), ModelStep.reply("ok"));
        try (Workspace ws = workspace()) {
            AgentResult<Void> result = runner().build().run(AgentRun.builder("write").workspace(ws)
                    .askForApproval(dev.codexclient.protocol.AskForApproval.Simple.UNTRUSTED).build());
            assertThat(result.invocations()).singleElement().satisfies(i -> {
                assertThat(i.kind()).isEqualTo(ToolInvocation.Kind.COMMAND);
                assertThat(i.outcome()).isEqualTo(ToolInvocation.Outcome.DECLINED);
            });
            assertThat(ws.directory().resolve("written.txt")).doesNotExist();
        }
    }

    @Test
    void mcpServersArePassedToCodexAsTheThreadsConfig() throws Exception {
        Path marker = tmp.resolve("mcp-started");
        Path script = tmp.resolve("mcp.sh");
        Files.writeString(script, "#!/bin/sh\necho \"$1 $MCP_FLAVOUR\" > " + marker + "\ncat > /dev/null\n");
        script.toFile().setExecutable(true);
        model.enqueue(ModelStep.reply("done"));
        try (Workspace ws = workspace()) {
            runner().build().run(AgentRun.builder("go").workspace(ws)
                    .mcpServer(McpServer.stdio("docs", script.toString(), List.of("--serve"),
                            java.util.Map.of("MCP_FLAVOUR", "vanilla")))
                    .build());
        }
        // Codex started the server with the given command, arguments and environment.
        assertThat(Files.readString(marker).trim()).isEqualTo("--serve vanilla");
    }
}

package dev.codexclient.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.protocol.CodexErrorInfo;
import dev.codexclient.protocol.TurnError;
import dev.codexclient.telemetry.TokenCounts;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.codexclient.agent.workspace.Workspace;
import dev.codexclient.agent.workspace.HostMount;
import dev.codexclient.agent.model.ModelConfig;

/** What a run decides before and after codex: deadlines, phases, model settings, run declarations. */
class AgentRunnerTest {
    private static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");

    @TempDir
    Path tmp;

    @Test
    void aDeadlineAlreadyPassedFailsBeforeAnythingStarts() {
        AtomicInteger spawned = new AtomicInteger();
        AgentRunner runner = AgentRunner.builder()
                .clock(Clock.fixed(NOW, ZoneOffset.UTC))
                .client(() -> {
                    spawned.incrementAndGet();
                    return dev.codexclient.CodexClient.builder();
                })
                .build();
        for (Instant deadline : List.of(NOW, NOW.minusSeconds(1))) {
            AgentRun<Void> run = AgentRun.builder("late").workingDirectory(tmp).deadline(deadline)
                    .sessionKey("k").build();
            assertThatThrownBy(() -> runner.run(run))
                    .isInstanceOfSatisfying(AgentBudgetExceededException.class, e -> {
                        assertThat(e.limit()).isEqualTo(AgentBudgetExceededException.Limit.DEADLINE);
                        assertThat(e.phase()).isEqualTo(FailurePhase.BUDGET);
                        assertThat(e.usage()).isEmpty();
                        assertThat(e.threadId()).isEmpty();
                    });
        }
        assertThat(spawned).hasValue(0);
        assertThat(runner.sessions().load("k")).isEmpty();
    }

    @Test
    void aClosedWorkspaceIsRefused() throws Exception {
        java.nio.file.Files.createDirectories(tmp.resolve("repo"));
        Workspace ws = Workspace.builder().parentDirectory(tmp.resolve("ws")).allowedRoot(tmp)
                .mount(HostMount.of(tmp.resolve("repo"), "repo")).build();
        ws.close();
        AgentRunner runner = AgentRunner.builder().client(() -> {
            throw new AssertionError("nothing may be spawned");
        }).build();
        assertThatThrownBy(() -> runner.run(AgentRun.builder("x").workspace(ws).build()))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void phasesFollowTheCodexErrorInfo() {
        ObjectMapper json = new ObjectMapper();
        Map<String, FailurePhase> table = Map.ofEntries(
                Map.entry("\"contextWindowExceeded\"", FailurePhase.RESPONSE),
                Map.entry("\"usageLimitExceeded\"", FailurePhase.BUDGET),
                Map.entry("{\"httpConnectionFailed\":{\"httpStatusCode\":502}}", FailurePhase.REQUEST),
                Map.entry("\"unauthorized\"", FailurePhase.REQUEST),
                Map.entry("\"badRequest\"", FailurePhase.REQUEST),
                Map.entry("\"sandboxError\"", FailurePhase.TOOL),
                Map.entry("{\"responseTooManyFailedAttempts\":{}}", FailurePhase.REQUEST),
                Map.entry("{\"responseStreamConnectionFailed\":{}}", FailurePhase.REQUEST),
                Map.entry("{\"responseStreamDisconnected\":{}}", FailurePhase.REQUEST),
                Map.entry("\"threadRollbackFailed\"", FailurePhase.RESPONSE),
                Map.entry("\"internalServerError\"", FailurePhase.RESPONSE),
                Map.entry("{\"modelCap\":{\"model\":\"m\",\"reset_after_seconds\":90}}", FailurePhase.BUDGET),
                Map.entry("\"other\"", FailurePhase.RESPONSE),
                Map.entry("\"somethingNewer\"", FailurePhase.RESPONSE),
                Map.entry("{\"somethingNewer\":{\"x\":1}}", FailurePhase.RESPONSE));
        table.forEach((wire, phase) -> {
            try {
                CodexErrorInfo info = json.readValue(wire, CodexErrorInfo.class);
                assertThat(FailurePhase.of(info)).as(wire).isEqualTo(phase);
            } catch (Exception e) {
                throw new AssertionError(wire, e);
            }
        });
    }

    @Test
    void aModelCapFailsTypedWithItsResetTime() throws Exception {
        CodexErrorInfo cap = new ObjectMapper().readValue(
                "{\"modelCap\":{\"model\":\"gpt\",\"reset_after_seconds\":90}}", CodexErrorInfo.class);
        TurnError error = new TurnError("details", cap, "capped", null);
        AgentRunException e = TurnFailures.of(Optional.of(error), "tail", new TokenCounts(1, 0, 1, 0, 2), true, "t",
                s -> s);
        assertThat(e).isInstanceOfSatisfying(AgentBudgetExceededException.class, b -> {
            assertThat(b.limit()).isEqualTo(AgentBudgetExceededException.Limit.MODEL_CAP);
            assertThat(b.resetAfter()).contains(Duration.ofSeconds(90));
        });
        assertThat(e.codexErrorInfo()).contains(cap);
        assertThat(e.additionalDetails()).contains("details");
        assertThat(e.usage()).hasValueSatisfying(u -> assertThat(u.totalTokens()).isEqualTo(2));
        assertThat(e.getMessage()).contains("capped").contains("modelCap").doesNotContain("gpt");
    }

    @Test
    void theStderrTailIsBounded() {
        String tail = "x".repeat(AgentRunException.STDERR_TAIL_CHARS) + "END";
        AgentRunException e = new AgentRunException(FailurePhase.REQUEST, "m", null, new AgentRunException.Details(
                Optional.empty(), Optional.empty(), tail, Optional.empty(), Optional.empty()));
        assertThat(e.stderrTail()).hasSize(AgentRunException.STDERR_TAIL_CHARS).endsWith("END");
    }

    @Test
    void unsupportedModelKnobsAreRejectedAtBuild() {
        for (String knob : List.of("seed", "stop", "presence_penalty", "frequency_penalty", "temperature")) {
            assertThatThrownBy(() -> ModelConfig.builder().option(knob, "1").build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not supported");
        }
        assertThatThrownBy(() -> ModelConfig.builder().option("colour", "red").build())
                .hasMessageContaining("unknown model setting");
        assertThatThrownBy(() -> ModelConfig.builder().option("effort", "enormous").build())
                .hasMessageContaining("unknown reasoning effort");
        ModelConfig config = ModelConfig.builder().option("model", "gpt-5.1-codex").option("effort", "medium")
                .option("summary", "concise").option("personality", "pragmatic").build();
        assertThat(config.model()).contains("gpt-5.1-codex");
        assertThat(config.effort()).contains(ModelConfig.Effort.MEDIUM);
        assertThat(config.summary().orElseThrow().asString()).isEqualTo("concise");
    }

    @Test
    void anMcpServerNamedLikeADynamicToolIsRefused() {
        DynamicTool tool = DynamicTool.ofJson("docs", "d", new ObjectMapper().createObjectNode(),
                a -> ToolResult.text("x"));
        assertThatThrownBy(() -> AgentRun.builder("x").workingDirectory(tmp).tool(tool)
                .mcpServer(McpServer.url("docs", URI.create("http://127.0.0.1:1/mcp"))).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("[docs]");
    }

    @Test
    void mcpServersBecomeConfigEntries() {
        assertThat(McpServer.stdio("s", "/bin/server", List.of("--flag"), Map.of("K", "V")).config().toString())
                .isEqualTo("{\"command\":\"/bin/server\",\"args\":[\"--flag\"],\"env\":{\"K\":\"V\"}}");
        assertThat(McpServer.url("u", URI.create("https://example.com/mcp")).config().toString())
                .isEqualTo("{\"url\":\"https://example.com/mcp\"}");
        assertThatThrownBy(() -> McpServer.url("u", URI.create("file:///x"))).isInstanceOf(
                IllegalArgumentException.class);
    }

    @Test
    void aRunNeedsExactlyOneDirectory() {
        assertThatThrownBy(() -> AgentRun.builder("x").build()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void budgetsCountTheRunOnly() {
        TokenBudget budget = TokenBudget.ofTotal(100).withInput(50).withOutput(20);
        assertThat(budget.crossedBy(new TokenCounts(50, 0, 20, 0, 70))).isEmpty();
        assertThat(budget.crossedBy(new TokenCounts(51, 0, 0, 0, 51)))
                .contains(AgentBudgetExceededException.Limit.INPUT_TOKENS);
        assertThat(budget.crossedBy(new TokenCounts(0, 0, 21, 0, 21)))
                .contains(AgentBudgetExceededException.Limit.OUTPUT_TOKENS);
        assertThat(budget.crossedBy(new TokenCounts(40, 0, 10, 0, 101)))
                .contains(AgentBudgetExceededException.Limit.TOTAL_TOKENS);
    }
}

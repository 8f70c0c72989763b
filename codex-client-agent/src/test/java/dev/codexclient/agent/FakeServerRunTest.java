package dev.codexclient.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ExtensionTelemetry;
import dev.codexclient.protocol.CodexErrorInfo;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Runs against the testkit's in-memory fake: failures by phase and the events of a run, without a codex. */
@Timeout(60)
class FakeServerRunTest {
    @TempDir
    Path dir;
    final FakeCodexAppServer fake = new FakeCodexAppServer();
    final List<ExtensionTelemetry> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        fake.close();
    }

    private AgentRunner runner() {
        return AgentRunner.builder().client(() -> CodexClient.builder().transport(fake.connectInMemory())
                .requestTimeout(Duration.ofSeconds(10))
                .interruptGracePeriod(Duration.ofSeconds(5))
                .telemetryListener(new CodexTelemetryListener() {
                    @Override
                    public void extensionTelemetry(ExtensionTelemetry event) {
                        events.add(event);
                    }
                })).build();
    }

    private AgentRun.Builder<Void> run() {
        return AgentRun.builder("go").workingDirectory(dir);
    }

    @Test
    void aRejectedThreadStartIsARequestFailure() {
        fake.on("thread/start").respondError(-32600, "no such model");
        assertThatThrownBy(() -> runner().run(run().build()))
                .isInstanceOfSatisfying(AgentRunException.class, e -> {
                    assertThat(e.phase()).isEqualTo(FailurePhase.REQUEST);
                    assertThat(e.getMessage()).contains("no such model");
                    assertThat(e.threadId()).isEmpty();
                });
        assertThat(events).singleElement().isInstanceOfSatisfying(AgentRunTelemetry.Completed.class,
                c -> assertThat(c.failure()).contains(FailurePhase.REQUEST));
    }

    @Test
    void aRejectedTurnStartIsARequestFailureWithTheThread() {
        fake.on("turn/start").respondError(-32600, "bad input");
        assertThatThrownBy(() -> runner().run(run().build()))
                .isInstanceOfSatisfying(AgentRunException.class, e -> {
                    assertThat(e.phase()).isEqualTo(FailurePhase.REQUEST);
                    assertThat(e.threadId()).isPresent();
                });
    }

    @Test
    void aUsageLimitIsABudgetFailureWithTheTypedInfo() {
        fake.onTurnStart(t -> t.tokenUsage(100, 10).failed("limit reached", "usageLimitExceeded"));
        assertThatThrownBy(() -> runner().run(run().build()))
                .isInstanceOfSatisfying(AgentBudgetExceededException.class, e -> {
                    assertThat(e.limit()).isEqualTo(AgentBudgetExceededException.Limit.USAGE_LIMIT);
                    assertThat(e.codexErrorInfo()).contains(CodexErrorInfo.USAGE_LIMIT_EXCEEDED);
                    assertThat(e.usage()).hasValueSatisfying(u -> assertThat(u.totalTokens()).isEqualTo(110));
                });
    }

    @Test
    void aModelCapCarriesItsResetTime() {
        fake.onTurnStart(t -> t.failed("capped",
                Map.of("modelCap", Map.of("model", "m", "reset_after_seconds", 120))));
        assertThatThrownBy(() -> runner().run(run().build()))
                .isInstanceOfSatisfying(AgentBudgetExceededException.class, e -> {
                    assertThat(e.limit()).isEqualTo(AgentBudgetExceededException.Limit.MODEL_CAP);
                    assertThat(e.resetAfter()).contains(Duration.ofSeconds(120));
                });
    }

    @Test
    void anUnknownErrorInfoIsAResponseFailureKeptAsSent() {
        fake.onTurnStart(t -> t.failed("odd", Map.of("somethingNewer", Map.of("x", 1))));
        assertThatThrownBy(() -> runner().run(run().build()))
                .isInstanceOfSatisfying(AgentRunException.class, e -> {
                    assertThat(e.phase()).isEqualTo(FailurePhase.RESPONSE);
                    assertThat(e.codexErrorInfo()).hasValueSatisfying(i ->
                            assertThat(i).isInstanceOf(CodexErrorInfo.Unrecognized.class));
                });
    }

    @Test
    void anOutputBudgetCrossedInterruptsTheTurn() {
        fake.onTurnStart(t -> t.tokenUsage(100, 500).neverComplete());
        assertThatThrownBy(() -> runner().run(run().budget(TokenBudget.unlimited().withOutput(200)).build()))
                .isInstanceOfSatisfying(AgentBudgetExceededException.class, e -> {
                    assertThat(e.limit()).isEqualTo(AgentBudgetExceededException.Limit.OUTPUT_TOKENS);
                    assertThat(e.usage()).hasValueSatisfying(u -> assertThat(u.outputTokens()).isEqualTo(500));
                });
        assertThat(fake.requests()).anySatisfy(r -> assertThat(r.method()).isEqualTo("turn/interrupt"));
    }

    @Test
    void aRunTellsTheListenerItsStartToolsAndEnd() {
        fake.onTurnStart(t -> t.commandExecution("make test", "ok", 0).tokenUsage(300, 20)
                .agentMessage("green").completed());
        AgentResult<Void> result = runner().run(run().sessionKey("k").build());
        assertThat(result.text()).isEqualTo("green");
        assertThat(events).hasSize(3);
        assertThat(events.get(0)).isInstanceOfSatisfying(AgentRunTelemetry.Started.class, s -> {
            assertThat(s.threadId()).isEqualTo(result.threadId());
            assertThat(s.resumed()).isFalse();
        });
        assertThat(events.get(1)).isInstanceOfSatisfying(AgentRunTelemetry.ToolInvoked.class, t -> {
            assertThat(t.kind()).isEqualTo(ToolInvocation.Kind.COMMAND);
            assertThat(t.name()).isEqualTo("command");
            assertThat(t.outcome()).isEqualTo(ToolInvocation.Outcome.COMPLETED);
        });
        assertThat(events.get(2)).isInstanceOfSatisfying(AgentRunTelemetry.Completed.class, c -> {
            assertThat(c.usage().totalTokens()).isEqualTo(320);
            assertThat(c.failure()).isEmpty();
            assertThat(c.source()).isEqualTo("agent");
        });
    }
}

package dev.codexclient.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.CodexClient;
import dev.codexclient.DynamicTool;
import dev.codexclient.protocol.CodexErrorInfo;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ExtensionTelemetry;
import dev.codexclient.testkit.ClientReply;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.PendingServerRequest;
import dev.codexclient.testkit.RecordedRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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

    /** A credential of no shape the client's patterns know: only its registration masks it. */
    private static final String SECRET = "k3yZ9xQ2mN8pL5vRt7Wq";

    private AgentRunner runner() {
        return AgentRunner.builder().client(() -> CodexClient.builder().transport(fake.connectInMemory())
                .secret(SECRET)
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

    @Test
    void aRegisteredSecretIsMaskedInEveryTextOfAFailedRun() {
        fake.onTurnStart(t -> t.commandExecution("deploy --credential " + SECRET, "denied", 1).tokenUsage(10, 1)
                .failed("the provider rejected the credential " + SECRET, "badRequest", "it said: " + SECRET));
        AgentRunException e;
        String log;
        try (ErrCapture err = new ErrCapture()) {
            e = org.assertj.core.api.Assertions.catchThrowableOfType(() -> runner().run(run().build()),
                    AgentRunException.class);
            log = err.text();
        }
        assertThat(e.getMessage()).contains("the provider rejected the credential [REDACTED]");
        assertThat(e.additionalDetails()).contains("it said: [REDACTED]");
        assertThat(String.join("\n", e.getMessage(), e.toString(), e.additionalDetails().orElse(""),
                e.stderrTail(), events.toString(), log)).doesNotContain(SECRET);
    }

    @Test
    void aRegisteredSecretIsMaskedInTheInvocationsOfASuccessfulRun() {
        fake.onTurnStart(t -> t.commandExecution("deploy --credential " + SECRET, "ok", 0)
                .agentMessage("done").completed());
        AgentResult<Void> result = runner().run(run().build());
        assertThat(result.invocations()).singleElement().satisfies(i -> {
            assertThat(i.name()).isEqualTo("deploy --credential [REDACTED]");
            assertThat(i.arguments().path("command").asText()).isEqualTo("deploy --credential [REDACTED]");
        });
        assertThat(result.toString() + events).doesNotContain(SECRET);
    }

    @Test
    void aToolFailingWithASecretInItsMessageIsMaskedForTheRunAndTheModel() throws Exception {
        fake.onTurnStart(t -> t.neverComplete());
        try (AgentRunner runner = runner()) {
            CompletableFuture<AgentRunException> failed = CompletableFuture.supplyAsync(() ->
                    org.assertj.core.api.Assertions.catchThrowableOfType(() -> runner.run(run()
                            .tool(DynamicTool.ofJson("lookup", "Looks up", new ObjectMapper().createObjectNode(),
                                    args -> {
                                        throw new IllegalStateException("login with " + SECRET + " refused");
                                    }))
                            .build()), AgentRunException.class));
            // The turn runs: the server calls the tool, and the reply is the model's view of the failure.
            RecordedRequest turnStart = fake.takeRequest("turn/start", Duration.ofSeconds(10));
            PendingServerRequest call = fake.requestToolCall(turnStart.params().path("threadId").asText(),
                    "turn-1", "lookup", Map.of("id", "1"));
            ClientReply reply = call.awaitResponse(Duration.ofSeconds(10));
            assertThat(reply.result().path("success").asBoolean(true)).isFalse();
            assertThat(reply.raw().toString()).contains("login with [REDACTED] refused").doesNotContain(SECRET);
            AgentRunException e = failed.get(30, TimeUnit.SECONDS);
            assertThat(e.phase()).isEqualTo(FailurePhase.TOOL);
            assertThat(e.getMessage()).contains("login with [REDACTED] refused").doesNotContain(SECRET);
        }
    }

    @Test
    void aWarmClientWhoseTurnWouldNotStopIsRetiredAndTheNextRunGetsAnother() {
        java.util.concurrent.atomic.AtomicInteger built = new java.util.concurrent.atomic.AtomicInteger();
        fake.enqueueTurn(t -> t.tokenUsage(100, 500).neverComplete());
        fake.enqueueTurn(t -> t.agentMessage("fresh").completed());
        try (AgentRunner runner = AgentRunner.builder().warmClient(true).interruptWait(Duration.ofSeconds(1))
                .client(() -> {
                    built.incrementAndGet();
                    return CodexClient.builder().transport(fake.connectInMemory())
                            .requestTimeout(Duration.ofSeconds(10)).interruptGracePeriod(Duration.ofSeconds(30));
                }).build()) {
            assertThatThrownBy(() -> runner.run(run().budget(TokenBudget.unlimited().withOutput(200)).build()))
                    .isInstanceOf(AgentBudgetExceededException.class);
            assertThat(runner.run(run().build()).text()).isEqualTo("fresh");
        }
        assertThat(built).hasValue(2);
    }

    @Test
    void aWarmClientServesRunAfterRunAndRunsAfterCloseAreRefused() {
        java.util.concurrent.atomic.AtomicInteger built = new java.util.concurrent.atomic.AtomicInteger();
        fake.onTurnStart(t -> t.agentMessage("ok").completed());
        AgentRunner runner = AgentRunner.builder().warmClient(true).client(() -> {
            built.incrementAndGet();
            return CodexClient.builder().transport(fake.connectInMemory()).requestTimeout(Duration.ofSeconds(10));
        }).build();
        for (int i = 0; i < 3; i++) {
            assertThat(runner.run(run().build()).text()).isEqualTo("ok");
        }
        assertThat(built).hasValue(1);
        // Each run let go of its thread, so the warm server does not keep them all.
        assertThat(fake.requests()).filteredOn(r -> r.method().equals("thread/unsubscribe")).hasSize(3);
        runner.close();
        runner.close();
        assertThatThrownBy(() -> runner.run(run().build())).isInstanceOf(IllegalStateException.class);
    }
}

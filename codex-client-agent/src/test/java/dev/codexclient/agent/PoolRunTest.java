package dev.codexclient.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.pool.CodexPool;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ExtensionTelemetry;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.RecordedRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner on a {@code Codex} the application owns, here a pool of two fake members: runs spread over the members,
 * each run's approvals are decided by its own policy on the members it shares with other runs, its telemetry reaches
 * the pool's listener, its thread is let go of after it, and the runner leaves the pool open.
 */
@Timeout(60)
class PoolRunTest {
    @TempDir
    Path dir;
    private final FakeCodexAppServer fakeA = new FakeCodexAppServer();
    private final FakeCodexAppServer fakeB = new FakeCodexAppServer();
    private final List<ExtensionTelemetry> telemetry = new CopyOnWriteArrayList<>();
    /** What each thread's approval was answered with, by thread id. */
    private final Map<String, String> decisions = new ConcurrentHashMap<>();

    @AfterEach
    void close() {
        fakeA.close();
        fakeB.close();
    }

    private static CodexClient client(FakeCodexAppServer fake) {
        // A client-wide policy the runs never meet: each run's thread has its own.
        return CodexClient.builder().transportFactory(fake::connectInMemory)
                .approvals(ApprovalPolicy.sync(r -> {
                    throw new AssertionError("the client's policy was asked for a run's approval");
                }))
                .requestTimeout(Duration.ofSeconds(10)).interruptGracePeriod(Duration.ofSeconds(5)).build();
    }

    private CodexPool pool() {
        for (FakeCodexAppServer fake : List.of(fakeA, fakeB)) {
            fake.onTurnStart((request, turn) -> turn.commandApproval("make deploy", reply ->
                    decisions.put(request.params().path("threadId").asText(), reply.decision().orElse("?")))
                    .agentMessage("done").completed());
        }
        return CodexPool.builder().member("a", () -> client(fakeA)).member("b", () -> client(fakeB))
                .telemetryListener(new CodexTelemetryListener() {
                    @Override
                    public void extensionTelemetry(ExtensionTelemetry report) {
                        telemetry.add(report);
                    }
                }).build();
    }

    private static List<RecordedRequest> requests(FakeCodexAppServer fake, String method) {
        return fake.requests().stream().filter(r -> r.method().equals(method)).toList();
    }

    @Test
    void runsOnAPoolSpreadOverItsMembersEachWithItsOwnApprovalPolicy() {
        try (CodexPool pool = pool()) {
            try (AgentRunner runner = AgentRunner.builder().codex(pool).build()) {
                AgentResult<Void> accepted = runner.run(AgentRun.builder("deploy").workingDirectory(dir)
                        .approvals(ApprovalPolicy.acceptAll()).build());
                AgentResult<Void> declined = runner.run(AgentRun.builder("deploy").workingDirectory(dir)
                        .approvals(ApprovalPolicy.declineAll()).build());

                assertThat(accepted.text()).isEqualTo("done");
                assertThat(declined.text()).isEqualTo("done");
                assertThat(decisions).containsEntry(accepted.threadId(), "accept")
                        .containsEntry(declined.threadId(), "decline");
                // One run on each member: the pool placed them, the runner did not choose.
                assertThat(requests(fakeA, "thread/start")).hasSize(1);
                assertThat(requests(fakeB, "thread/start")).hasSize(1);
                // Each run let go of its thread: the members do not keep every thread the runner ever ran.
                assertThat(requests(fakeA, "thread/unsubscribe")).hasSize(1);
                assertThat(requests(fakeB, "thread/unsubscribe")).hasSize(1);
                assertThat(telemetry).filteredOn(AgentRunTelemetry.Completed.class::isInstance).hasSize(2)
                        .allSatisfy(c -> assertThat(((AgentRunTelemetry.Completed) c).failure()).isEmpty());
                assertThat(telemetry).filteredOn(AgentRunTelemetry.Started.class::isInstance)
                        .extracting(s -> ((AgentRunTelemetry.Started) s).threadId())
                        .containsExactly(accepted.threadId(), declined.threadId());
            }
            // The runner's close leaves the application's pool open.
            assertThat(pool.startThread().id()).isNotBlank();
        }
    }

    @Test
    void aRunnerGivenACodexBuildsNoClientsOfItsOwn() {
        try (CodexPool pool = pool()) {
            assertThatThrownBy(() -> AgentRunner.builder().codex(pool).warmClient(true).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("not both");
            assertThatThrownBy(() -> AgentRunner.builder().client(CodexClient::builder).codex(pool).build())
                    .isInstanceOf(IllegalStateException.class);
        }
    }
}

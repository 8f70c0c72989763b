package dev.codexclient.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.RestartPolicy;
import dev.codexclient.pool.CodexPool;
import dev.codexclient.pool.MemberStats;
import dev.codexclient.protocol.AskForApproval;
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
import dev.codexclient.agent.session.SessionStore;

/**
 * Agent runs on a pool of two real app-servers (one {@code CODEX_HOME}, driven offline by a scripted model): the runs
 * are placed on both members, each run's approval policy decides its own file change on the member it shares, the run
 * telemetry reaches the pool's listener, and a session's second run resumes its thread from the storage the members
 * share.
 */
@Tag("real-codex")
@Timeout(240)
class RealCodexPoolAgentTest {
    @TempDir
    Path tmp;
    Path repo;
    ScriptedModelServer model;
    final List<ExtensionTelemetry> telemetry = new CopyOnWriteArrayList<>();

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

    private CodexPool pool() {
        Path codex = TestCodex.binary();
        return CodexPool.builder()
                .spawned(2, () -> CodexClient.builder()
                        .codexBinary(codex)
                        .workingDirectory(tmp)
                        .stdio(model::applyEnvironment)
                        .requestTimeout(Duration.ofSeconds(30))
                        .interruptGracePeriod(Duration.ofSeconds(10))
                        .restartPolicy(RestartPolicy.defaults()))
                .telemetryListener(new CodexTelemetryListener() {
                    @Override
                    public void extensionTelemetry(ExtensionTelemetry report) {
                        telemetry.add(report);
                    }
                })
                .build();
    }

    private Workspace workspace() {
        return Workspace.builder().parentDirectory(tmp.resolve("workspaces")).allowedRoot(repo)
                .mount(HostMount.of(repo, "repo")).build();
    }

    @Test
    void runsOnAPoolOfTwoServersEachDecidedByItsOwnPolicyAndASessionResumedThere() throws IOException {
        // A stateless script: after a patch the model is told its outcome, and any reply ends the turn.
        model.whenAlways(r -> !r.functionCallOutputs().isEmpty(), ModelStep.reply("done").withUsage(100, 10));
        model.whenAlways(r -> r.lastUserText().equals("write the notes"),
                ModelStep.applyPatch(ModelStep.addFilePatch("repo/NOTES.md", "approved\n")).withUsage(100, 10));
        model.whenAlways(r -> r.lastUserText().equals("write the secrets"),
                ModelStep.applyPatch(ModelStep.addFilePatch("repo/SECRETS.md", "declined\n")).withUsage(100, 10));
        model.whenAlways(r -> r.lastUserText().equals("remember the word PELICAN"),
                ModelStep.reply("remembered").withUsage(100, 10));
        model.whenAlways(r -> r.lastUserText().equals("which word?"), ModelStep.reply("PELICAN").withUsage(100, 10));

        try (CodexPool pool = pool();
             AgentRunner runner = AgentRunner.builder().codex(pool)
                     .sessions(SessionStore.inDirectory(tmp.resolve("sessions"))).build();
             Workspace approved = workspace();
             Workspace declined = workspace()) {
            // Untrusted: codex asks before every write, so each run's policy decides its own.
            AgentResult<Void> notes = runner.run(AgentRun.builder("write the notes").workspace(approved)
                    .askForApproval(AskForApproval.Simple.UNTRUSTED).approvals(ApprovalPolicy.acceptAll()).build());
            AgentResult<Void> secrets = runner.run(AgentRun.builder("write the secrets").workspace(declined)
                    .askForApproval(AskForApproval.Simple.UNTRUSTED).approvals(ApprovalPolicy.declineAll()).build());

            assertThat(notes.text()).isEqualTo("done");
            assertThat(Files.readString(approved.directory().resolve("repo/NOTES.md"))).isEqualTo("approved\n");
            assertThat(secrets.text()).isEqualTo("done");
            assertThat(declined.directory().resolve("repo/SECRETS.md")).doesNotExist();
            assertThat(repo.resolve("NOTES.md")).doesNotExist();
            // The two runs went to the two members.
            assertThat(pool.stats()).extracting(MemberStats::threads).containsExactly(1, 1);

            AgentResult<Void> first = runner.run(AgentRun.builder("remember the word PELICAN").workspace(approved)
                    .sessionKey("review-1").build());
            AgentResult<Void> second = runner.run(AgentRun.builder("which word?").workspace(approved)
                    .sessionKey("review-1").build());
            assertThat(first.resumed()).isFalse();
            assertThat(second.resumed()).isTrue();
            assertThat(second.threadId()).isEqualTo(first.threadId());
            assertThat(second.text()).isEqualTo("PELICAN");
            assertThat(runner.sessions().load("review-1")).hasValueSatisfying(e ->
                    assertThat(e.codexVersion()).isEqualTo(TestCodex.pinnedVersion().orElse(e.codexVersion()))
                            .isNotEmpty());

            assertThat(telemetry).filteredOn(AgentRunTelemetry.Completed.class::isInstance).hasSize(4);
        }
    }
}

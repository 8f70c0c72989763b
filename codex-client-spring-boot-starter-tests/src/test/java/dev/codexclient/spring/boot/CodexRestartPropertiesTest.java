package dev.codexclient.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.RestartPolicy;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.RestartGaveUp;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code codex.restart.*} properties: their defaults are the client's, each one reaches the restart policy, and
 * values out of bounds fail the start-up naming the properties. What the policy does with them is shown against a
 * spawned server that dies and cannot be spawned again: the attempts it makes are the ones the properties allow.
 */
@ExtendWith(CodexTestExtension.class)
class CodexRestartPropertiesTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CodexAutoConfiguration.class,
                    CodexHealthContributorAutoConfiguration.class));

    @Test
    void unsetRestartPropertiesAreTheClientsDefaults() {
        runner.withPropertyValues("codex.enabled=false").run(context -> {
            // codex.enabled=false binds no properties bean: bind them as the auto-configuration does.
            CodexProperties.Restart restart = CodexProperties.defaults().restart();
            assertThat(restart.enabled()).isFalse();
            assertThat(restart.policy()).isEqualTo(RestartPolicy.defaults());
        });
        runner.withPropertyValues("codex.lazy=true").run(context -> {
            CodexProperties.Restart bound = context.getBean(CodexProperties.class).restart();
            assertThat(bound).isEqualTo(CodexProperties.defaults().restart());
        });
    }

    @Test
    void everyRestartPropertyReachesThePolicy() {
        runner.withPropertyValues("codex.lazy=true", "codex.restart.enabled=true", "codex.restart.max-attempts=3",
                        "codex.restart.initial-backoff=50ms", "codex.restart.max-backoff=2s", "codex.restart.budget=7",
                        "codex.restart.budget-window=90s")
                .run(context -> {
                    CodexProperties.Restart restart = context.getBean(CodexProperties.class).restart();
                    assertThat(restart.enabled()).isTrue();
                    assertThat(restart.policy()).isEqualTo(new RestartPolicy(3, Duration.ofMillis(50),
                            Duration.ofSeconds(2), 7, Duration.ofSeconds(90)));
                });
    }

    @Test
    void aBudgetOutOfBoundsFailsTheStartUpNamingTheProperties() {
        runner.withPropertyValues("codex.restart.enabled=true", "codex.restart.budget=0",
                        "codex.binary=/nonexistent/bin/codex")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("budget must be at least 1");
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("codex.restart.*")
                            .hasStackTraceContaining("budget=0");
                });
        runner.withPropertyValues("codex.restart.enabled=true", "codex.restart.initial-backoff=5s",
                        "codex.restart.max-backoff=1s", "codex.binary=/nonexistent/bin/codex")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("maxBackoff PT1S is below initialBackoff PT5S"));
    }

    @Test
    void maxAttemptsBoundsTheAttemptsOfOneOutage(FakeCodexAppServer fake, @TempDir Path dir) throws Exception {
        // Three attempts allowed per restart, twenty in the window: the policy stops at three.
        assertThat(attemptsAfterALoss(fake, dir, "codex.restart.max-attempts=3", "codex.restart.budget=20"))
                .isEqualTo(3);
    }

    @Test
    void theBudgetBoundsTheAttemptsInItsWindow(FakeCodexAppServer fake, @TempDir Path dir) throws Exception {
        // Five attempts allowed per restart, but only two in the window: the budget stops it at two.
        assertThat(attemptsAfterALoss(fake, dir, "codex.restart.max-attempts=5", "codex.restart.budget=2",
                "codex.restart.budget-window=1h")).isEqualTo(2);
    }

    /**
     * Spawns the fake through a shell that runs it once and exits with 7 ever after, kills it, and returns how many
     * attempts the restart policy made before it gave up (as its event says, and as the starts counted); health then
     * names the last failure.
     */
    private int attemptsAfterALoss(FakeCodexAppServer fake, Path dir, String... restart) throws Exception {
        CompletableFuture<RestartGaveUp> gaveUp = new CompletableFuture<>();
        CodexTelemetryListener listener = new CodexTelemetryListener() {
            @Override
            public void restartGaveUp(RestartGaveUp event) {
                gaveUp.complete(event);
            }
        };
        List<String> properties = new ArrayList<>(List.of("codex.restart.enabled=true",
                // No wait between attempts: what is counted is attempts, not time.
                "codex.restart.initial-backoff=0s", "codex.restart.max-backoff=0s", "codex.close-timeout=1s"));
        properties.addAll(List.of(restart));
        // Every start appends a line to the file, so the attempts the policy made are counted where they happen.
        Path starts = dir.resolve("starts");
        List<String> command = new ArrayList<>(List.of("sh", "-c",
                "if [ -e \"$0\" ]; then echo >> \"$0\"; echo 'cannot start again' >&2; exit 7; fi; "
                        + "echo >> \"$0\"; exec \"$@\"",
                starts.toString()));
        command.addAll(fake.childProcessCommand());
        for (int i = 0; i < command.size(); i++) {
            // Indexed, so that the script's commas are not taken for separators of a list.
            properties.add("codex.command[" + i + "]=" + command.get(i));
        }
        int[] attempts = new int[1];
        runner.withPropertyValues(properties.toArray(String[]::new))
                .withBean(CodexTelemetryListener.class, () -> listener)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ProcessHandle server = context.getBean(CodexClient.class).serverProcess().orElseThrow();
                    server.destroyForcibly();
                    RestartGaveUp event = gaveUp.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    attempts[0] = event.attempts();
                    assertThat(Files.readAllLines(starts)).as("the first start and one per attempt")
                            .hasSize(1 + event.attempts());
                    ActuatorHealth.Report health = ActuatorHealth.codex(context);
                    assertThat(health.status()).isEqualTo("DOWN");
                    assertThat(health.details()).doesNotContainKey("restarting").containsKey("error");
                });
        return attempts[0];
    }
}

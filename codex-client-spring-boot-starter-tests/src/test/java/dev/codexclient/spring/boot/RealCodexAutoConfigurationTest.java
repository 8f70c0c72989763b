package dev.codexclient.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClient;
import dev.codexclient.TurnResult;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ConnectionReplaced;
import dev.codexclient.telemetry.Disconnected;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.IsolatedHome;
import dev.codexclient.testkit.ListenAddress;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import dev.codexclient.transport.ReadinessProbe;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The auto-configured client against the real codex app-server, spawned from {@code codex.*} properties alone,
 * offline: a scripted model, a private HOME and CODEX_HOME.
 */
@Tag("real-codex")
@Timeout(120)
class RealCodexAutoConfigurationTest {
    private static final Duration TURN = Duration.ofSeconds(30);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CodexAutoConfiguration.class,
                    CodexHealthContributorAutoConfiguration.class));

    @Test
    void theClientSpawnsCodexFromPropertiesRunsATurnWithAnApprovalAndEndsCodexWithTheContext(@TempDir Path workspace)
            throws IOException {
        Path codex = binary();
        ProcessHandle[] server = new ProcessHandle[1];
        try (ScriptedModelServer model = ScriptedModelServer.start()) {
            model.enqueue(ModelStep.exec("touch approved.txt"), ModelStep.reply("Created the file."));
            runner.withPropertyValues(properties(codex, model, workspace))
                    .withBean(ApprovalPolicy.class, () -> (ApprovalPolicy<ApprovalRequest>) ApprovalPolicy.acceptAll())
                    .run(context -> {
                        CodexClient client = context.getBean(CodexClient.class);
                        server[0] = client.serverProcess().orElseThrow();

                        ActuatorHealth.Report health = ActuatorHealth.codex(context);
                        assertThat(health.status()).isEqualTo("UP");
                        assertThat(health.details()).containsEntry("codexVersion", CodexBinary.versionOf(codex));
                        assertThat(health.details().get("userAgent").toString()).startsWith("spring-it/");

                        TurnResult result = client.startThread(ThreadStartParams.builder()
                                        .cwd(workspace.toString())
                                        .approvalPolicy(AskForApproval.Simple.UNTRUSTED)
                                        .sandbox(SandboxMode.WORKSPACE_WRITE)
                                        .build())
                                .startTurn("Create approved.txt").await(TURN);

                        assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
                        assertThat(result.finalText()).isEqualTo("Created the file.");
                        assertThat(workspace.resolve("approved.txt")).exists();
                    });
            assertThat(server[0].onExit().orTimeout(10, TimeUnit.SECONDS).join().isAlive())
                    .as("codex ended with the context").isFalse();
        }
    }

    /**
     * The npm launcher given as {@code codex.binary}: by default the client spawns the native codex the launcher
     * would run (one process, no {@code node}); {@code codex.bypass-npm-launcher=false} runs the launcher as given.
     */
    @Test
    void theNpmLauncherIsBypassedUnlessThePropertySaysOtherwise(@TempDir Path workspace) throws IOException {
        Path codex = binary();
        assumeTrue(Files.isRegularFile(codex.toRealPath()) && codex.toRealPath().toString().endsWith(".js"),
                "codex.binary is npm's launcher");
        try (ScriptedModelServer model = ScriptedModelServer.start()) {
            runner.withPropertyValues(properties(codex, model, workspace)).run(context -> {
                CodexClient client = context.getBean(CodexClient.class);
                assertThat(client.serverProcess().orElseThrow().info().command().orElse(""))
                        .doesNotEndWith("/node").contains("codex");
                assertThat(client.serverProcessTree()).as("no Node.js in the server's tree")
                        .noneMatch(p -> p.info().command().orElse("").endsWith("/node"));
            });
            List<String> launcher = new ArrayList<>(List.of(properties(codex, model, workspace)));
            launcher.add("codex.bypass-npm-launcher=false");
            runner.withPropertyValues(launcher.toArray(String[]::new)).run(context -> {
                CodexClient client = context.getBean(CodexClient.class);
                assertThat(client.serverProcess().orElseThrow().info().command().orElse("")).endsWith("/node");
                assertThat(client.serverProcessTree()).as("the native codex the launcher runs")
                        .anyMatch(p -> p.info().command().orElse("").endsWith("/codex"));
            });
        }
    }

    @Test
    void theClientConnectsToARunningCodexOverAWebSocketWithABearerTokenFromProperties(@TempDir Path dir)
            throws Exception {
        String token = "capability-token-of-the-spring-test-0123456789";
        Path tokenFile = Files.writeString(dir.resolve("ws-token"), token);
        Path workspace = Files.createDirectories(dir.resolve("workspace"));
        try (ScriptedModelServer model = ScriptedModelServer.start()) {
            // codex picks the port and prints it: one picked here and freed could be taken before codex binds it.
            Path log = dir.resolve("app-server.log");
            ProcessBuilder listening = new ProcessBuilder(binary().toString(), "app-server", "--listen",
                    "ws://127.0.0.1:0", "--ws-auth", "capability-token", "--ws-token-file", tokenFile.toString())
                    .directory(workspace.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
            model.applyEnvironment(listening.environment());
            Process codex = listening.start();
            try {
                URI uri = ListenAddress.await(log, codex, Duration.ofSeconds(30));
                ReadinessProbe.of(uri).awaitReady(Duration.ofSeconds(30));
                model.enqueue(ModelStep.reply("Hello over the socket."));
                runner.withPropertyValues("codex.websocket.url=" + uri, "codex.websocket.bearer-token=" + token,
                                "codex.client-info.name=spring-ws")
                        .run(context -> {
                            CodexClient client = context.getBean(CodexClient.class);
                            assertThat(client.serverProcess()).as("nothing spawned").isEmpty();
                            assertThat(ActuatorHealth.codex(context).status()).isEqualTo("UP");
                            TurnResult result = client.startThread(ThreadStartParams.builder()
                                            .cwd(workspace.toString()).build())
                                    .startTurn("Say hello").await(TURN);
                            assertThat(result.finalText()).isEqualTo("Hello over the socket.");
                        });
                runner.withPropertyValues("codex.websocket.url=" + uri, "codex.websocket.bearer-token=not-" + token)
                        .run(context -> {
                            assertThat(context).hasFailed();
                            assertThat(context.getStartupFailure()).rootCause()
                                    .hasMessageNotContaining(token);
                        });
            } finally {
                codex.toHandle().descendants().forEach(ProcessHandle::destroy);
                codex.destroy();
                if (!codex.waitFor(10, TimeUnit.SECONDS)) {
                    codex.destroyForcibly();
                }
            }
        }
    }

    @Test
    void aKilledCodexIsDownWithItsExitCodeWhileTheRestartPolicyRestoresItThenUpAgain(@TempDir Path workspace)
            throws Exception {
        Path codex = binary();
        CountDownLatch lost = new CountDownLatch(1);
        CountDownLatch restored = new CountDownLatch(1);
        CodexTelemetryListener recovery = new CodexTelemetryListener() {
            @Override
            public void disconnected(Disconnected event) {
                lost.countDown();
            }

            @Override
            public void connectionReplaced(ConnectionReplaced event) {
                restored.countDown();
            }
        };
        try (ScriptedModelServer model = ScriptedModelServer.start()) {
            model.enqueue(ModelStep.reply("After the restart."));
            List<String> properties = new ArrayList<>(List.of(properties(codex, model, workspace)));
            // A first wait of one to two seconds: long enough to see the restore under way.
            properties.addAll(List.of("codex.restart.enabled=true", "codex.restart.initial-backoff=2s",
                    "codex.restart.max-backoff=2s"));
            runner.withPropertyValues(properties.toArray(String[]::new))
                    .withBean(CodexTelemetryListener.class, () -> recovery)
                    .run(context -> {
                        CodexClient client = context.getBean(CodexClient.class);
                        assertThat(ActuatorHealth.codex(context).status()).isEqualTo("UP");
                        ProcessHandle first = client.serverProcess().orElseThrow();

                        first.descendants().forEach(ProcessHandle::destroyForcibly);
                        first.destroyForcibly();
                        assertThat(lost.await(30, TimeUnit.SECONDS)).as("the loss is seen").isTrue();

                        ActuatorHealth.Report during = ActuatorHealth.codex(context);
                        assertThat(during.status()).isEqualTo("DOWN");
                        assertThat(during.details()).containsEntry("restarting", true);
                        assertThat(during.details().get("reason").toString()).contains("restarting");
                        assertThat(during.details()).containsKey("error").containsEntry("exitCode", 137);

                        assertThat(restored.await(60, TimeUnit.SECONDS)).as("the restore").isTrue();
                        ActuatorHealth.Report after = ActuatorHealth.codex(context);
                        assertThat(after.status()).as("after the restore: %s", after.details()).isEqualTo("UP");
                        // The new connection replaces the old one once its threads are resumed, just after the event.
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        while (client.serverProcess().orElseThrow().pid() == first.pid()) {
                            assertThat(System.nanoTime()).as("a new codex process").isLessThan(deadline);
                            Thread.sleep(10);
                        }
                        TurnResult result = client.startThread(ThreadStartParams.builder()
                                .cwd(workspace.toString()).build()).startTurn("Say it").await(TURN);
                        assertThat(result.finalText()).isEqualTo("After the restart.");
                    });
        }
    }

    @Test
    void aKilledCodexWithoutARestartPolicyIsAWarningWithItsExitCodeAndHealthSaysWhy(@TempDir Path workspace)
            throws Exception {
        Path codex = binary();
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger monitorLog = (Logger) LoggerFactory.getLogger(CodexConnectionMonitor.class);
        monitorLog.addAppender(log);
        try (ScriptedModelServer model = ScriptedModelServer.start()) {
            runner.withPropertyValues(properties(codex, model, workspace)).run(context -> {
                CodexClient client = context.getBean(CodexClient.class);
                CodexConnectionMonitor monitor = context.getBean(CodexConnectionMonitor.class);
                ProcessHandle server = client.serverProcess().orElseThrow();
                server.descendants().forEach(ProcessHandle::destroyForcibly);
                server.destroyForcibly();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (monitor.state().cause().isEmpty()) {
                    assertThat(System.nanoTime()).as("the loss is seen").isLessThan(deadline);
                    Thread.sleep(10);
                }
                ActuatorHealth.Report health = ActuatorHealth.codex(context);
                assertThat(health.status()).isEqualTo("DOWN");
                assertThat(health.details()).containsEntry("reason", "the app-server was lost")
                        .containsEntry("exitCode", 137).doesNotContainKey("restarting");
                assertThat(log.list).anySatisfy(e -> {
                    assertThat(e.getLevel()).isEqualTo(Level.WARN);
                    assertThat(e.getFormattedMessage()).contains("lost the app-server").contains("137")
                            .contains("codex.restart.enabled=true");
                });
            });
        } finally {
            monitorLog.detachAppender(log);
        }
    }

    /** What an application's configuration says: the binary, a private home, and no credentials of this machine. */
    private static String[] properties(Path codex, ScriptedModelServer model, Path workspace) {
        List<String> properties = new ArrayList<>(List.of(
                "codex.binary=" + codex,
                "codex.home=" + model.codexHome(),
                "codex.working-directory=" + workspace,
                "codex.client-info.name=spring-it",
                "codex.request-timeout=30s"));
        for (Map.Entry<String, String> variable : model.environment().entrySet()) {
            if (!variable.getKey().equals("CODEX_HOME")) {
                // Brackets keep the key as written (upper case, any character).
                properties.add("codex.environment[" + variable.getKey() + "]=" + variable.getValue());
            }
        }
        TreeSet<String> removed = new TreeSet<>(IsolatedHome.CLEARED_VARIABLES);
        removed.addAll(IsolatedHome.HOME_VARIABLES);
        properties.add("codex.remove-environment=" + String.join(",", removed));
        return properties.toArray(String[]::new);
    }

    private static Path binary() {
        String configured = System.getProperty("codex.binary", System.getenv("CODEX_BINARY"));
        return configured != null && !configured.isBlank() ? Path.of(configured) : CodexBinary.pinned();
    }
}

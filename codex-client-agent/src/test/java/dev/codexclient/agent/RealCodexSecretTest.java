package dev.codexclient.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.codexclient.CodexClient;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ExtensionTelemetry;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
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

/**
 * A provider that answers 400 and repeats the request's {@code Authorization} header, key included, on the real
 * codex: the key given to {@code CodexClientBuilder.secret} shows in nothing the run reports.
 */
@Tag("real-codex")
@Timeout(120)
class RealCodexSecretTest {
    @TempDir
    Path tmp;
    ScriptedModelServer model;
    String key;

    @BeforeEach
    void setUp() throws IOException {
        model = ScriptedModelServer.start();
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        key = "sk-proj-" + HexFormat.of().formatHex(random);
        // codex sends the provider's bearer token as "Authorization: Bearer <key>"; the mock provider's table is
        // the last one of the file, so a line appended lands in it.
        Files.writeString(model.codexHome().resolve("config.toml"),
                "experimental_bearer_token = \"" + key + "\"\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        Files.createDirectories(tmp.resolve("repo"));
        Files.writeString(tmp.resolve("repo/README.md"), "hello\n");
    }

    @AfterEach
    void tearDown() {
        model.close();
    }

    @Test
    void aKeyTheProviderEchoesBackIsMaskedInTheFailureItsEventsAndTheLog() {
        model.enqueue(ModelStep.failEchoingAuthorization(400));
        List<ExtensionTelemetry> events = new CopyOnWriteArrayList<>();
        AgentRunner runner = AgentRunner.builder()
                .client(() -> CodexClient.builder().codexBinary(TestCodex.binary()).workingDirectory(tmp)
                        .stdio(model::applyEnvironment).secret(key).requestTimeout(Duration.ofSeconds(30))
                        .telemetryListener(new CodexTelemetryListener() {
                            @Override
                            public void extensionTelemetry(ExtensionTelemetry event) {
                                events.add(event);
                            }
                        }))
                .build();
        AgentRunException failure;
        String log;
        try (Workspace ws = Workspace.builder().parentDirectory(tmp.resolve("ws")).allowedRoot(tmp)
                .mount(HostMount.of(tmp.resolve("repo"), "repo")).build();
             ErrCapture err = new ErrCapture()) {
            failure = catchThrowableOfType(() -> runner.run(AgentRun.builder("hello").workspace(ws).build()),
                    AgentRunException.class);
            log = err.text();
        }
        // The provider did echo the key: codex sent it, and the answer carried it back.
        assertThat(model.requests()).isNotEmpty();
        assertThat(failure).isNotNull();
        assertThat(failure.getMessage()).contains("authorization=").contains("[REDACTED]");
        String everything = String.join("\n", failure.getMessage(), failure.toString(),
                failure.additionalDetails().orElse(""), failure.stderrTail(),
                failure.codexErrorInfo().map(Object::toString).orElse(""), String.valueOf(failure.usage()),
                events.toString(), log);
        assertThat(everything).doesNotContain(key).doesNotContain(key.substring(8));
        assertThat(events).last().isInstanceOf(AgentRunTelemetry.Completed.class);
    }
}

package dev.codexclient.pool;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ScriptedModelServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The real codex app-server, pointed at a scripted model, with a private HOME, CODEX_HOME and workspace: the members
 * of the pool's real-codex tests. As a field with {@code @RegisterExtension} it is created for each test and closed
 * after it.
 */
final class RealCodexFixture implements AutoCloseable, AfterEachCallback {
    final ScriptedModelServer model;
    final Path workspace;
    private final Path codexBinary;

    RealCodexFixture() {
        this.codexBinary = binary();
        model = ScriptedModelServer.start();
        try {
            workspace = Files.createTempDirectory("codex-pool-ws");
        } catch (IOException e) {
            model.close();
            throw new UncheckedIOException(e);
        }
    }

    /** A builder of a client spawning the codex under test, on the fixture's home, workspace and model. */
    CodexClientBuilder clientBuilder() {
        return CodexClient.builder()
                .codexBinary(codexBinary)
                .workingDirectory(workspace)
                .clientInfo("codex-client-pool-it", "codex-client pool tests", "0")
                .requestTimeout(Duration.ofSeconds(30))
                .interruptGracePeriod(Duration.ofSeconds(10))
                .stdio(model::applyEnvironment);
    }

    /** The codex executable this fixture runs. */
    Path codexBinary() {
        return codexBinary;
    }

    /** Thread params: approvals asked for everything that writes, writes confined to the workspace. */
    ThreadStartParams.Builder threadParams() {
        return ThreadStartParams.builder()
                .cwd(workspace.toString())
                .approvalPolicy(AskForApproval.Simple.UNTRUSTED)
                .sandbox(SandboxMode.WORKSPACE_WRITE);
    }

    /** The codex under test: {@code -Dcodex.binary} or {@code CODEX_BINARY}, else the pinned version. */
    static Path binary() {
        String configured = System.getProperty("codex.binary", System.getenv("CODEX_BINARY"));
        return configured != null && !configured.isBlank() ? Path.of(configured) : CodexBinary.pinned();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    @Override
    public void close() {
        model.close();
        try (Stream<Path> files = Files.walk(workspace)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temp dir
        }
    }
}

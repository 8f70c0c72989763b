package dev.codexclient.it;

import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexClient;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ScriptedModelServer;
import dev.codexclient.transport.StdioTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The real codex app-server, pointed at a scripted model, with a private HOME, CODEX_HOME and workspace. Public for the
 * reliability suite's real-codex cases. As a field with {@code @RegisterExtension} it is created for each test
 * (a new test instance per method) and closed after it.
 */
public final class RealCodexFixture implements AutoCloseable, AfterEachCallback {
    public final ScriptedModelServer model;
    public final Path workspace;
    private final Path codexBinary;

    public RealCodexFixture() {
        this(binary());
    }

    /** A fixture running the given codex executable (e.g. another version, for compatibility runs). */
    public RealCodexFixture(Path codexBinary) {
        this.codexBinary = codexBinary;
        model = ScriptedModelServer.start();
        try {
            workspace = Files.createTempDirectory("codex-it-ws");
        } catch (IOException e) {
            model.close();
            throw new UncheckedIOException(e);
        }
    }

    public CodexClientBuilder clientBuilder() {
        return CodexClient.builder()
                .codexBinary(codexBinary)
                .workingDirectory(workspace)
                .clientInfo("codex-client-it", "codex-client integration tests", "0")
                .requestTimeout(Duration.ofSeconds(30))
                .interruptGracePeriod(Duration.ofSeconds(10))
                .stdio(model::applyEnvironment);
    }

    /**
     * The stdio transport {@link #clientBuilder()} would spawn, for a test that wraps it or reads it (a client given
     * a transport of its own takes none of the builder's stdio settings).
     */
    public StdioTransport.Builder stdioTransport() {
        StdioTransport.Builder b = StdioTransport.builder()
                .executable(codexBinary)
                .codexHome(model.codexHome())
                .workingDirectory(workspace);
        ScriptedModelServer.CLEARED_VARIABLES.forEach(b::removeEnvironment);
        return b;
    }

    /** The codex executable this fixture runs. */
    public Path codexBinary() {
        return codexBinary;
    }

    public CodexClient client(Consumer<CodexClientBuilder> configure) {
        CodexClientBuilder b = clientBuilder();
        configure.accept(b);
        return b.build();
    }

    /** Thread params: approvals asked for everything that writes, writes confined to the workspace. */
    public ThreadStartParams.Builder threadParams() {
        return ThreadStartParams.builder()
                .cwd(workspace.toString())
                .approvalPolicy(AskForApproval.Simple.UNTRUSTED)
                .sandbox(SandboxMode.WORKSPACE_WRITE);
    }

    public static Path binary() {
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

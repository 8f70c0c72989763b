package dev.codexclient.approvals.testing;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ScriptedModelServer;
import dev.codexclient.transport.ReadinessProbe;
import dev.codexclient.transport.WebSocketTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The real codex app-server against the testkit's scripted model, with a private home and a workspace: as a child of
 * a client ({@link #stdioClient()}), or as a server of its own ({@link #listen()}, {@code --listen} on loopback),
 * which outlives the clients that connect to it, as a service's codex does across the service's restarts.
 */
public final class RealCodex implements AutoCloseable {
    public final ScriptedModelServer model = ScriptedModelServer.start();
    public final Path workspace;
    private final List<Process> servers = new ArrayList<>();

    public RealCodex() {
        try {
            workspace = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "codex-ws-");
        } catch (IOException e) {
            model.close();
            throw new UncheckedIOException(e);
        }
    }

    public static Path binary() {
        String configured = System.getProperty("codex.binary", System.getenv("CODEX_BINARY"));
        return configured != null && !configured.isBlank() ? Path.of(configured) : CodexBinary.pinned();
    }

    /** A client that spawns codex as its child. */
    public CodexClientBuilder stdioClient() {
        return CodexClient.builder().codexBinary(binary()).workingDirectory(workspace)
                .clientInfo("codex-client-approvals-it", "approvals tests", "0")
                .requestTimeout(Duration.ofSeconds(30)).interruptGracePeriod(Duration.ofSeconds(10))
                .stdio(model::applyEnvironment);
    }

    /** A client of the server of its own at {@code uri}. */
    public static CodexClientBuilder webSocketClient(URI uri) {
        return CodexClient.builder().transportFactory(() -> WebSocketTransport.builder(uri).build())
                .clientInfo("codex-client-approvals-it", "approvals tests", "0")
                .requestTimeout(Duration.ofSeconds(30));
    }

    /** Thread params: approvals asked for everything that writes, writes confined to the workspace. */
    public ThreadStartParams threadParams() {
        return ThreadStartParams.builder().cwd(workspace.toString())
                .approvalPolicy(AskForApproval.Simple.UNTRUSTED).sandbox(SandboxMode.WORKSPACE_WRITE).build();
    }

    /**
     * Starts {@code codex app-server --listen ws://127.0.0.1:0} and waits until it is ready.
     *
     * @return where it listens
     */
    public URI listen() {
        try {
            Path log = Files.createTempFile(workspace.getParent(), "app-server-", ".log");
            ProcessBuilder pb = new ProcessBuilder(binary().toString(), "app-server", "--listen", "ws://127.0.0.1:0")
                    .directory(workspace.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
            model.applyEnvironment(pb.environment());
            Process p = pb.start();
            servers.add(p);
            URI uri = awaitAddress(log, p);
            ReadinessProbe.of(uri).awaitReady(Duration.ofSeconds(60));
            return uri;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** codex prints "listening on: ws://127.0.0.1:PORT" once it has bound its port (it picks the port). */
    private static URI awaitAddress(Path log, Process p) throws IOException, InterruptedException {
        String marker = "listening on: ";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String out = Files.readString(log, StandardCharsets.UTF_8);
            int at = out.indexOf(marker);
            int end = at < 0 ? -1 : out.indexOf('\n', at);
            if (end >= 0) {
                return URI.create(out.substring(at + marker.length(), end).strip());
            }
            if (!p.isAlive()) {
                throw new IllegalStateException("codex exited before it listened:\n" + out);
            }
            // Reading a log another process writes: nothing to wait on but the file itself.
            p.waitFor(50, TimeUnit.MILLISECONDS);
        }
        throw new IllegalStateException("codex printed no address within 60 s");
    }

    @Override
    public void close() {
        for (Process p : servers) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        model.close();
        try (Stream<Path> files = Files.walk(workspace)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a directory under target/
        }
    }
}

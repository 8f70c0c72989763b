package dev.codexclient.it;

import dev.codexclient.CodexClient;
import dev.codexclient.RestartPolicy;
import dev.codexclient.pool.PoolEndpoint;
import dev.codexclient.testkit.IsolatedHome;
import dev.codexclient.testkit.ListenAddress;
import dev.codexclient.transport.ReadinessProbe;
import dev.codexclient.transport.WebSocketTransport;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One real {@code codex app-server --listen ws://127.0.0.1:PORT} on a home it may share with other servers (one
 * {@code CODEX_HOME}: the storage of a pool whose members share it), without auth (it binds loopback only). It can be
 * SIGKILLed, for good or to be started again on its port.
 */
final class ListeningCodex implements AutoCloseable {
    private final IsolatedHome home;
    private final Path workspace;
    /** 0 until the first start, when codex picks it; a start again listens on the same port. */
    private int port;
    private Process process;

    /**
     * @param home      the home whose environment the server runs with ({@code HOME}, {@code CODEX_HOME}, ...)
     * @param workspace the server's working directory
     */
    ListeningCodex(IsolatedHome home, Path workspace) {
        this.home = home;
        this.workspace = workspace;
    }

    URI uri() {
        return URI.create("ws://127.0.0.1:" + port);
    }

    PoolEndpoint endpoint() {
        return PoolEndpoint.of(uri());
    }

    /**
     * Starts the server and waits for its {@code /readyz}. The first start lets codex pick the port
     * ({@link ListenAddress}); a start after {@link #kill()} listens on the same one.
     */
    ListeningCodex start() throws IOException, InterruptedException {
        Path log = Files.createTempFile(home.home(), "app-server-", ".log");
        ProcessBuilder pb = new ProcessBuilder(RealCodexFixture.binary().toString(), "app-server", "--listen",
                uri().toString())
                .directory(workspace.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        home.applyEnvironment(pb.environment());
        process = pb.start();
        if (port == 0) {
            port = ListenAddress.await(log, process, Duration.ofSeconds(60)).getPort();
        }
        ReadinessProbe.of(uri()).awaitReady(Duration.ofSeconds(60));
        return this;
    }

    /** A client of this server, reconnecting a few times before it gives up. */
    CodexClient client() {
        return CodexClient.builder()
                .transportFactory(() -> WebSocketTransport.builder(uri()).build())
                .clientInfo("codex-client-it", "codex-client integration tests", "0")
                .requestTimeout(Duration.ofSeconds(30))
                .restartPolicy(RestartPolicy.builder().maxAttempts(3)
                        .backoff(Duration.ofMillis(50), Duration.ofMillis(200)).build())
                .build();
    }

    /** SIGKILL to the server's whole process tree (the launcher and the native codex): no close frame, no goodbye. */
    void kill() {
        if (process == null) {
            return;
        }
        List<ProcessHandle> tree = new ArrayList<>();
        process.toHandle().descendants().forEach(tree::add);
        tree.add(process.toHandle());
        tree.forEach(ProcessHandle::destroyForcibly);
        tree.forEach(p -> p.onExit().orTimeout(10, TimeUnit.SECONDS).join());
        process = null;
    }

    @Override
    public void close() {
        kill();
    }
}

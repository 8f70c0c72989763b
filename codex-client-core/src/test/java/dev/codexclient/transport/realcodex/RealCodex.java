package dev.codexclient.transport.realcodex;

import dev.codexclient.internal.transport.ProcessTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Locates the real codex binary for tests: system property {@code codex.binary}, else environment variable
 * {@code CODEX_BINARY}, else the npm install under {@code ~/.cache/codex-client/codex/<codex.version>/}.
 */
final class RealCodex {

    static final String INITIALIZE = "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientInfo\":"
            + "{\"name\":\"codex_client_transport_test\",\"title\":\"transport test\",\"version\":\"0\"},"
            + "\"capabilities\":null}}";

    private RealCodex() {
    }

    /** The binary, or an assertion failure that says how to install it. */
    static Path binary() {
        String configured = System.getProperty("codex.binary");
        if (configured == null || configured.isBlank()) {
            configured = System.getenv("CODEX_BINARY");
        }
        Path path;
        if (configured != null && !configured.isBlank()) {
            path = Path.of(configured);
        } else {
            String version = System.getProperty("codex.version", "0.169.0");
            path = Path.of(System.getProperty("user.home"), ".cache", "codex-client", "codex", version,
                    "node_modules", ".bin", "codex");
        }
        if (!Files.isExecutable(path)) {
            throw new AssertionError("The real codex binary is needed for this test but " + path + " is missing. "
                    + "Install it with `npm install --prefix ~/.cache/codex-client/codex/<version> "
                    + "@openai/codex@<version>` or set -Dcodex.binary=/path/to/codex (or CODEX_BINARY).");
        }
        return path;
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A {@code codex app-server --listen ws://127.0.0.1:PORT} process, killed with its descendants on close. */
    static final class WsServer implements AutoCloseable {
        final Process process;
        final int port;

        WsServer(Path codexHome, List<String> extraArgs) throws IOException, InterruptedException {
            port = freePort();
            List<String> command = new ArrayList<>(List.of(binary().toString(), "app-server", "--listen",
                    "ws://127.0.0.1:" + port));
            command.addAll(extraArgs);
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(codexHome.resolve("server.log").toFile());
            pb.environment().put("CODEX_HOME", codexHome.toString());
            process = pb.start();
            awaitReady(Duration.ofSeconds(15));
        }

        URI uri() {
            return URI.create("ws://127.0.0.1:" + port);
        }

        private void awaitReady(Duration timeout) throws InterruptedException, IOException {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
            HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                    .timeout(Duration.ofSeconds(2)).build();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new AssertionError("codex app-server exited with " + process.exitValue());
                }
                try {
                    if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        return;
                    }
                } catch (IOException e) {
                    // not listening yet
                }
                Thread.sleep(50);
            }
            throw new AssertionError("codex app-server not ready on port " + port + " within " + timeout);
        }

        @Override
        public void close() {
            List<ProcessHandle> tree = ProcessTree.descendants(process.toHandle());
            tree.add(process.toHandle());
            ProcessTree.terminate(tree, Duration.ofSeconds(2));
        }
    }
}

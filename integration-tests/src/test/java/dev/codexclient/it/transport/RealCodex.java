package dev.codexclient.it.transport;

import dev.codexclient.internal.transport.ProcessTree;
import dev.codexclient.it.RealCodexFixture;
import dev.codexclient.testkit.IsolatedHome;
import dev.codexclient.testkit.ListenAddress;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The real codex for the transport tests: the binary and a {@code codex app-server --listen} process. */
final class RealCodex {

    static final String INITIALIZE = "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientInfo\":"
            + "{\"name\":\"codex_client_transport_test\",\"title\":\"transport test\",\"version\":\"0\"},"
            + "\"capabilities\":null}}";

    private RealCodex() {
    }

    /** {@code -Dcodex.binary}, {@code $CODEX_BINARY}, else the pinned version (installed with npm if needed). */
    static Path binary() {
        return RealCodexFixture.binary();
    }


    /** A {@code codex app-server --listen ws://127.0.0.1:PORT} process, killed with its descendants on close. */
    static final class WsServer implements AutoCloseable {
        final Process process;
        final int port;

        WsServer(IsolatedHome home, List<String> extraArgs) throws IOException, InterruptedException {
            // codex picks the port and prints it: one picked here could be taken before codex binds it.
            List<String> command = new ArrayList<>(List.of(binary().toString(), "app-server", "--listen",
                    "ws://127.0.0.1:0"));
            command.addAll(extraArgs);
            Path log = home.home().resolve("server.log");
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            home.applyEnvironment(pb.environment());
            process = pb.start();
            port = ListenAddress.await(log, process, Duration.ofSeconds(15)).getPort();
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

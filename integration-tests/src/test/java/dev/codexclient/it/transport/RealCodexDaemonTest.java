package dev.codexclient.it.transport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.CodexClient;
import dev.codexclient.TurnResult;
import dev.codexclient.it.RealCodexFixture;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import dev.codexclient.transport.UnixSocketTransport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The local daemon, as {@code codex app-server daemon start} runs it on this machine: it installs a copy of the
 * codex binaries under {@code $CODEX_HOME/packages/app-server-daemon/}, starts
 * {@code codex app-server --listen unix:// --managed-daemon} detached (plus an updater process,
 * {@code daemon pid-update-loop}), and answers with JSON naming the socket. The client connects with
 * {@link UnixSocketTransport.Builder#daemonSocket(Path)}. Everything runs with a private HOME and CODEX_HOME, and
 * both daemon processes are stopped afterwards.
 */
@Tag("real-codex")
@Timeout(180)
class RealCodexDaemonTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theDaemonAnswersOnItsControlSocket() throws Exception {
        Path home = Files.createTempDirectory("codex-daemon-home-");
        Path codexHome = Files.createTempDirectory("codex-daemon-codex-home-");
        Path workspace = Files.createTempDirectory("codex-daemon-ws-");
        List<Long> daemonPids = new ArrayList<>();
        try (ScriptedModelServer model = ScriptedModelServer.start()) {
            model.writeCodexHome(codexHome);
            JsonNode started = daemon(home, codexHome, "start");
            assertThat(started.path("status").asText()).isEqualTo("started");
            assertThat(started.path("backend").asText()).isEqualTo("pid");
            daemonPids.add(started.path("pid").asLong());
            daemonPids.addAll(updaterPids(codexHome));
            assertThat(Path.of(started.path("socketPath").asText()))
                    .isEqualTo(UnixSocketTransport.daemonSocketPath(codexHome));
            assertThat(started.path("appServerVersion").asText()).isEqualTo(started.path("cliVersion").asText());

            model.enqueue(ModelStep.reply("hello from the daemon").withChunkSize(5));
            UnixSocketTransport transport = UnixSocketTransport.builder().daemonSocket(codexHome).build();
            try (CodexClient client = CodexClient.builder().transport(transport)
                    .clientInfo("codex-client-it", "codex-client integration tests", "0")
                    .requestTimeout(Duration.ofSeconds(30)).build()) {
                Path realHome = codexHome.toRealPath();
                assertThat(client.serverInfo().codexHome().map(Path::of)).hasValueSatisfying(h ->
                        assertThat(h.toAbsolutePath().normalize()).isIn(codexHome, realHome));
                assertThat(transport.serverMaxFrameBytes()).hasValue(16 * 1024 * 1024);
                TurnResult result = client.startThread(dev.codexclient.protocol.ThreadStartParams.builder()
                        .cwd(workspace.toString()).build()).startTurn("hello?").await(Duration.ofSeconds(60));
                assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
                assertThat(result.finalText()).isEqualTo("hello from the daemon");
            }

            JsonNode stopped = daemon(home, codexHome, "stop");
            assertThat(stopped.path("status").asText()).isEqualTo("stopped");
        } finally {
            // `daemon stop` ends the app-server; the updater of 0.169.0 outlives it.
            for (long pid : daemonPids) {
                ProcessHandle.of(pid).ifPresent(p -> {
                    p.destroy();
                    p.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(e -> {
                        p.destroyForcibly();
                        return p;
                    }).join();
                });
            }
            ListeningCodex.deleteTree(home);
            ListeningCodex.deleteTree(codexHome);
            ListeningCodex.deleteTree(workspace);
        }
    }

    /** Runs {@code codex app-server daemon <command>} and returns the JSON it prints. */
    private static JsonNode daemon(Path home, Path codexHome, String command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(RealCodexFixture.binary().toString(), "app-server", "daemon", command)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        ScriptedModelServer.CLEARED_VARIABLES.forEach(pb.environment()::remove);
        pb.environment().put("HOME", home.toString());
        pb.environment().put("CODEX_HOME", codexHome.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("daemon %s finished", command).isTrue();
        assertThat(p.exitValue()).as("daemon %s: %s", command, out).isZero();
        return JSON.readTree(out.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElseThrow(
                () -> new AssertionError("no JSON from daemon " + command + ": " + out)));
    }

    /** The updater the daemon starts next to the app-server, from the pid file it writes. */
    private static List<Long> updaterPids(Path codexHome) throws IOException {
        Path pidFile = codexHome.resolve("app-server-daemon").resolve("daemon-updater.pid");
        List<Long> pids = new ArrayList<>();
        if (Files.exists(pidFile)) {
            pids.add(JSON.readTree(Files.readString(pidFile)).path("pid").asLong());
        }
        return pids;
    }
}

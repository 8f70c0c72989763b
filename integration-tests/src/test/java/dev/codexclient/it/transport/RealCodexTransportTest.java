package dev.codexclient.it.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.transport.ProcessTree;
import dev.codexclient.testkit.IsolatedHome;
import dev.codexclient.transport.StdioTransport;
import dev.codexclient.transport.TransportTermination;
import dev.codexclient.transport.WebSocketTransport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The transports against the real {@code codex app-server}: raw bytes, no dispatcher. */
@Tag("real-codex")
@Timeout(60)
class RealCodexTransportTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private final IsolatedHome home = IsolatedHome.create();
    private final Path codexHome = home.codexHome();

    @AfterEach
    void deleteHome() {
        home.close();
    }

    @Test
    void stdioHandshakeWithTheRealServer() throws Exception {
        // The launcher kept, so that closing has a tree to end: node and the native binary it runs as a child.
        StdioTransport.Builder builder = StdioTransport.builder().executable(RealCodex.binary())
                .bypassNpmLauncher(false);
        home.applyEnvironment(builder);
        StdioTransport transport = builder.build();
        RecordingSink sink = new RecordingSink();
        try {
            transport.start(sink);
            transport.send(RealCodex.INITIALIZE.getBytes(StandardCharsets.UTF_8));
            String response = sink.awaitMessage(m -> m.startsWith("{\"id\":1,"), WAIT);
            assertThat(response).contains("\"userAgent\":\"codex_client_transport_test/")
                    .contains("\"codexHome\":\"" + codexHome.toRealPath());
            List<ProcessHandle> tree = ProcessTree.descendants(transport.process().orElseThrow());
            assertThat(tree).as("the npm launcher runs the native binary as a child").isNotEmpty();

            transport.close();
            assertThat(tree).noneMatch(ProcessTree::isRunning);
            TransportTermination end = sink.awaitClosed(WAIT);
            assertThat(end.requested()).isTrue();
            // codex exits on its own when its stdin closes: status 0. One the close had to end after its graceful
            // wait would have died of SIGTERM or SIGKILL (143, 137), however long either took.
            assertThat(end.exitCode()).as("codex exits when its stdin closes").hasValue(0);
            assertThat(sink.closedCount).hasValue(1);
        } finally {
            transport.close();
        }
    }

    @Test
    void stdioReportsTheExitOfAServerThatRefusesItsArguments() throws Exception {
        StdioTransport.Builder builder = StdioTransport.builder().executable(RealCodex.binary())
                .args("app-server", "--no-such-flag");
        home.applyEnvironment(builder);
        StdioTransport transport = builder.build();
        RecordingSink sink = new RecordingSink();
        try {
            transport.start(sink);
            TransportTermination end = sink.awaitClosed(WAIT);
            assertThat(end.requested()).isFalse();
            assertThat(end.exitCode()).isPresent();
            assertThat(end.exitCode().getAsInt()).isNotZero();
            assertThat(end.stderrTail()).contains("--no-such-flag");
        } finally {
            transport.close();
        }
    }

    @Test
    void webSocketHandshakeWithTheRealServer() throws Exception {
        try (RealCodex.WsServer server = new RealCodex.WsServer(home, List.of())) {
            WebSocketTransport transport = WebSocketTransport.builder(server.uri())
                    .connectTimeout(Duration.ofSeconds(5)).build();
            RecordingSink sink = new RecordingSink();
            try {
                transport.start(sink);
                assertThat(transport.describe()).isEqualTo("websocket: ws://127.0.0.1:" + server.port);
                transport.send(RealCodex.INITIALIZE.getBytes(StandardCharsets.UTF_8));
                String response = sink.awaitMessage(m -> m.startsWith("{\"id\":1,"), WAIT);
                assertThat(response).contains("\"userAgent\":\"codex_client_transport_test/");
                // A second request on the same connection: the transport keeps requesting frames.
                transport.send(("{\"id\":2,\"method\":\"thread/list\",\"params\":{}}").getBytes(StandardCharsets.UTF_8));
                sink.awaitMessage(m -> m.startsWith("{\"id\":2,"), WAIT);
            } finally {
                transport.close();
            }
            TransportTermination end = sink.awaitClosed(WAIT);
            assertThat(end.requested()).isTrue();
            assertThat(sink.closedCount).hasValue(1);
            assertThatThrownBy(() -> transport.send("{}".getBytes(StandardCharsets.UTF_8)))
                    .isInstanceOf(CodexTransportException.class);
        }
    }

    @Test
    void webSocketBearerTokenIsSentAndNeverShown() throws Exception {
        String token = "capability-token-0123456789abcdef";
        Path tokenFile = Files.writeString(codexHome.resolve("ws-token"), token);
        try (RealCodex.WsServer server = new RealCodex.WsServer(home,
                List.of("--ws-auth", "capability-token", "--ws-token-file", tokenFile.toString()))) {
            WebSocketTransport good = WebSocketTransport.builder(server.uri()).bearerToken(token).build();
            RecordingSink sink = new RecordingSink();
            try {
                good.start(sink);
                good.send(RealCodex.INITIALIZE.getBytes(StandardCharsets.UTF_8));
                assertThat(sink.awaitMessage(m -> m.startsWith("{\"id\":1,"), WAIT)).contains("userAgent");
            } finally {
                good.close();
            }

            String wrong = "wrong-token-abcdefghijklmnop";
            WebSocketTransport bad = WebSocketTransport.builder(server.uri()).bearerToken(wrong).build();
            assertThatThrownBy(() -> bad.start(new RecordingSink()))
                    .isInstanceOf(CodexTransportException.class)
                    .hasMessageContaining("HTTP 401")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(wrong).doesNotContain(token));
            bad.close();
        }
    }
}

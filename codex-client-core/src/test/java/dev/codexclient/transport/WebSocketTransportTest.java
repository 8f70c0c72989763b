package dev.codexclient.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.errors.CodexTransportException;
import java.net.ServerSocket;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class WebSocketTransportTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    /** Starts {@code transport} while the server accepts, since connecting blocks until the handshake is done. */
    private static void connect(MiniWebSocketServer server, WebSocketTransport transport, MessageSink sink)
            throws Exception {
        CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
            try {
                server.accept(101);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        transport.start(sink);
        accepted.get(5, TimeUnit.SECONDS);
    }

    @Test
    void assemblesFragmentedMessagesAndSendsTextFrames() throws Exception {
        try (MiniWebSocketServer server = new MiniWebSocketServer()) {
            WebSocketTransport transport = WebSocketTransport.builder(server.uri()).bearerToken("tok-0123456789")
                    .build();
            RecordingSink sink = new RecordingSink();
            connect(server, transport, sink);
            assertThat(server.requestHeaders).containsEntry("authorization", "Bearer tok-0123456789");

            byte[] message = "{\"method\":\"x\",\"params\":{\"text\":\"é€𝄞\"}}".getBytes(StandardCharsets.UTF_8);
            // Split inside the multi-byte characters: the text must still come out whole.
            int a = 27;
            int b = 31;
            server.sendFrame(MiniWebSocketServer.TEXT, false, Arrays.copyOfRange(message, 0, a));
            server.sendFrame(MiniWebSocketServer.CONTINUATION, false, Arrays.copyOfRange(message, a, b));
            server.sendFrame(MiniWebSocketServer.PING, true, new byte[] {1});
            server.sendFrame(MiniWebSocketServer.CONTINUATION, true, Arrays.copyOfRange(message, b, message.length));
            server.sendText("{\"second\":true}");
            sink.awaitCount(2, WAIT);
            assertThat(sink.texts()).containsExactly(new String(message, StandardCharsets.UTF_8), "{\"second\":true}");
            assertThat(sink.threads).allMatch(t -> t.startsWith("codex-ws-reader-"));

            transport.send("{\"id\":1,\"method\":\"initialize\"}".getBytes(StandardCharsets.UTF_8));
            MiniWebSocketServer.Frame frame = server.readDataFrame();
            assertThat(frame.opcode()).isEqualTo(MiniWebSocketServer.TEXT);
            assertThat(frame.text()).isEqualTo("{\"id\":1,\"method\":\"initialize\"}");

            // close handshake: the client sends close, the server answers.
            CompletableFuture<Void> closing = CompletableFuture.runAsync(transport::close);
            MiniWebSocketServer.Frame close = server.readDataFrame();
            assertThat(close.opcode()).isEqualTo(MiniWebSocketServer.CLOSE);
            server.sendClose(1000, "");
            closing.get(5, TimeUnit.SECONDS);
            TransportTermination end = sink.awaitClosed(WAIT);
            assertThat(end.requested()).isTrue();
            assertThat(sink.closedCount).hasValue(1);
        }
    }

    @Test
    void oversizedMessageIsReportedAndTheNextOneArrives() throws Exception {
        try (MiniWebSocketServer server = new MiniWebSocketServer()) {
            WebSocketTransport transport = WebSocketTransport.builder(server.uri()).maxMessageBytes(1024)
                    .closeTimeout(Duration.ofMillis(200)).build();
            RecordingSink sink = new RecordingSink();
            connect(server, transport, sink);
            String big = "{\"big\":\"" + "x".repeat(3000) + "\"}";
            server.sendFrame(MiniWebSocketServer.TEXT, false, big.substring(0, 1500).getBytes(StandardCharsets.UTF_8));
            server.sendFrame(MiniWebSocketServer.CONTINUATION, true,
                    big.substring(1500).getBytes(StandardCharsets.UTF_8));
            server.sendText("{\"after\":1}");
            sink.awaitCount(2, WAIT);
            assertThat(sink.oversized).containsExactly((long) big.length());
            assertThat(sink.texts()).containsExactly("{\"after\":1}");
            transport.close();
        }
    }

    @Test
    void serverCloseEndsTheTransport() throws Exception {
        try (MiniWebSocketServer server = new MiniWebSocketServer()) {
            WebSocketTransport transport = WebSocketTransport.builder(server.uri())
                    .closeTimeout(Duration.ofMillis(200)).build();
            RecordingSink sink = new RecordingSink();
            connect(server, transport, sink);
            server.sendText("{\"n\":1}");
            server.sendClose(1011, "going away");
            TransportTermination end = sink.awaitClosed(WAIT);
            assertThat(sink.texts()).containsExactly("{\"n\":1}");
            assertThat(end.requested()).isFalse();
            assertThat(end.reason()).contains("1011").contains("going away");
            assertThatThrownBy(() -> transport.send("{}".getBytes(StandardCharsets.UTF_8)))
                    .isInstanceOf(CodexTransportException.class).hasMessageContaining("closed");
            transport.close();
            assertThat(sink.closedCount).hasValue(1);
        }
    }

    @Test
    void abruptDisconnectEndsTheTransport() throws Exception {
        MiniWebSocketServer server = new MiniWebSocketServer();
        WebSocketTransport transport = WebSocketTransport.builder(server.uri()).build();
        RecordingSink sink = new RecordingSink();
        connect(server, transport, sink);
        server.close();
        TransportTermination end = sink.awaitClosed(WAIT);
        assertThat(end.requested()).isFalse();
        transport.close();
        assertThat(sink.closedCount).hasValue(1);
    }

    @Test
    void closeIsBoundedWhenTheServerNeverAnswers() throws Exception {
        try (MiniWebSocketServer server = new MiniWebSocketServer()) {
            WebSocketTransport transport = WebSocketTransport.builder(server.uri())
                    .closeTimeout(Duration.ofMillis(300)).build();
            RecordingSink sink = new RecordingSink();
            connect(server, transport, sink);
            long started = System.nanoTime();
            transport.close();
            // The bound is the default close timeout (5 s), which a close that ignored the setting (300 ms) would
            // wait: anything below it is the setting honoured, however loaded the machine. (The wait is the
            // connection's own, in real time: there is no clock to advance.)
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
            assertThat(sink.awaitClosed(WAIT).requested()).isTrue();
        }
    }

    @Test
    void refusedHandshakeIsExplained() throws Exception {
        try (MiniWebSocketServer server = new MiniWebSocketServer()) {
            WebSocketTransport transport = WebSocketTransport.builder(server.uri()).bearerToken("secret-token-xyz123")
                    .build();
            CompletableFuture<Void> refused = CompletableFuture.runAsync(() -> {
                try {
                    server.accept(401);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertThatThrownBy(() -> transport.start(new RecordingSink()))
                    .isInstanceOf(CodexTransportException.class)
                    .hasMessageContaining("HTTP 401").hasMessageContaining("bearer token")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret-token-xyz123"));
            refused.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void connectionRefusedIsExplained() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        WebSocketTransport transport = WebSocketTransport.builder(URI.create("ws://127.0.0.1:" + port))
                .connectTimeout(Duration.ofSeconds(2)).build();
        assertThatThrownBy(() -> transport.start(new RecordingSink()))
                .isInstanceOf(CodexTransportException.class)
                .hasMessageContaining("ws://127.0.0.1:" + port)
                .hasMessageContaining("codex app-server --listen");
        assertThatThrownBy(() -> transport.send("{}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(CodexTransportException.class);
        transport.close();
    }

    @Test
    void connectTimeoutIsHonoured() throws Exception {
        // A server that accepts TCP but never answers the HTTP upgrade.
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            WebSocketTransport transport = WebSocketTransport.builder(
                    URI.create("ws://127.0.0.1:" + silent.getLocalPort())).connectTimeout(Duration.ofMillis(500))
                    .build();
            long started = System.nanoTime();
            assertThatThrownBy(() -> transport.start(new RecordingSink())).isInstanceOf(CodexTransportException.class);
            // The bound is the default connect timeout (10 s), which a start that ignored the setting (500 ms) would
            // wait: anything below it is the setting honoured, however loaded the machine (the socket's wait is in
            // real time).
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    void leavesNoReaderThreadsBehind() throws Exception {
        java.util.Set<String> before = StdioTransportTest.codexThreads();
        for (int i = 0; i < 3; i++) {
            try (MiniWebSocketServer server = new MiniWebSocketServer()) {
                WebSocketTransport transport = WebSocketTransport.builder(server.uri())
                        .closeTimeout(Duration.ofMillis(200)).build();
                RecordingSink sink = new RecordingSink();
                connect(server, transport, sink);
                server.sendText("{}");
                sink.awaitCount(1, WAIT);
                transport.close();
                sink.awaitClosed(WAIT);
            }
        }
        assertThat(StdioTransportTest.codexThreads()).isSubsetOf(before);
    }

    @Test
    void rejectsNonWebSocketUris() {
        assertThatThrownBy(() -> WebSocketTransport.builder(URI.create("http://127.0.0.1:1")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void describeHidesQueryAndUserInfo() {
        WebSocketTransport t = WebSocketTransport.builder(URI.create("ws://user:pw@127.0.0.1:4500/rpc?token=abc"))
                .build();
        assertThat(t.describe()).isEqualTo("websocket: ws://127.0.0.1:4500/rpc");
    }
}

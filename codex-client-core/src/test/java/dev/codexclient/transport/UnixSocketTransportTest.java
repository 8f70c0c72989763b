package dev.codexclient.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.errors.CodexTransportException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Unix socket transport against a tiny scripted WebSocket server: the handshake, RFC 6455 framing in both
 * directions, every way a server can break the protocol, and the close handshake.
 */
@Timeout(20)
class UnixSocketTransportTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    private UnixSocketTransport.Builder builder(UnixWebSocketServer server) {
        // The scripted server does not answer close frames unless a test says so: closing waits this long for it.
        return UnixSocketTransport.builder().path(server.path()).closeTimeout(Duration.ofMillis(100));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ---- handshake ----

    @Test
    void handshakeSendsAProperUpgradeRequestAndReadsTheFrameLimit() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).bearerToken("capability-0123456789").build();
            assertThat(transport.serverMaxFrameBytes()).isEmpty();
            server.acceptAndUpgrade(transport, new RecordingSink(),
                    "x-codex-websocket-max-unfragmented-message-bytes: 16777216\r\n");
            try {
                assertThat(server.requestLine).isEqualTo("GET / HTTP/1.1");
                assertThat(server.requestHeaders).containsEntry("upgrade", "websocket")
                        .containsEntry("connection", "Upgrade").containsEntry("sec-websocket-version", "13")
                        .containsEntry("host", "localhost")
                        .containsEntry("authorization", "Bearer capability-0123456789")
                        .doesNotContainKey("origin");
                assertThat(Base64Length.decoded(server.requestHeaders.get("sec-websocket-key"))).isEqualTo(16);
                assertThat(transport.serverMaxFrameBytes()).hasValue(16 * 1024 * 1024);
                assertThat(transport.describe()).isEqualTo("unix socket: " + server.path());
            } finally {
                transport.close();
            }
        }
    }

    @Test
    void aWrongAcceptKeyFailsTheHandshake() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).build();
            CompletableFuture<Void> accepted = server.acceptAsync();
            CompletableFuture<Void> started = UnixWebSocketServer.async(() -> transport.start(new RecordingSink()));
            accepted.get(5, TimeUnit.SECONDS);
            server.write(utf8("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n"));
            assertThatThrownBy(() -> started.join()).hasCauseInstanceOf(CodexTransportException.class)
                    .cause().hasMessageContaining("Sec-WebSocket-Accept does not match");
            assertThat(server.clientClosedConnection()).isTrue();
            assertThatThrownBy(() -> transport.send(utf8("{}"))).isInstanceOf(CodexTransportException.class);
        }
    }

    @Test
    void handshakeAnswersThatAreNotAnUpgradeAreRefused() throws Exception {
        String[] answers = {
            "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: %s\r\n\r\n",
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: %s\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n",
            "SSH-2.0-OpenSSH_9.2\r\n\r\n",
        };
        String[] expected = {"Upgrade: websocket", "Connection: Upgrade", "extension", "HTTP/1.1"};
        for (int i = 0; i < answers.length; i++) {
            try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
                UnixSocketTransport transport = builder(server).build();
                CompletableFuture<Void> accepted = server.acceptAsync();
                CompletableFuture<Void> started = UnixWebSocketServer.async(
                        () -> transport.start(new RecordingSink()));
                accepted.get(5, TimeUnit.SECONDS);
                server.write(utf8(String.format(answers[i],
                        UnixWebSocketServer.acceptKey(server.requestHeaders.get("sec-websocket-key")))));
                int n = i;
                assertThatThrownBy(() -> started.join()).cause().isInstanceOf(CodexTransportException.class)
                        .hasMessageContaining("WebSocket handshake with unix socket: ")
                        .hasMessageContaining(expected[n]);
            }
        }
    }

    @Test
    void aRefusalShowsTheServersReasonButNeverTheToken() throws Exception {
        String token = "secret-capability-token-42";
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).bearerToken(token).build();
            CompletableFuture<Void> accepted = server.acceptAsync();
            CompletableFuture<Void> started = UnixWebSocketServer.async(() -> transport.start(new RecordingSink()));
            accepted.get(5, TimeUnit.SECONDS);
            String body = "invalid websocket bearer token " + token;
            server.write(utf8("HTTP/1.1 401 Unauthorized\r\ncontent-type: text/plain\r\ncontent-length: "
                    + body.length() + "\r\n\r\n" + body));
            assertThatThrownBy(() -> started.join()).cause().isInstanceOf(CodexTransportException.class)
                    .hasMessageContaining("failed with HTTP 401")
                    .hasMessageContaining("check the bearer token")
                    .hasMessageContaining("invalid websocket bearer token")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(token));
        }
    }

    @Test
    void framesRightBehindTheUpgradeAnswerAreDelivered() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).build();
            RecordingSink sink = new RecordingSink();
            CompletableFuture<Void> accepted = server.acceptAsync();
            CompletableFuture<Void> started = UnixWebSocketServer.async(() -> transport.start(sink));
            accepted.get(5, TimeUnit.SECONDS);
            byte[] head = utf8("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: " + UnixWebSocketServer.acceptKey(
                            server.requestHeaders.get("sec-websocket-key")) + "\r\n\r\n");
            byte[] first = UnixWebSocketServer.frame(UnixWebSocketServer.TEXT, true, utf8("{\"early\":1}"));
            byte[] both = Arrays.copyOf(head, head.length + first.length);
            System.arraycopy(first, 0, both, head.length, first.length);
            server.write(both);
            started.get(5, TimeUnit.SECONDS);
            sink.awaitCount(1, WAIT);
            assertThat(sink.texts()).containsExactly("{\"early\":1}");
            transport.close();
        }
    }

    @Test
    void nothingListeningIsExplained() {
        Path missing = dir.resolve("nobody-here.sock");
        UnixSocketTransport transport = UnixSocketTransport.builder().path(missing).build();
        assertThatThrownBy(() -> transport.start(new RecordingSink()))
                .isInstanceOf(CodexTransportException.class)
                .hasMessageContaining("Could not connect to unix socket: " + missing)
                .hasMessageContaining("codex app-server --listen unix://" + missing)
                .hasMessageContaining("codex app-server daemon start");
        assertThatThrownBy(() -> transport.send(utf8("{}"))).isInstanceOf(CodexTransportException.class);
        assertThatThrownBy(() -> transport.start(new RecordingSink())).isInstanceOf(IllegalStateException.class);
        transport.close();
    }

    @Test
    void aServerThatNeverAnswersTheUpgradeTimesOut() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).connectTimeout(Duration.ofMillis(300)).build();
            CompletableFuture<Void> accepted = server.acceptAsync();
            assertThatThrownBy(() -> transport.start(new RecordingSink()))
                    .isInstanceOf(CodexTransportException.class)
                    .hasMessageContaining("Timed out after PT0.3S connecting to unix socket");
            accepted.get(5, TimeUnit.SECONDS);
            assertThat(server.clientClosedConnection()).isTrue();
        }
    }

    @Test
    void closeWhileConnectingEndsTheStartAttempt() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).connectTimeout(Duration.ofSeconds(30)).build();
            RecordingSink sink = new RecordingSink();
            CompletableFuture<Void> accepted = server.acceptAsync();
            CompletableFuture<Void> started = UnixWebSocketServer.async(() -> transport.start(sink));
            accepted.get(5, TimeUnit.SECONDS);
            transport.close();
            assertThatThrownBy(() -> started.get(5, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(CodexTransportException.class).hasMessageContaining("closed while connecting");
            assertThat(sink.closedCount).hasValue(0);
        }
    }

    @Test
    void aDaemonSocketPathIsDerivedFromCodexHome() {
        Path home = Path.of("/home/ada/.codex");
        assertThat(UnixSocketTransport.daemonSocketPath(home))
                .isEqualTo(Path.of("/home/ada/.codex/app-server-control/app-server-control.sock"));
        assertThat(UnixSocketTransport.builder().daemonSocket(home).build().describe())
                .isEqualTo("unix socket: /home/ada/.codex/app-server-control/app-server-control.sock");
        String codexHome = System.getenv("CODEX_HOME");
        String userHome = System.getProperty("user.home");
        System.setProperty("user.home", "/home/ada");
        try {
            // As codex resolves it: $CODEX_HOME when set, else ~/.codex.
            assertThat(UnixSocketTransport.defaultCodexHome()).isEqualTo(codexHome == null || codexHome.isBlank()
                    ? Path.of("/home/ada/.codex") : Path.of(codexHome));
        } finally {
            System.setProperty("user.home", userHome);
        }
        assertThatThrownBy(() -> UnixSocketTransport.builder().build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("path");
    }

    @Test
    void aSocketPathTooLongForTheOsIsReachedThroughItsShortRealPath() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            Path deep = dir;
            for (int i = 0; i < 4; i++) {
                deep = deep.resolve("a-rather-long-directory-name-" + i);
            }
            Files.createDirectories(deep);
            Path link = Files.createSymbolicLink(deep.resolve("app-server-control.sock"), server.path());
            assertThat(link.toString().length()).isGreaterThan(108);
            UnixSocketTransport transport = UnixSocketTransport.builder().path(link)
                    .closeTimeout(Duration.ofMillis(100)).build();
            RecordingSink sink = new RecordingSink();
            server.acceptAndUpgrade(transport, sink, "");
            server.sendText("{\"via\":\"link\"}");
            sink.awaitCount(1, WAIT);
            assertThat(transport.describe()).isEqualTo("unix socket: " + link);
            transport.close();
        }
    }

    // ---- framing, server to client ----

    @Test
    void fragmentsAreReassembledAcrossCharactersWithControlFramesBetweenThem() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).build();
            RecordingSink sink = new RecordingSink();
            server.acceptAndUpgrade(transport, sink, "");
            byte[] message = utf8("{\"text\":\"é€𝄞 and more\"}");
            // Cut inside the two-, three- and four-byte characters.
            server.sendFrame(UnixWebSocketServer.TEXT, false, Arrays.copyOfRange(message, 0, 11));
            server.sendFrame(UnixWebSocketServer.PING, true, utf8("are you there"));
            server.sendFrame(UnixWebSocketServer.CONTINUATION, false, Arrays.copyOfRange(message, 11, 14));
            server.sendFrame(UnixWebSocketServer.PONG, true, utf8("unsolicited"));
            server.sendFrame(UnixWebSocketServer.CONTINUATION, false, Arrays.copyOfRange(message, 14, 17));
            server.sendFrame(UnixWebSocketServer.CONTINUATION, false, new byte[0]);
            server.sendFrame(UnixWebSocketServer.CONTINUATION, true, Arrays.copyOfRange(message, 17,
                    message.length));
            server.sendFrame(UnixWebSocketServer.BINARY, true, utf8("{\"binary\":true}"));
            server.sendText("");
            sink.awaitCount(3, WAIT);
            assertThat(sink.texts()).containsExactly(new String(message, StandardCharsets.UTF_8),
                    "{\"binary\":true}", "");
            assertThat(sink.threads).allMatch(t -> t.startsWith("codex-uds-reader-"));

            UnixWebSocketServer.Frame pong = server.readFrame();
            assertThat(pong.opcode()).isEqualTo(UnixWebSocketServer.PONG);
            assertThat(pong.masked()).isTrue();
            assertThat(pong.text()).isEqualTo("are you there");
            transport.close();
        }
    }

    @Test
    void aLargeMessageInOneFrameAndInManyArrivesWhole() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).build();
            RecordingSink sink = new RecordingSink();
            server.acceptAndUpgrade(transport, sink, "");
            byte[] big = new byte[3 * 1024 * 1024 + 17];
            for (int i = 0; i < big.length; i++) {
                big[i] = (byte) ('a' + i % 26);
            }
            server.sendFrame(UnixWebSocketServer.TEXT, true, big);
            int cut = 100_000;
            server.sendFrame(UnixWebSocketServer.TEXT, false, Arrays.copyOfRange(big, 0, cut));
            for (int at = cut; at < big.length; at += cut) {
                int end = Math.min(big.length, at + cut);
                server.sendFrame(UnixWebSocketServer.CONTINUATION, end == big.length,
                        Arrays.copyOfRange(big, at, end));
            }
            sink.awaitCount(2, WAIT);
            assertThat(sink.messages.get(0)).isEqualTo(big);
            assertThat(sink.messages.get(1)).isEqualTo(big);
            transport.close();
        }
    }

    @Test
    void oversizedMessagesAreDiscardedAndTheConnectionGoesOn() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).maxMessageBytes(1024).build();
            RecordingSink sink = new RecordingSink();
            server.acceptAndUpgrade(transport, sink, "");
            server.sendText("{\"before\":1}");
            server.sendFrame(UnixWebSocketServer.TEXT, true, new byte[5000]);
            // Over the cap only with its third fragment.
            server.sendFrame(UnixWebSocketServer.TEXT, false, new byte[500]);
            server.sendFrame(UnixWebSocketServer.CONTINUATION, false, new byte[500]);
            server.sendFrame(UnixWebSocketServer.CONTINUATION, true, new byte[500]);
            server.sendText("{\"after\":1}");
            server.sendFrame(UnixWebSocketServer.TEXT, true, new byte[1024]);
            sink.awaitCount(5, WAIT);
            assertThat(sink.oversized).containsExactly(5000L, 1500L);
            assertThat(sink.texts()).hasSize(3).startsWith("{\"before\":1}", "{\"after\":1}");
            assertThat(sink.messages.get(2)).hasSize(1024);
            transport.close();
        }
    }

    @Test
    void aCloseFrameFromTheServerIsAnsweredAndEndsTheTransport() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).build();
            RecordingSink sink = new RecordingSink();
            server.acceptAndUpgrade(transport, sink, "");
            server.sendText("{\"n\":1}");
            server.sendClose(1011, "going away");
            TransportTermination end = sink.awaitClosed(WAIT);
            assertThat(sink.texts()).containsExactly("{\"n\":1}");
            assertThat(end.requested()).isFalse();
            assertThat(end.reason()).isEqualTo("the server closed the WebSocket (status 1011: going away)");
            UnixWebSocketServer.Frame echo = server.readFrame();
            assertThat(echo.opcode()).isEqualTo(UnixWebSocketServer.CLOSE);
            assertThat(echo.closeCode()).isEqualTo(1011);
            assertThat(server.clientClosedConnection()).isTrue();
            assertThatThrownBy(() -> transport.send(utf8("{}"))).isInstanceOf(CodexTransportException.class)
                    .hasMessageContaining("is closed: the server closed the WebSocket (status 1011: going away)");
            transport.close();
            assertThat(sink.closedCount).hasValue(1);
        }
    }

    @Test
    void aCloseFrameWithoutStatusIsAnsweredWithNormalClosure() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).build();
            RecordingSink sink = new RecordingSink();
            server.acceptAndUpgrade(transport, sink, "");
            server.sendFrame(UnixWebSocketServer.CLOSE, true, new byte[0]);
            assertThat(sink.awaitClosed(WAIT).reason()).contains("status 1005");
            assertThat(server.readFrame().closeCode()).isEqualTo(1000);
            transport.close();
        }
    }

    /** Each server frame breaks RFC 6455; the client must fail the connection with the right status. */
    @Test
    void protocolViolationsFailTheConnectionWithTheRightStatus() throws Exception {
        record Violation(byte[] frames, int status, String reason) {
        }
        byte[] invalidUtf8Text = UnixWebSocketServer.frame(UnixWebSocketServer.TEXT, true,
                new byte[] {'{', (byte) 0xC0, (byte) 0x80, '}'});
        List<Violation> violations = List.of(
                new Violation(UnixWebSocketServer.frame(0x81, utf8("{}"), true), 1002, "masked frame"),
                new Violation(UnixWebSocketServer.frame(0xC1, utf8("{}"), false), 1002, "reserved bits"),
                new Violation(UnixWebSocketServer.frame(0x83, utf8("{}"), false), 1002, "unknown opcode 0x3"),
                new Violation(UnixWebSocketServer.frame(0x8B, utf8("{}"), false), 1002, "unknown opcode 0xb"),
                new Violation(UnixWebSocketServer.frame(UnixWebSocketServer.CONTINUATION, true, utf8("x")), 1002,
                        "continuation frame outside"),
                new Violation(concat(UnixWebSocketServer.frame(UnixWebSocketServer.TEXT, false, utf8("{")),
                        UnixWebSocketServer.frame(UnixWebSocketServer.TEXT, true, utf8("}"))), 1002,
                        "new data frame before"),
                new Violation(UnixWebSocketServer.frame(UnixWebSocketServer.PING, false, utf8("x")), 1002,
                        "fragmented control frame"),
                new Violation(UnixWebSocketServer.frame(UnixWebSocketServer.PING, true, new byte[126]), 1002,
                        "control frame of 126 bytes"),
                new Violation(new byte[] {(byte) 0x81, 127, (byte) 0x80, 0, 0, 0, 0, 0, 0, 1}, 1002,
                        "most significant bit"),
                new Violation(UnixWebSocketServer.frame(UnixWebSocketServer.CLOSE, true, new byte[] {3}), 1002,
                        "one-byte payload"),
                new Violation(UnixWebSocketServer.frame(UnixWebSocketServer.CLOSE, true,
                        UnixWebSocketServer.closePayload(1005, "")), 1002, "invalid status 1005"),
                new Violation(UnixWebSocketServer.frame(UnixWebSocketServer.CLOSE, true,
                        UnixWebSocketServer.closePayload(999, "")), 1002, "invalid status 999"),
                new Violation(UnixWebSocketServer.frame(UnixWebSocketServer.CLOSE, true,
                        concat(UnixWebSocketServer.closePayload(1000, ""), new byte[] {(byte) 0xFF})), 1007,
                        "close reason that is not valid UTF-8"),
                new Violation(invalidUtf8Text, 1007, "not valid UTF-8"),
                new Violation(UnixWebSocketServer.frame(UnixWebSocketServer.TEXT, true,
                        new byte[] {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'}), 1007, "not valid UTF-8"),
                new Violation(UnixWebSocketServer.frame(UnixWebSocketServer.TEXT, true,
                        new byte[] {'"', (byte) 0xE2, (byte) 0x82}), 1007, "ends inside a UTF-8 sequence"));
        for (Violation v : violations) {
            try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
                UnixSocketTransport transport = builder(server).build();
                RecordingSink sink = new RecordingSink();
                server.acceptAndUpgrade(transport, sink, "");
                server.sendText("{\"ok\":true}");
                server.write(v.frames());
                TransportTermination end = sink.awaitClosed(WAIT);
                assertThat(end.requested()).as(v.reason()).isFalse();
                assertThat(end.reason()).as(v.reason()).startsWith("WebSocket protocol error: the server sent")
                        .contains(v.reason());
                assertThat(sink.texts()).as(v.reason()).containsExactly("{\"ok\":true}");
                UnixWebSocketServer.Frame close = server.readFrame();
                assertThat(close.opcode()).as(v.reason()).isEqualTo(UnixWebSocketServer.CLOSE);
                assertThat(close.closeCode()).as(v.reason()).isEqualTo(v.status());
                assertThat(server.clientClosedConnection()).as(v.reason()).isTrue();
                transport.close();
                assertThat(sink.closedCount).as(v.reason()).hasValue(1);
            }
        }
    }

    @Test
    void validCloseStatusesAreAccepted() throws Exception {
        for (int status : new int[] {1000, 1001, 1003, 1007, 1011, 1012, 1014, 3000, 4999}) {
            try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
                UnixSocketTransport transport = builder(server).build();
                RecordingSink sink = new RecordingSink();
                server.acceptAndUpgrade(transport, sink, "");
                server.sendClose(status, "bye ✓");
                assertThat(sink.awaitClosed(WAIT).reason())
                        .isEqualTo("the server closed the WebSocket (status " + status + ": bye ✓)");
                assertThat(server.readFrame().closeCode()).isEqualTo(status);
                transport.close();
            }
        }
    }

    @Test
    void anAbruptDisconnectEndsTheTransport() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).build();
            RecordingSink sink = new RecordingSink();
            server.acceptAndUpgrade(transport, sink, "");
            // Half a frame, then gone.
            server.write(new byte[] {(byte) 0x81, 10, '{'});
            server.closeConnection();
            TransportTermination end = sink.awaitClosed(WAIT);
            assertThat(end.requested()).isFalse();
            assertThat(end.reason()).isEqualTo("the server closed the connection without a close frame");
            assertThatThrownBy(() -> transport.send(utf8("{}"))).isInstanceOf(CodexTransportException.class)
                    .hasMessageContaining("closed");
            transport.close();
            assertThat(sink.closedCount).hasValue(1);
        }
    }

    // ---- framing, client to server ----

    @Test
    void messagesAreSentMaskedAndFragmentedAtTheServersFrameLimit() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).build();
            server.acceptAndUpgrade(transport, new RecordingSink(),
                    "x-codex-websocket-max-unfragmented-message-bytes: 1000\r\n");
            transport.send(utf8("{\"id\":1,\"method\":\"initialize\"}"));
            UnixWebSocketServer.Frame single = server.readFrame();
            assertThat(single.opcode()).isEqualTo(UnixWebSocketServer.TEXT);
            assertThat(single.fin()).isTrue();
            assertThat(single.masked()).isTrue();
            assertThat(single.text()).isEqualTo("{\"id\":1,\"method\":\"initialize\"}");

            String big = "{\"pad\":\"" + "ü".repeat(2000) + "\"}";
            transport.send(utf8(big));
            List<UnixWebSocketServer.Frame> frames = new ArrayList<>();
            do {
                frames.add(server.readFrame());
            } while (!frames.get(frames.size() - 1).fin());
            assertThat(frames).hasSize(5);
            assertThat(frames.get(0).opcode()).isEqualTo(UnixWebSocketServer.TEXT);
            assertThat(frames.subList(1, 5)).allMatch(f -> f.opcode() == UnixWebSocketServer.CONTINUATION);
            assertThat(frames).allMatch(f -> f.masked() && f.payload().length <= 1000);
            byte[] joined = new byte[0];
            for (UnixWebSocketServer.Frame f : frames) {
                joined = concat(joined, f.payload());
            }
            assertThat(new String(joined, StandardCharsets.UTF_8)).isEqualTo(big);
            transport.close();
        }
    }

    @Test
    void concurrentSendersNeverInterleaveTheirFragments() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).maxFrameBytes(200).build();
            server.acceptAndUpgrade(transport, new RecordingSink(), "");
            int senders = 4;
            int perSender = 25;
            CountDownLatch go = new CountDownLatch(1);
            List<CompletableFuture<Void>> sending = new ArrayList<>();
            for (int s = 0; s < senders; s++) {
                int id = s;
                sending.add(UnixWebSocketServer.async(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < perSender; i++) {
                            transport.send(utf8("{\"s\":" + id + ",\"i\":" + i + ",\"pad\":\""
                                    + "x".repeat(150 * (1 + i % 5)) + "\"}"));
                        }
                    } catch (InterruptedException e) {
                        throw new RuntimeException(e);
                    }
                }));
            }
            go.countDown();
            Set<String> seen = new HashSet<>();
            for (int n = 0; n < senders * perSender; n++) {
                String message = server.readMessage();
                assertThat(message).matches("\\{\"s\":\\d,\"i\":\\d+,\"pad\":\"x+\"}");
                seen.add(message.substring(0, message.indexOf(",\"pad\"")));
            }
            CompletableFuture.allOf(sending.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
            assertThat(seen).hasSize(senders * perSender);
            transport.close();
        }
    }

    @Test
    void aSendTheServerNeverTakesTimesOutAndAbortsTheConnection() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).sendTimeout(Duration.ofMillis(200)).build();
            RecordingSink sink = new RecordingSink();
            server.acceptAndUpgrade(transport, sink, "");
            // The server reads nothing: the socket buffers fill, then a send must give up.
            byte[] chunk = new byte[1024 * 1024];
            Arrays.fill(chunk, (byte) 'x');
            AtomicReference<CodexTransportException> failure = new AtomicReference<>();
            for (int i = 0; i < 64 && failure.get() == null; i++) {
                try {
                    transport.send(chunk);
                } catch (CodexTransportException e) {
                    failure.set(e);
                }
            }
            assertThat(failure.get()).isNotNull()
                    .hasMessageContaining("Timed out after PT0.2S sending on unix socket")
                    .hasMessageContaining("the connection was aborted");
            TransportTermination end = sink.awaitClosed(WAIT);
            assertThat(end.requested()).isFalse();
            assertThat(end.reason()).isEqualTo("send timed out after PT0.2S");
            transport.close();
        }
    }

    // ---- closing ----

    @Test
    void closePerformsTheCloseHandshake() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).build();
            RecordingSink sink = new RecordingSink();
            server.acceptAndUpgrade(transport, sink, "");
            CompletableFuture<Void> closing = UnixWebSocketServer.async(transport::close);
            UnixWebSocketServer.Frame close = server.readFrame();
            assertThat(close.opcode()).isEqualTo(UnixWebSocketServer.CLOSE);
            assertThat(close.closeCode()).isEqualTo(1000);
            server.sendClose(1000, "");
            closing.get(5, TimeUnit.SECONDS);
            TransportTermination end = sink.awaitClosed(WAIT);
            assertThat(end.requested()).isTrue();
            assertThat(end.reason()).isEqualTo("closed by the client");
            assertThat(server.clientClosedConnection()).isTrue();
            transport.close();
            assertThat(sink.closedCount).hasValue(1);
            assertThatThrownBy(() -> transport.send(utf8("{}"))).isInstanceOf(CodexTransportException.class);
        }
    }

    @Test
    void closeIsBoundedWhenTheServerNeverAnswers() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).closeTimeout(Duration.ofMillis(200)).build();
            RecordingSink sink = new RecordingSink();
            server.acceptAndUpgrade(transport, sink, "");
            transport.close();
            assertThat(sink.awaitClosed(WAIT).requested()).isTrue();
            assertThat(server.readFrame().opcode()).isEqualTo(UnixWebSocketServer.CLOSE);
        }
    }

    @Test
    void closeFromTheSinkOnTheReaderThreadDoesNotDeadlock() throws Exception {
        try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
            UnixSocketTransport transport = builder(server).closeTimeout(Duration.ofMillis(200)).build();
            RecordingSink sink = new RecordingSink();
            MessageSink closingSink = new MessageSink() {
                @Override
                public void onMessages(MessageBuffer messages) {
                    sink.onMessages(messages);
                    transport.close();
                }

                @Override
                public void onClosed(TransportTermination termination) {
                    sink.onClosed(termination);
                }
            };
            server.acceptAndUpgrade(transport, closingSink, "");
            server.sendText("{\"close\":\"me\"}");
            TransportTermination end = sink.awaitClosed(WAIT);
            assertThat(end.requested()).isTrue();
            assertThat(sink.closedCount).hasValue(1);
        }
    }

    @Test
    void leavesNoReaderThreadsBehind() throws Exception {
        Set<String> before = StdioTransportTest.codexThreads();
        for (int i = 0; i < 3; i++) {
            try (UnixWebSocketServer server = new UnixWebSocketServer(dir)) {
                UnixSocketTransport transport = builder(server).closeTimeout(Duration.ofMillis(100)).build();
                RecordingSink sink = new RecordingSink();
                server.acceptAndUpgrade(transport, sink, "");
                server.sendText("{}");
                sink.awaitCount(1, WAIT);
                transport.close();
                sink.awaitClosed(WAIT);
            }
        }
        assertThat(StdioTransportTest.codexThreads()).isSubsetOf(before);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** The number of bytes a base64 text decodes to. */
    private static final class Base64Length {
        static int decoded(String base64) {
            return java.util.Base64.getDecoder().decode(base64).length;
        }
    }
}

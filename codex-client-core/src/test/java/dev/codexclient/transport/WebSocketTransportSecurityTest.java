package dev.codexclient.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.transport.BearerTokens;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Where a bearer token may go, when it is asked for, and what a refusal says. */
@Timeout(20)
class WebSocketTransportSecurityTest {

    @Test
    void aTokenIsRefusedInCleartextToARemoteHostUnlessTheUserOptsIn() {
        assertThatThrownBy(() -> WebSocketTransport.builder(URI.create("ws://codex.example.com:4500"))
                .bearerToken("capability-token-123").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Refusing to send a bearer token in cleartext to ws://codex.example.com:4500")
                .hasMessageContaining("allowCleartextBearerToken()")
                .hasMessageContaining("wss://")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("capability-token-123"));
        assertThatThrownBy(() -> WebSocketTransport.builder(URI.create("ws://10.0.0.7:4500"))
                .bearerToken(() -> "minted").build()).isInstanceOf(IllegalStateException.class);

        // Accepted: a transport to exactly the URI given (the token appears in no description).
        assertThat(WebSocketTransport.builder(URI.create("ws://codex.example.com:4500"))
                .bearerToken("capability-token-123").allowCleartextBearerToken().build().describe())
                .isEqualTo("websocket: ws://codex.example.com:4500");
        assertThat(WebSocketTransport.builder(URI.create("wss://codex.example.com"))
                .bearerToken("capability-token-123").build().describe()).isEqualTo("websocket: wss://codex.example.com");
        for (String loopback : new String[] {"127.0.0.1", "127.3.2.1", "localhost", "LOCALHOST", "[::1]"}) {
            assertThat(WebSocketTransport.builder(URI.create("ws://" + loopback + ":4500"))
                    .bearerToken("capability-token-123").build().describe()).as(loopback)
                    .isEqualTo("websocket: ws://" + loopback + ":4500");
        }
        // Without a token, any host is fine.
        assertThat(WebSocketTransport.builder(URI.create("ws://codex.example.com:4500")).build().describe())
                .isEqualTo("websocket: ws://codex.example.com:4500");
    }

    @Test
    void loopbackIsDecidedFromTheAddressNeverFromDns() {
        assertThat(BearerTokens.isLoopbackHost("127.0.0.1")).isTrue();
        assertThat(BearerTokens.isLoopbackHost("[0:0:0:0:0:0:0:1]")).isTrue();
        assertThat(BearerTokens.isLoopbackHost("api.localhost")).isTrue();
        assertThat(BearerTokens.isLoopbackHost("128.0.0.1")).isFalse();
        assertThat(BearerTokens.isLoopbackHost("127.0.0.1.evil.example")).isFalse();
        assertThat(BearerTokens.isLoopbackHost("localhost.evil.example")).isFalse();
        assertThat(BearerTokens.isLoopbackHost("[::2]")).isFalse();
        assertThat(BearerTokens.isLoopbackHost("0.0.0.0")).isFalse();
    }

    @Test
    void anSslContextIsOnlyForWss() throws Exception {
        SSLContext context = SSLContext.getDefault();
        assertThatThrownBy(() -> WebSocketTransport.builder(URI.create("ws://127.0.0.1:4500")).sslContext(context)
                .build()).isInstanceOf(IllegalStateException.class).hasMessageContaining("wss://");
        assertThat(WebSocketTransport.builder(URI.create("wss://127.0.0.1:4500")).sslContext(context).build()
                .describe()).isEqualTo("websocket: wss://127.0.0.1:4500");
    }

    @Test
    void theProviderIsAskedAtConnectNotAtBuild() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        BearerTokenProvider provider = () -> "minted-token-number-" + asked.incrementAndGet();
        try (MiniWebSocketServer server = new MiniWebSocketServer()) {
            WebSocketTransport transport = WebSocketTransport.builder(server.uri()).bearerToken(provider)
                    .closeTimeout(Duration.ofMillis(100)).build();
            assertThat(asked).hasValue(0);
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try {
                    server.accept(101);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            transport.start(new RecordingSink());
            accepted.get(5, TimeUnit.SECONDS);
            assertThat(asked).hasValue(1);
            assertThat(server.requestHeaders).containsEntry("authorization", "Bearer minted-token-number-1");
            transport.close();
        }
    }

    @Test
    void aFailingOrEmptyProviderFailsTheConnectAttempt() {
        WebSocketTransport throwing = WebSocketTransport.builder(URI.create("ws://127.0.0.1:1"))
                .bearerToken(() -> {
                    throw new IllegalStateException("vault sealed");
                }).build();
        assertThatThrownBy(() -> throwing.start(new RecordingSink())).isInstanceOf(CodexTransportException.class)
                .hasMessageContaining("bearer token provider").hasMessageContaining("vault sealed");
        UnixSocketTransport blank = UnixSocketTransport.builder().path(java.nio.file.Path.of("/nonexistent.sock"))
                .bearerToken(() -> " ").build();
        assertThatThrownBy(() -> blank.start(new RecordingSink())).isInstanceOf(CodexTransportException.class)
                .hasMessageContaining("returned no token");
        UnixSocketTransport injecting = UnixSocketTransport.builder()
                .path(java.nio.file.Path.of("/nonexistent.sock")).bearerToken(() -> "abc\r\nX-Evil: 1").build();
        assertThatThrownBy(() -> injecting.start(new RecordingSink())).isInstanceOf(CodexTransportException.class)
                .hasMessageContaining("line break");
    }

    @Test
    void aRefusedHandshakeShowsTheServersReason() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String token = "expired-token-0123456789";
            WebSocketTransport transport = WebSocketTransport.builder(URI.create("ws://127.0.0.1:"
                    + server.getLocalPort())).bearerToken(token).build();
            CompletableFuture<Void> refused = CompletableFuture.runAsync(() -> {
                try (Socket s = server.accept()) {
                    s.getInputStream().read(new byte[4096]);
                    OutputStream out = s.getOutputStream();
                    out.write(("HTTP/1.1 401 Unauthorized\r\ncontent-type: text/plain; charset=utf-8\r\n"
                            + "content-length: 21\r\n\r\nexpired websocket jwt").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertThatThrownBy(() -> transport.start(new RecordingSink()))
                    .isInstanceOf(CodexTransportException.class)
                    .hasMessageContaining("failed with HTTP 401 (the server rejected the credentials; check the "
                            + "bearer token): expired websocket jwt")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(token));
            refused.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aFixedProviderDoesNotShowItsToken() {
        BearerTokenProvider fixed = BearerTokenProvider.of("  fixed-token-abcdef  ");
        assertThat(fixed.bearerToken()).isEqualTo("fixed-token-abcdef");
        assertThat(fixed.toString()).doesNotContain("fixed-token-abcdef");
        assertThatThrownBy(() -> BearerTokenProvider.of(" ")).isInstanceOf(IllegalArgumentException.class);
    }
}

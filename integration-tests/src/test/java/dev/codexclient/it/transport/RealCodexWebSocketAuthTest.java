package dev.codexclient.it.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.transport.BearerTokenProvider;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.ReadinessProbe;
import dev.codexclient.transport.SignedBearerTokens;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import dev.codexclient.transport.UnixSocketTransport;
import dev.codexclient.transport.WebSocketTransport;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * codex's {@code --ws-auth} modes against the real binary: signed bearer tokens minted per connection (HS256 over a
 * shared secret, {@code exp} required, {@code iss} and {@code aud} when configured, 30 s of clock skew), capability
 * tokens, the Unix socket (where codex applies no token check), {@code wss://} through a TLS front end with a
 * certificate made for the test, and the readiness endpoints (which need no token).
 */
@Tag("real-codex")
@Timeout(120)
class RealCodexWebSocketAuthTest {

    private static final String ISSUER = "codex-client-it";
    private static final String AUDIENCE = "codex-app-server";

    @TempDir
    Path dir;

    private Path secretFile() throws Exception {
        byte[] random = new byte[48];
        new SecureRandom().nextBytes(random);
        // A trailing newline, as an editor leaves it: codex trims it, and so must the client.
        return Files.writeString(dir.resolve("ws-secret"), Base64.getEncoder().encodeToString(random) + "\n");
    }

    private static ListeningCodex signedServer(Path secret) throws Exception {
        return ListeningCodex.webSocket("--ws-auth", "signed-bearer-token", "--ws-shared-secret-file",
                secret.toString(), "--ws-issuer", ISSUER, "--ws-audience", AUDIENCE);
    }

    private static SignedBearerTokens.Builder tokens(Path secret) {
        return SignedBearerTokens.builder().sharedSecretFile(secret).issuer(ISSUER).audience(AUDIENCE);
    }

    /** Starts a raw transport and expects the handshake to be refused; returns the message. */
    private static String refusal(Transport transport) {
        try {
            transport.start(new NoSink());
        } catch (CodexTransportException e) {
            return e.getMessage();
        } finally {
            transport.close();
        }
        throw new AssertionError("the server accepted the connection");
    }

    @Test
    void signedBearerTokensAreMintedPerConnectionAndAccepted() throws Exception {
        Path secret = secretFile();
        try (ListeningCodex codex = signedServer(secret)) {
            codex.model.enqueue(ModelStep.reply("authenticated"));
            SignedBearerTokens minter = tokens(secret).build();
            List<String> minted = new CopyOnWriteArrayList<>();
            BearerTokenProvider recording = () -> {
                String token = minter.bearerToken();
                minted.add(token);
                return token;
            };
            try (CodexClient client = codex.clientBuilder(WebSocketTransport.builder(codex.uri())
                    .bearerToken(recording).build()).build()) {
                TurnResult result = client.startThread(codex.threadParams().build()).startTurn("hello")
                        .await(Duration.ofSeconds(60));
                assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
                assertThat(result.finalText()).isEqualTo("authenticated");
            }
            try (CodexClient second = codex.clientBuilder(WebSocketTransport.builder(codex.uri())
                    .bearerToken(recording).build()).build()) {
                assertThat(second.rpc().threadList(ThreadListParams.builder().build()).get(30, TimeUnit.SECONDS))
                        .isNotNull();
            }
            assertThat(minted).hasSize(2);
            // The health endpoints need no token, even with --ws-auth.
            assertThat(ReadinessProbe.of(codex.uri()).isReady()).isTrue();
            assertThat(ReadinessProbe.of(codex.uri()).isHealthy()).isTrue();
        }
    }

    @Test
    void wrongSecretsExpiredTokensAndWrongClaimsAreRefusedWithCodexsReason() throws Exception {
        Path secret = secretFile();
        try (ListeningCodex codex = signedServer(secret)) {
            String wrongSecret = "this-is-not-the-secret-the-server-uses-0123456789";
            assertThat(refusal(WebSocketTransport.builder(codex.uri()).bearerToken(SignedBearerTokens.builder()
                    .sharedSecret(wrongSecret).issuer(ISSUER).audience(AUDIENCE).build()).build()))
                    .contains("failed with HTTP 401 (the server rejected the credentials; check the bearer token): "
                            + "invalid websocket jwt")
                    .doesNotContain(wrongSecret);

            Clock tenMinutesAgo = Clock.fixed(Instant.now().minusSeconds(600), ZoneOffset.UTC);
            assertThat(refusal(WebSocketTransport.builder(codex.uri()).bearerToken(tokens(secret)
                    .clock(tenMinutesAgo).lifetime(Duration.ofSeconds(60)).build()).build()))
                    .endsWith("HTTP 401 (the server rejected the credentials; check the bearer token): "
                            + "expired websocket jwt");

            assertThat(refusal(WebSocketTransport.builder(codex.uri()).bearerToken(tokens(secret)
                    .audience("somebody-else").build()).build())).endsWith("websocket jwt audience mismatch");
            assertThat(refusal(WebSocketTransport.builder(codex.uri()).bearerToken(SignedBearerTokens.builder()
                    .sharedSecretFile(secret).audience(AUDIENCE).build()).build()))
                    .endsWith("websocket jwt issuer mismatch");
            assertThat(refusal(WebSocketTransport.builder(codex.uri()).build()))
                    .endsWith("missing websocket bearer token");

            // Expired 20 s ago but within codex's 30 s of clock skew: accepted.
            Clock eightySecondsAgo = Clock.fixed(Instant.now().minusSeconds(80), ZoneOffset.UTC);
            WebSocketTransport skewed = WebSocketTransport.builder(codex.uri()).bearerToken(tokens(secret)
                    .clock(eightySecondsAgo).lifetime(Duration.ofSeconds(60)).build()).build();
            skewed.start(new NoSink());
            skewed.close();
        }
    }

    @Test
    void capabilityTokensOverTheWebSocket() throws Exception {
        String token = "capability-" + Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[24])
                .replace('A', 'q') + "-7";
        Path tokenFile = Files.writeString(dir.resolve("ws-token"), token);
        try (ListeningCodex codex = ListeningCodex.webSocket("--ws-auth", "capability-token", "--ws-token-file",
                tokenFile.toString())) {
            try (CodexClient client = codex.clientBuilder(WebSocketTransport.builder(codex.uri()).bearerToken(token)
                    .build()).build()) {
                assertThat(client.serverInfo().userAgent()).hasValueSatisfying(a -> assertThat(a).startsWith("codex-client-it/"));
            }
            assertThat(refusal(WebSocketTransport.builder(codex.uri()).bearerToken("not-" + token).build()))
                    .endsWith("invalid websocket bearer token").doesNotContain(token);
        }
    }

    /** codex 0.169.0 accepts {@code --ws-auth} with {@code --listen unix://} but checks no token there. */
    @Test
    void theUnixSocketIsNotTokenChecked() throws Exception {
        Path tokenFile = Files.writeString(dir.resolve("ws-token"), "capability-token-for-the-unix-socket");
        try (ListeningCodex codex = ListeningCodex.unixSocket("--ws-auth", "capability-token", "--ws-token-file",
                tokenFile.toString())) {
            for (UnixSocketTransport transport : List.of(
                    UnixSocketTransport.builder().path(codex.socket()).build(),
                    UnixSocketTransport.builder().path(codex.socket()).bearerToken("a-wrong-token-12345").build())) {
                try (CodexClient client = codex.clientBuilder(transport).build()) {
                    assertThat(client.serverInfo().userAgent()).hasValueSatisfying(a -> assertThat(a).startsWith("codex-client-it/"));
                }
            }
            assertThat(Files.getPosixFilePermissions(codex.socket().toRealPath()))
                    .as("the socket is private to its user instead")
                    .containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
                            java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
        }
    }

    /**
     * codex serves no TLS ({@code --listen} takes {@code ws://} only), so {@code wss://} is shown through a TLS front
     * end with a certificate made for the test: trusted through the SSL context given to the transport, refused by
     * the JVM's default trust store.
     */
    @Test
    void wssThroughATlsFrontEndWithTheUsersSslContext() throws Exception {
        Path secret = secretFile();
        try (ListeningCodex codex = signedServer(secret);
             TlsFrontEnd tls = new TlsFrontEnd(dir, codex.uri().getPort())) {
            URI wss = URI.create("wss://localhost:" + tls.port());
            SSLContext trusting = tls.clientContext();
            try (CodexClient client = codex.clientBuilder(WebSocketTransport.builder(wss).sslContext(trusting)
                    .bearerToken(tokens(secret).build()).build()).build()) {
                assertThat(client.rpc().threadList(ThreadListParams.builder().build()).get(30, TimeUnit.SECONDS))
                        .isNotNull();
            }
            assertThat(tls.connections()).isPositive();

            assertThat(refusal(WebSocketTransport.builder(wss).bearerToken(tokens(secret).build()).build()))
                    .startsWith("Could not connect to websocket: wss://localhost:" + tls.port())
                    .contains("SSLHandshakeException");

            assertThat(ReadinessProbe.builder(wss).sslContext(trusting).build().isReady()).isTrue();
            assertThat(ReadinessProbe.of(wss).isReady()).as("untrusted certificate").isFalse();
        }
    }

    @Test
    void readinessOfASpawnedServer() throws Exception {
        try (ListeningCodex codex = ListeningCodex.webSocket()) {
            // ListeningCodex waited with ReadinessProbe.awaitReady; the endpoints answer from then on.
            ReadinessProbe probe = ReadinessProbe.of(codex.uri());
            assertThat(probe.isReady()).isTrue();
            assertThat(probe.isHealthy()).isTrue();
            codex.kill();
            assertThat(probe.isReady()).isFalse();
            assertThatThrownBy(() -> ReadinessProbe.builder(codex.uri()).pollInterval(Duration.ofMillis(20)).build()
                    .awaitReady(Duration.ofMillis(200)))
                    .isInstanceOf(dev.codexclient.errors.CodexTimeoutException.class)
                    .hasMessageContaining("(last attempt: ConnectException");
        }
    }

    /** A sink for transports that are only opened to see whether the handshake passes. */
    private static final class NoSink implements MessageSink {
        final CompletableFuture<TransportTermination> closed = new CompletableFuture<>();

        @Override
        public void onMessages(MessageBuffer messages) {
            for (int i = 0; i < messages.count(); i++) {
                onMessage(messages.copy(i));
            }
        }

        void onMessage(byte[] message) {
            new String(message, StandardCharsets.UTF_8);
        }

        @Override
        public void onClosed(TransportTermination termination) {
            closed.complete(termination);
        }
    }
}

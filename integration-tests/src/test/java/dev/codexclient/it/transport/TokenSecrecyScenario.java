package dev.codexclient.it.transport;

import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.transport.BearerTokenProvider;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.SignedBearerTokens;
import dev.codexclient.transport.TransportTermination;
import dev.codexclient.transport.WebSocketTransport;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;

/**
 * Runs in a JVM of its own (started by {@link TokenSecrecyTest}) with SLF4J at TRACE from the first logger on:
 * connects to a codex that checks signed bearer tokens, with the right secret, a wrong one, an expired token and an
 * opaque token, and prints every message and {@code toString()} it meets. It never prints a secret or token itself;
 * the tokens it minted go to a file of their own, so that the test can look for them everywhere else.
 *
 * <p>Arguments: the WebSocket URI, the shared secret file, the issuer, the audience, the file for minted tokens.
 */
public final class TokenSecrecyScenario {

    /** Not a JWT, so only registration can mask it. */
    static final String OPAQUE_TOKEN = "opaque-capability-7f3a9c21d4e8";
    static final String WRONG_SECRET = "wrong-secret-5e1b88d0c37a4f29-0123456789abcdef";

    private TokenSecrecyScenario() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        URI uri = URI.create(args[0]);
        Path secret = Path.of(args[1]);
        String issuer = args[2];
        String audience = args[3];
        Path mintedFile = Path.of(args[4]);

        SignedBearerTokens.Builder builder = SignedBearerTokens.builder().sharedSecretFile(secret).issuer(issuer)
                .audience(audience);
        SignedBearerTokens good = builder.build();
        out.println("seen builder " + builder);
        out.println("seen provider " + good);

        WebSocketTransport transport = WebSocketTransport.builder(uri).bearerToken(recording(good, mintedFile))
                .build();
        out.println("seen transport " + transport);
        try (CodexClient client = CodexClient.builder().transport(transport).requestTimeout(Duration.ofSeconds(30))
                .build()) {
            client.rpc().threadList(ThreadListParams.builder().build()).get(30, TimeUnit.SECONDS);
            out.println("check connected=true");
            out.println("seen client " + client);
        }

        attempt(out, "wrong-secret", WebSocketTransport.builder(uri).bearerToken(recording(SignedBearerTokens
                .builder().sharedSecret(WRONG_SECRET).issuer(issuer).audience(audience).build(), mintedFile))
                .build());
        attempt(out, "expired", WebSocketTransport.builder(uri).bearerToken(recording(SignedBearerTokens
                .builder().sharedSecretFile(secret).issuer(issuer).audience(audience)
                .clock(Clock.fixed(Instant.now().minusSeconds(3600), ZoneOffset.UTC)).build(), mintedFile))
                .build());
        BearerTokenProvider opaque = BearerTokenProvider.of(OPAQUE_TOKEN);
        out.println("seen opaque " + opaque);
        attempt(out, "opaque", WebSocketTransport.builder(uri).bearerToken(opaque).build());
        out.println("SCENARIO DONE");
    }

    private static BearerTokenProvider recording(BearerTokenProvider provider, Path file) {
        return () -> {
            String token = provider.bearerToken();
            try {
                Files.writeString(file, token + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return token;
        };
    }

    private static void attempt(PrintStream out, String label, WebSocketTransport transport) {
        try {
            transport.start(new MessageSink() {
                @Override
                public void onMessages(MessageBuffer messages) {
                    for (int i = 0; i < messages.count(); i++) {
                        onMessage(messages.copy(i));
                    }
                }

                void onMessage(byte[] message) {
                }

                @Override
                public void onClosed(TransportTermination termination) {
                }
            });
            out.println("check " + label + "-refused=false");
        } catch (CodexTransportException e) {
            out.println("check " + label + "-refused=" + e.getMessage().contains("HTTP 401"));
            out.println("seen " + label + "-exception " + e);
            e.printStackTrace(out);
        } finally {
            transport.close();
        }
    }
}

package dev.codexclient.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.internal.Redactor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SignedBearerTokensTest {

    private static final String SECRET = "k9V2pQ7xL4mN8rT1wY6zB3cF5hJ0sD2a";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode part(String token, int index) throws Exception {
        return JSON.readTree(Base64.getUrlDecoder().decode(token.split("\\.")[index]));
    }

    @Test
    void mintsAnHs256JwtWithTheConfiguredClaims() throws Exception {
        Clock clock = Clock.fixed(Instant.ofEpochSecond(1_800_000_000L), ZoneOffset.UTC);
        SignedBearerTokens tokens = SignedBearerTokens.builder().sharedSecret(SECRET).issuer("ci-runner")
                .audience("codex-app-server").lifetime(Duration.ofSeconds(90)).clock(clock).build();
        String token = tokens.bearerToken();
        String[] parts = token.split("\\.");
        assertThat(parts).hasSize(3);
        assertThat(part(token, 0).toString()).isEqualTo("{\"alg\":\"HS256\",\"typ\":\"JWT\"}");
        JsonNode claims = part(token, 1);
        assertThat(claims.path("iat").asLong()).isEqualTo(1_800_000_000L);
        assertThat(claims.path("exp").asLong()).isEqualTo(1_800_000_090L);
        assertThat(claims.path("iss").asText()).isEqualTo("ci-runner");
        assertThat(claims.path("aud").asText()).isEqualTo("codex-app-server");
        assertThat(claims.has("nbf")).as("no nbf: a client clock ahead of the server's must not fail").isFalse();

        // An independent check of the signature.
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        byte[] expected = mac.doFinal((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
        assertThat(Base64.getUrlDecoder().decode(parts[2])).isEqualTo(expected);
        assertThat(token).doesNotContain("=");
    }

    @Test
    void everyCallMintsAFreshTokenFromTheClock() throws Exception {
        long[] now = {1_700_000_000L};
        Clock clock = new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return Instant.ofEpochSecond(now[0]);
            }
        };
        SignedBearerTokens tokens = SignedBearerTokens.builder().sharedSecret(SECRET).clock(clock).build();
        String first = tokens.bearerToken();
        now[0] += 61;
        String second = tokens.bearerToken();
        assertThat(second).isNotEqualTo(first);
        assertThat(part(first, 1).path("exp").asLong()).isEqualTo(1_700_000_060L);
        assertThat(part(second, 1).path("exp").asLong()).isEqualTo(1_700_000_121L);
        assertThat(part(second, 1).has("iss")).isFalse();
        assertThat(part(second, 1).has("aud")).isFalse();
    }

    @Test
    void claimsAreEscapedAsJson() throws Exception {
        SignedBearerTokens tokens = SignedBearerTokens.builder().sharedSecret(SECRET).issuer("a \"quoted\" \\ name\t")
                .build();
        assertThat(part(tokens.bearerToken(), 1).path("iss").asText()).isEqualTo("a \"quoted\" \\ name");
    }

    @Test
    void theSecretFileIsTrimmedAsCodexTrimsIt(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("secret"), "\n  " + SECRET + "  \n");
        String fromFile = SignedBearerTokens.builder().sharedSecretFile(file)
                .clock(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC)).build().bearerToken();
        String fromText = SignedBearerTokens.builder().sharedSecret(SECRET)
                .clock(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC)).build().bearerToken();
        assertThat(fromFile).isEqualTo(fromText);
    }

    @Test
    void refusesSecretsCodexWouldRefuse(@TempDir Path dir) {
        assertThatThrownBy(() -> SignedBearerTokens.builder().sharedSecret("too short"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 32");
        assertThatThrownBy(() -> SignedBearerTokens.builder().build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("shared secret is required");
        assertThatThrownBy(() -> SignedBearerTokens.builder().sharedSecretFile(dir.resolve("missing")))
                .isInstanceOf(java.io.UncheckedIOException.class);
        assertThatThrownBy(() -> SignedBearerTokens.builder().lifetime(Duration.ofMillis(500)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SignedBearerTokens.builder().audience(" "))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void neitherTheSecretNorATokenIsShown() {
        SignedBearerTokens.Builder builder = SignedBearerTokens.builder().sharedSecret(SECRET).audience("aud");
        SignedBearerTokens tokens = builder.build();
        String token = tokens.bearerToken();
        assertThat(tokens.toString()).isEqualTo("SignedBearerTokens[HS256, lifetime=PT1M, audience=aud]")
                .doesNotContain(SECRET);
        assertThat(builder.toString()).doesNotContain(SECRET);
        // What a transport does with the token it sends: a fresh redactor masks every JWT by its shape.
        assertThat(new Redactor().redact("token " + token + " Bearer " + token)).doesNotContain(token);
    }
}

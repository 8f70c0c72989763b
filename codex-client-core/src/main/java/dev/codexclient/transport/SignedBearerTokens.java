package dev.codexclient.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Mints short-lived signed bearer tokens for codex's {@code --ws-auth signed-bearer-token} mode: a JWT signed with
 * HMAC-SHA256 over the secret the server reads from {@code --ws-shared-secret-file}, carrying {@code iat} and
 * {@code exp} and, when configured, {@code iss} ({@code --ws-issuer}) and {@code aud} ({@code --ws-audience}).
 * Each connection attempt gets a new token, so connecting again never reuses an expired one.
 *
 * <pre>{@code
 * // codex app-server --listen ws://127.0.0.1:4500 --ws-auth signed-bearer-token \
 * //     --ws-shared-secret-file /etc/codex/ws-secret --ws-audience codex-app-server
 * SignedBearerTokens tokens = SignedBearerTokens.builder()
 *         .sharedSecretFile(Path.of("/etc/codex/ws-secret"))
 *         .audience("codex-app-server")
 *         .build();
 * Transport transport = WebSocketTransport.builder(URI.create("ws://127.0.0.1:4500")).bearerToken(tokens).build();
 * }</pre>
 *
 * <p>codex checks a token when the connection opens: {@code exp} must not have passed more than its clock skew
 * allowance ago ({@code --ws-max-clock-skew-seconds}, 30 s by default), and issuer and audience must match exactly
 * when the server expects them. The connection stays open after the token expires. The secret is masked in every log
 * line and message of the SDK, and neither it nor a token appears in {@link #toString()}.
 */
public final class SignedBearerTokens implements BearerTokenProvider {

    /** codex refuses shorter secrets when it starts. */
    public static final int MIN_SECRET_BYTES = 32;

    private static final String HEADER = base64Url("{\"alg\":\"HS256\",\"typ\":\"JWT\"}"
            .getBytes(StandardCharsets.UTF_8));

    private final SecretKeySpec key;
    private final Optional<String> issuer;
    private final Optional<String> audience;
    private final Duration lifetime;
    private final Clock clock;

    private SignedBearerTokens(Builder b) {
        this.key = new SecretKeySpec(b.secret, "HmacSHA256");
        this.issuer = Optional.ofNullable(b.issuer);
        this.audience = Optional.ofNullable(b.audience);
        this.lifetime = b.lifetime;
        this.clock = b.clock;
    }

    /** {@return a new builder; a shared secret is required} */
    public static Builder builder() {
        return new Builder();
    }

    /** Mints a new token, valid from now for the configured lifetime. */
    @Override
    public String bearerToken() {
        long now = clock.instant().getEpochSecond();
        StringBuilder claims = new StringBuilder(96).append("{\"iat\":").append(now)
                .append(",\"exp\":").append(now + lifetime.getSeconds());
        issuer.ifPresent(iss -> claims.append(",\"iss\":").append(jsonString(iss)));
        audience.ifPresent(aud -> claims.append(",\"aud\":").append(jsonString(aud)));
        claims.append('}');
        String signingInput = HEADER + '.' + base64Url(claims.toString().getBytes(StandardCharsets.UTF_8));
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return signingInput + '.' + base64Url(mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required of every Java platform", e);
        }
    }

    /** {@return how long each token is valid, in whole seconds} */
    public Duration lifetime() {
        return lifetime;
    }

    /** {@return the {@code iss} claim, or empty when none is configured} */
    public Optional<String> issuer() {
        return issuer;
    }

    /** {@return the {@code aud} claim, or empty when none is configured} */
    public Optional<String> audience() {
        return audience;
    }

    /** Names the algorithm and claims; never the secret. */
    @Override
    public String toString() {
        return "SignedBearerTokens[HS256, lifetime=" + lifetime + issuer.map(i -> ", issuer=" + i).orElse("")
                + audience.map(a -> ", audience=" + a).orElse("") + "]";
    }

    private static String base64Url(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static String jsonString(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    /** Configures {@link SignedBearerTokens}. */
    public static final class Builder {
        private byte[] secret;
        private String issuer;
        private String audience;
        private Duration lifetime = Duration.ofMinutes(1);
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        /**
         * The shared secret, byte for byte as codex uses it: the content of its {@code --ws-shared-secret-file}
         * with surrounding whitespace removed. At least {@value #MIN_SECRET_BYTES} bytes. The array is copied.
         *
         * @param secret the secret's bytes
         * @return this builder
         * @throws IllegalArgumentException when the secret is shorter than {@value #MIN_SECRET_BYTES} bytes
         */
        public Builder sharedSecret(byte[] secret) {
            Objects.requireNonNull(secret, "secret");
            if (secret.length < MIN_SECRET_BYTES) {
                throw new IllegalArgumentException("the shared secret has " + secret.length + " bytes; codex "
                        + "requires at least " + MIN_SECRET_BYTES);
            }
            this.secret = secret.clone();
            return this;
        }

        /**
         * The shared secret as text (its UTF-8 bytes), surrounding whitespace removed as codex does.
         *
         * @param secret the secret
         * @return this builder
         * @throws IllegalArgumentException when the stripped secret is shorter than {@value #MIN_SECRET_BYTES} bytes
         */
        public Builder sharedSecret(String secret) {
            Objects.requireNonNull(secret, "secret");
            return sharedSecret(secret.strip().getBytes(StandardCharsets.UTF_8));
        }

        /**
         * Reads the shared secret from the same file the server is given with {@code --ws-shared-secret-file},
         * trimmed the way codex trims it. The file is read now, once.
         *
         * @param file the secret file, read as UTF-8
         * @return this builder
         * @throws UncheckedIOException     when the file cannot be read
         * @throws IllegalArgumentException when the stripped secret is shorter than {@value #MIN_SECRET_BYTES} bytes
         */
        public Builder sharedSecretFile(Path file) {
            Objects.requireNonNull(file, "file");
            String content;
            try {
                content = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the shared secret file " + file, e);
            }
            return sharedSecret(content);
        }

        /**
         * The {@code iss} claim; set it when the server runs with {@code --ws-issuer}.
         *
         * @param issuer the issuer, as given to the server; surrounding whitespace is removed
         * @return this builder
         * @throws IllegalArgumentException when {@code issuer} is blank
         */
        public Builder issuer(String issuer) {
            this.issuer = nonBlank(issuer, "issuer");
            return this;
        }

        /**
         * The {@code aud} claim; set it when the server runs with {@code --ws-audience}.
         *
         * @param audience the audience, as given to the server; surrounding whitespace is removed
         * @return this builder
         * @throws IllegalArgumentException when {@code audience} is blank
         */
        public Builder audience(String audience) {
            this.audience = nonBlank(audience, "audience");
            return this;
        }

        /**
         * How long each token is valid, in whole seconds (default one minute). A token only has to be valid when a
         * connection opens, so short is better: a leaked token soon becomes useless.
         *
         * @param lifetime the validity; fractions of a second are dropped
         * @return this builder
         * @throws IllegalArgumentException when {@code lifetime} is shorter than one second
         */
        public Builder lifetime(Duration lifetime) {
            Objects.requireNonNull(lifetime, "lifetime");
            if (lifetime.getSeconds() < 1) {
                throw new IllegalArgumentException("lifetime must be at least one second: " + lifetime);
            }
            this.lifetime = Duration.ofSeconds(lifetime.getSeconds());
            return this;
        }

        /**
         * The clock that dates the tokens (default the system clock, UTC).
         *
         * @param clock the clock; tests pass a fixed one
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Builds the provider. The secret never leaves it: only the tokens it mints are sent, and the transport that
         * sends one masks it in its logs and messages (as every JWT).
         *
         * @return the provider
         * @throws IllegalStateException when no shared secret was set
         */
        public SignedBearerTokens build() {
            if (secret == null) {
                throw new IllegalStateException("a shared secret is required: call sharedSecret(...) or "
                        + "sharedSecretFile(...)");
            }
            return new SignedBearerTokens(this);
        }

        private static String nonBlank(String value, String what) {
            Objects.requireNonNull(value, what);
            String stripped = value.strip();
            if (stripped.isEmpty()) {
                throw new IllegalArgumentException(what + " is blank");
            }
            return stripped;
        }

        @Override
        public String toString() {
            return "SignedBearerTokens.Builder[secret " + (secret == null ? "not set" : "set") + "]";
        }
    }
}

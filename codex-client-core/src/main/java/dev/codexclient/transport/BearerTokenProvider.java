package dev.codexclient.transport;

import java.util.Objects;

/**
 * Supplies the bearer token a WebSocket transport sends with its opening handshake
 * ({@code Authorization: Bearer <token>}, codex {@code --ws-auth}). It is asked once per connection attempt, on the
 * thread that connects, so a provider that mints short-lived tokens (such as {@link SignedBearerTokens}) gives every
 * connection, and every new connection after a loss, a fresh one.
 *
 * <pre>{@code
 * Transport transport = WebSocketTransport.builder(URI.create("wss://codex.internal:4500"))
 *         .bearerToken(() -> vault.read("codex-ws-token"))
 *         .build();
 * }</pre>
 *
 * <p>Transports mask the tokens they are given in logs and error messages; an implementation should not log them
 * either.
 */
@FunctionalInterface
public interface BearerTokenProvider {

    /**
     * The token for the connection being opened now. Must be non-blank and free of line breaks; an exception thrown
     * here fails that connection attempt with a {@link dev.codexclient.errors.CodexTransportException}.
     *
     * @return the token, without the {@code Bearer } prefix
     */
    String bearerToken();

    /**
     * A provider that always returns {@code token}, for codex's {@code --ws-auth capability-token} mode. The
     * transport that sends it masks it in its logs and messages, and the provider's {@code toString()} does not show
     * it.
     *
     * @param token the capability token
     * @return the provider
     * @throws IllegalArgumentException when the token is blank
     */
    static BearerTokenProvider of(String token) {
        Objects.requireNonNull(token, "token");
        String stripped = token.strip();
        if (stripped.isEmpty()) {
            throw new IllegalArgumentException("bearer token is blank");
        }
        return new BearerTokenProvider() {
            @Override
            public String bearerToken() {
                return stripped;
            }

            @Override
            public String toString() {
                return "BearerTokenProvider[fixed token]";
            }
        };
    }
}

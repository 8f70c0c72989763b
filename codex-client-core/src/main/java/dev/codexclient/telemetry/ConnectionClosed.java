package dev.codexclient.telemetry;

import dev.codexclient.errors.CodexException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The connection ended.
 *
 * @param cause        why, when it was not the user's {@link dev.codexclient.CodexClient#close()}
 * @param openFor      from the end of the handshake to the end of the connection
 */
public record ConnectionClosed(Optional<CodexException> cause, Duration openFor) {
    /**
     * Checks that every member is present.
     *
     * @param cause        why, when it was not the user's {@link dev.codexclient.CodexClient#close()}
     * @param openFor      from the end of the handshake to the end of the connection
     */
    public ConnectionClosed {
        Objects.requireNonNull(cause, "cause");
        Objects.requireNonNull(openFor, "openFor");
    }

    /** {@return whether the user closed the client, rather than the connection failing} */
    public boolean closedByUser() {
        return cause.isEmpty();
    }
}

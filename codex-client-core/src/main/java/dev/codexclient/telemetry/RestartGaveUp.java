package dev.codexclient.telemetry;

import dev.codexclient.errors.CodexException;
import java.util.Objects;

/**
 * The restart policy gave up restarting the connection; the client is closed.
 *
 * @param cause    the last failure
 * @param attempts how many attempts were made
 */
public record RestartGaveUp(CodexException cause, int attempts) {
    /**
     * Checks that every member is present.
     *
     * @param cause    the last failure
     * @param attempts how many attempts were made
     */
    public RestartGaveUp {
        Objects.requireNonNull(cause, "cause");
    }
}

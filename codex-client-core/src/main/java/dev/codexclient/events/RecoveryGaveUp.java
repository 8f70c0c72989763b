package dev.codexclient.events;

import dev.codexclient.errors.CodexException;
import java.util.Objects;

/**
 * The recovery policy gave up restoring the connection; the client is closed.
 *
 * @param cause    the last failure
 * @param attempts how many attempts were made
 */
public record RecoveryGaveUp(CodexException cause, int attempts) {
    /**
     * Checks that every member is present.
     *
     * @param cause    the last failure
     * @param attempts how many attempts were made
     */
    public RecoveryGaveUp {
        Objects.requireNonNull(cause, "cause");
    }
}

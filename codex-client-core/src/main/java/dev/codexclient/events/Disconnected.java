package dev.codexclient.events;

import dev.codexclient.errors.CodexException;
import java.util.Objects;

/**
 * The connection was lost and the client's recovery policy will try to restore it.
 *
 * @param cause      how it was lost (e.g. the server process exited, the socket closed)
 * @param heldThreads how many threads the user holds, to be resumed once a connection is restored
 */
public record Disconnected(CodexException cause, int heldThreads) {
    /**
     * Checks that every member is present.
     *
     * @param cause      how it was lost (e.g. the server process exited, the socket closed)
     * @param heldThreads how many threads the user holds, to be resumed once a connection is restored
     */
    public Disconnected {
        Objects.requireNonNull(cause, "cause");
    }
}

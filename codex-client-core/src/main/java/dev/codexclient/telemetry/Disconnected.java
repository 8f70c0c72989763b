package dev.codexclient.telemetry;

import dev.codexclient.errors.CodexException;
import java.util.Objects;

/**
 * The connection was lost and the client's restart policy will try to restart it.
 *
 * @param cause      how it was lost (e.g. the server process exited, the socket closed)
 * @param heldThreads how many threads the user holds, to be resumed once a connection is restarted
 */
public record Disconnected(CodexException cause, int heldThreads) {
    /**
     * Checks that every member is present.
     *
     * @param cause      how it was lost (e.g. the server process exited, the socket closed)
     * @param heldThreads how many threads the user holds, to be resumed once a connection is restarted
     */
    public Disconnected {
        Objects.requireNonNull(cause, "cause");
    }
}

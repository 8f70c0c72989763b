package dev.codexclient.events;

import dev.codexclient.ServerInfo;
import java.time.Duration;
import java.util.Objects;

/**
 * The handshake completed.
 *
 * @param transport  what the client is connected over, without credentials: e.g. {@code stdio},
 *                   {@code websocket}, {@code unix}, {@code in-memory}
 * @param serverInfo what the server said about itself
 * @param handshake  from sending {@code initialize} to its answer
 */
public record ConnectionOpened(String transport, ServerInfo serverInfo, Duration handshake) {
    /**
     * Checks that every member is present.
     *
     * @param transport  what the client is connected over, without credentials: e.g. {@code stdio}, {@code websocket},
     *                   {@code unix}, {@code in-memory}
     * @param serverInfo what the server said about itself
     * @param handshake  from sending {@code initialize} to its answer
     */
    public ConnectionOpened {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(serverInfo, "serverInfo");
        Objects.requireNonNull(handshake, "handshake");
    }
}

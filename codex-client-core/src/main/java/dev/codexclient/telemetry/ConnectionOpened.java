package dev.codexclient.telemetry;

import dev.codexclient.ServerInfo;
import dev.codexclient.transport.TransportKind;
import java.time.Duration;
import java.util.Objects;

/**
 * The handshake completed.
 *
 * @param transport  what kind of connection the client is on, e.g. {@link TransportKind#STDIO}; compare with its
 *                   constants, or use {@link TransportKind#name()} as a metric tag
 * @param serverInfo what the server said about itself
 * @param handshake  from sending {@code initialize} to its answer
 */
public record ConnectionOpened(TransportKind transport, ServerInfo serverInfo, Duration handshake) {
    /**
     * Checks that every member is present.
     *
     * @param transport  what kind of connection the client is on
     * @param serverInfo what the server said about itself
     * @param handshake  from sending {@code initialize} to its answer
     */
    public ConnectionOpened {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(serverInfo, "serverInfo");
        Objects.requireNonNull(handshake, "handshake");
    }
}

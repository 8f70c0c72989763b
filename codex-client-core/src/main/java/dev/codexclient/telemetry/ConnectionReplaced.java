package dev.codexclient.telemetry;

import dev.codexclient.ServerInfo;
import java.time.Duration;
import java.util.Objects;

/**
 * A new connection replaced a lost one.
 *
 * @param attempt    which attempt succeeded, from 1
 * @param serverInfo what the new server said about itself
 * @param downtime   from the loss to the end of the new handshake
 */
public record ConnectionReplaced(int attempt, ServerInfo serverInfo, Duration downtime) {
    /**
     * Checks that every member is present.
     *
     * @param attempt    which attempt succeeded, from 1
     * @param serverInfo what the new server said about itself
     * @param downtime   from the loss to the end of the new handshake
     */
    public ConnectionReplaced {
        Objects.requireNonNull(serverInfo, "serverInfo");
        Objects.requireNonNull(downtime, "downtime");
    }
}

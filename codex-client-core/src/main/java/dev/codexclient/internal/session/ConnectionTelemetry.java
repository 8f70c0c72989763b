package dev.codexclient.internal.session;

import dev.codexclient.ServerInfo;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.telemetry.TelemetryEmitter;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.telemetry.ConnectionClosed;
import dev.codexclient.telemetry.ConnectionOpened;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportKind;
import java.time.Duration;
import java.util.Optional;

/**
 * The telemetry of the client's connection: {@link ConnectionOpened} once the first handshake is done, and
 * {@link ConnectionClosed} at the end, when the opening was told. Builds nothing without a telemetry listener.
 */
final class ConnectionTelemetry {
    private final TelemetryEmitter telemetry;
    private final Scheduler scheduler;
    /** Whether the listener was told of the opening (so it is told of the end); when, on the scheduler's clock. */
    private volatile boolean opened;
    private volatile long openedAtNanos;

    ConnectionTelemetry(TelemetryEmitter telemetry, Scheduler scheduler) {
        this.telemetry = telemetry;
        this.scheduler = scheduler;
    }

    /** The client is ready: tells the listener, which learns of the connection's end from now on. */
    void opened(Transport transport, ServerInfo info, Duration handshake) {
        if (!telemetry.enabled()) {
            return;
        }
        ConnectionOpened report = new ConnectionOpened(TransportKind.of(transport), info, handshake);
        openedAtNanos = scheduler.nanoTime();
        opened = true;
        telemetry.emit(l -> l.connectionOpened(report));
    }

    /**
     * The connection ended: tells the listener, when it was told of the opening.
     *
     * @param failure why, when it failed; null when the user closed the client
     */
    void closed(CodexTransportException failure) {
        if (!telemetry.enabled() || !opened) {
            return;
        }
        ConnectionClosed report = new ConnectionClosed(Optional.ofNullable(failure),
                Duration.ofNanos(Math.max(0, scheduler.nanoTime() - openedAtNanos)));
        telemetry.emit(l -> l.connectionClosed(report));
    }
}

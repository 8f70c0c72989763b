package dev.codexclient.internal.requests;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.internal.rpc.IncomingRequest;
import dev.codexclient.internal.telemetry.TelemetryEmitter;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.telemetry.ServerRequestHandled;
import dev.codexclient.telemetry.ServerRequestOutcome;
import java.time.Duration;
import java.util.Optional;

/**
 * Reports how each server request ended, as a {@link ServerRequestHandled}, from what {@link ServerRequestRouter}
 * decided: answered by the user's handler or policy, by the client's default, failed, or abandoned; with the approval
 * decision it made. Exists only for a client with a telemetry listener.
 */
public final class ServerRequestTelemetry {
    private final TelemetryEmitter emitter;
    private final Scheduler scheduler;

    /**
     * @param emitter   where the records go
     * @param scheduler the clock of the handling durations
     */
    public ServerRequestTelemetry(TelemetryEmitter emitter, Scheduler scheduler) {
        this.emitter = emitter;
        this.scheduler = scheduler;
    }

    /** {@return the time on the clock the handling durations are measured with, in nanoseconds} */
    long nanoTime() {
        return scheduler.nanoTime();
    }

    /**
     * A request was decided, or abandoned (withdrawn by the server, or its connection ended).
     *
     * @param request      the request
     * @param arrivedNanos when its handling began, on {@link #nanoTime()}'s clock
     * @param outcome      how it ended
     * @param approval     the approval decision made; empty for any other request, or none made
     */
    void handled(IncomingRequest request, long arrivedNanos, ServerRequestOutcome outcome,
                 Optional<ApprovalDecision> approval) {
        Duration handling = Duration.ofNanos(Math.max(0, scheduler.nanoTime() - arrivedNanos));
        ServerRequestHandled report = new ServerRequestHandled(request.method(), idText(request.id()), outcome,
                approval, handling);
        emitter.emit(l -> l.serverRequestHandled(report));
    }

    /** The id as it was on the wire, without the quotes {@link RequestId.Text#toString()} adds. */
    static String idText(RequestId id) {
        return id instanceof RequestId.Text t ? t.value() : id.toString();
    }
}

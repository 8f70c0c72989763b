package dev.codexclient.internal.requests;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.telemetry.ServerRequestHandled;
import dev.codexclient.telemetry.ServerRequestOutcome;
import dev.codexclient.internal.telemetry.TelemetryEmitter;
import dev.codexclient.internal.rpc.IncomingRequest;
import dev.codexclient.internal.rpc.ServerRequestObserver;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.RequestId;
import java.time.Duration;
import java.util.Optional;

/**
 * Turns the end of each server request into a {@link ServerRequestHandled} event, from {@link ServerRequestRouter}'s
 * {@link ServerRequestDecision}: answered by the user's handler or policy, by the client's default, failed, or
 * abandoned; with the approval decision it made. Exists only for a client with a telemetry listener.
 */
public final class ServerRequestTelemetry implements ServerRequestObserver {
    private final TelemetryEmitter emitter;
    private final Scheduler scheduler;

    /**
     * @param emitter   where the events go
     * @param scheduler the clock of the handling durations
     */
    public ServerRequestTelemetry(TelemetryEmitter emitter, Scheduler scheduler) {
        this.emitter = emitter;
        this.scheduler = scheduler;
    }

    @Override
    public long nanoTime() {
        return scheduler.nanoTime();
    }

    @Override
    public void handled(IncomingRequest request, long arrivedNanos, Object result, Throwable error,
                        boolean abandoned) {
        Duration handling = Duration.ofNanos(Math.max(0, scheduler.nanoTime() - arrivedNanos));
        ServerRequestOutcome outcome;
        Optional<ApprovalDecision> decision = Optional.empty();
        if (abandoned) {
            outcome = ServerRequestOutcome.ABANDONED;
        } else if (result instanceof ServerRequestDecision decided) {
            outcome = decided.outcome();
            decision = decided.approval();
        } else {
            // Not ServerRequestRouter's: the connection could not run the handler (the client is closing).
            outcome = error == null ? ServerRequestOutcome.ANSWERED : ServerRequestOutcome.FAILED;
        }
        ServerRequestHandled event = new ServerRequestHandled(request.method(), idText(request.id()), outcome,
                decision, handling);
        emitter.emit(l -> l.serverRequestHandled(event));
    }

    /** The id as it was on the wire, without the quotes {@link RequestId.Text#toString()} adds. */
    static String idText(RequestId id) {
        return id instanceof RequestId.Text t ? t.value() : id.toString();
    }
}

package dev.codexclient.internal.requests;

import dev.codexclient.events.ServerRequestHandled;
import dev.codexclient.events.ServerRequestOutcome;
import dev.codexclient.internal.events.EventEmitter;
import dev.codexclient.internal.rpc.IncomingRequest;
import dev.codexclient.internal.rpc.ServerRequestObserver;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.RequestId;
import java.time.Duration;
import java.util.Optional;

/**
 * Turns the end of each server request into a {@link ServerRequestHandled} event: answered by the user's handler
 * or policy, by the client's default, failed, or abandoned; with the approval decision an answer carries. Exists
 * only for a client with an event listener.
 */
final class ServerRequestTelemetry implements ServerRequestObserver {
    private final EventEmitter emitter;
    private final Scheduler scheduler;
    private final ServerRequestRouter router;

    ServerRequestTelemetry(EventEmitter emitter, Scheduler scheduler, ServerRequestRouter router) {
        this.emitter = emitter;
        this.scheduler = scheduler;
        this.router = router;
    }

    @Override
    public long nanoTime() {
        return scheduler.nanoTime();
    }

    @Override
    public void handled(IncomingRequest request, long arrivedNanos, Object result, Throwable error,
                        boolean abandoned) {
        Duration handling = Duration.ofNanos(Math.max(0, scheduler.nanoTime() - arrivedNanos));
        boolean byDefault = router.answersByDefault(request);
        ServerRequestOutcome outcome;
        if (abandoned) {
            outcome = ServerRequestOutcome.ABANDONED;
        } else if (byDefault) {
            // The client's own answer, an error included (a method it has no handler for).
            outcome = ServerRequestOutcome.DEFAULTED;
        } else {
            outcome = error == null ? ServerRequestOutcome.ANSWERED : ServerRequestOutcome.FAILED;
        }
        Optional<ApprovalDecision> decision = abandoned || error != null ? Optional.empty()
                : ServerRequestRouter.decisionOf(result);
        ServerRequestHandled event = new ServerRequestHandled(request.method(), idText(request.id()), outcome,
                decision, handling);
        emitter.emit(l -> l.serverRequestHandled(event));
    }

    /** The id as it was on the wire, without the quotes {@link RequestId.Text#toString()} adds. */
    static String idText(RequestId id) {
        return id instanceof RequestId.Text t ? t.value() : id.toString();
    }
}

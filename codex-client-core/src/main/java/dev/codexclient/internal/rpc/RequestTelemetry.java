package dev.codexclient.internal.rpc;

import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.telemetry.RequestEnded;
import dev.codexclient.telemetry.RequestOutcome;
import dev.codexclient.telemetry.RequestStarted;
import dev.codexclient.internal.telemetry.TelemetryEmitter;
import dev.codexclient.internal.time.Scheduler;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.IntSupplier;

/**
 * Tells the client's telemetry listener about the requests the client sends: a {@link RequestStarted} before the first
 * attempt leaves, a {@link RequestEnded} when the call's outcome is known, whoever learns it (the reader thread, the
 * deadline check, a cancelling caller). Used only when a listener is registered: without one the correlator never
 * calls here, and no event is built.
 */
final class RequestTelemetry {
    private final TelemetryEmitter emitter;
    private final Scheduler scheduler;

    RequestTelemetry(TelemetryEmitter emitter, Scheduler scheduler) {
        this.emitter = emitter;
        this.scheduler = scheduler;
    }

    /**
     * Announces a call whose first attempt is about to be sent, and arranges its end event.
     *
     * @return tells the end at once (once): for a result handed over on a lane, which ends the request where it is
     *         taken, before what the lane does with it
     * @param startedNanos when the call started, on the scheduler's clock
     * @param attempts     how many attempts were sent, read when the call ends
     */
    BiConsumer<Object, Throwable> started(String method, String requestId, long startedNanos, CallFuture<?> future,
                                          IntSupplier attempts) {
        RequestStarted started = new RequestStarted(emitter.nextSequence(), method, requestId);
        emitter.emit(l -> l.requestStarted(started));
        AtomicBoolean told = new AtomicBoolean();
        BiConsumer<Object, Throwable> end = (value, error) -> {
            if (!told.compareAndSet(false, true)) {
                return;
            }
            Duration duration = Duration.ofNanos(Math.max(0, scheduler.nanoTime() - startedNanos));
            RequestEnded ended = new RequestEnded(started, outcome(error), asCodexException(error), duration,
                    Math.max(1, attempts.getAsInt()));
            emitter.emit(l -> l.requestEnded(ended));
        };
        future.onSettled(end);
        return end;
    }

    /** How a call ended, from what its future was settled with. */
    static RequestOutcome outcome(Throwable error) {
        if (error == null) {
            return RequestOutcome.SUCCEEDED;
        }
        if (error instanceof CancellationException) {
            return RequestOutcome.CANCELLED;
        }
        if (error instanceof CodexTimeoutException) {
            return RequestOutcome.TIMED_OUT;
        }
        if (error instanceof CodexRpcException) {
            return RequestOutcome.RPC_ERROR;
        }
        if (error instanceof CodexTransportException) {
            return RequestOutcome.CONNECTION_LOST;
        }
        return RequestOutcome.CLIENT_ERROR;
    }

    private static Optional<CodexException> asCodexException(Throwable error) {
        return error instanceof CodexException ce ? Optional.of(ce) : Optional.empty();
    }
}

package dev.codexclient.internal.session;

import dev.codexclient.errors.CodexException;
import dev.codexclient.telemetry.TokenCounts;
import dev.codexclient.telemetry.TurnEnded;
import dev.codexclient.telemetry.TurnStarted;
import dev.codexclient.internal.telemetry.TelemetryEmitter;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.protocol.TurnStatus;
import java.time.Duration;
import java.util.Optional;

/**
 * The events of one turn: {@link TurnStarted} once the server names it, {@link TurnEnded} when it ends, with the
 * tokens it spent (as the turn's progress counts them). Exists only for a client with a telemetry listener; a turn that ends before it was named (its
 * start failed) has neither event.
 *
 * <p>Threading: {@link #named} on the turn's lane, where the turn is bound; {@link #ended} wherever the turn ends;
 * the start and the end agree under this object's lock.
 */
public final class TurnTelemetry {
    private final TelemetryEmitter emitter;
    private final Scheduler scheduler;
    /** When the client sent turn/start, on the scheduler's clock. */
    private final long startNanos;
    // Guarded by this.
    private TurnStarted started;
    private boolean ended;

    public TurnTelemetry(TelemetryEmitter emitter, Scheduler scheduler) {
        this.emitter = emitter;
        this.scheduler = scheduler;
        this.startNanos = scheduler.nanoTime();
    }

    /** The turn/start response named the turn. */
    public synchronized void named(String threadId, String turnId) {
        if (ended || started != null) {
            return;
        }
        TurnStarted event = new TurnStarted(emitter.nextSequence(), threadId, turnId);
        started = event;
        emitter.emit(l -> l.turnStarted(event));
    }

    /** The turn ended; its end event follows its start event, if it had one. */
    public void ended(TurnStatus status, Optional<CodexException> error, ThreadTokenUsage lastUsage,
                      TokenCounts spent) {
        TurnStarted start;
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            start = started;
        }
        if (start == null) {
            return;
        }
        Duration duration = Duration.ofNanos(Math.max(0, scheduler.nanoTime() - startNanos));
        TurnEnded event = new TurnEnded(start, status, error, Optional.ofNullable(lastUsage), duration,
                Optional.ofNullable(spent));
        emitter.emit(l -> l.turnEnded(event));
    }
}

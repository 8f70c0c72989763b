package dev.codexclient.internal.session;

import dev.codexclient.errors.CodexException;
import dev.codexclient.telemetry.TokenCounts;
import dev.codexclient.telemetry.TurnEnded;
import dev.codexclient.telemetry.TurnStarted;
import dev.codexclient.internal.telemetry.TelemetryEmitter;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.protocol.TokenUsageBreakdown;
import dev.codexclient.protocol.TurnStatus;
import java.time.Duration;
import java.util.Optional;

/**
 * The events of one turn: {@link TurnStarted} once the server names it, {@link TurnEnded} when it ends, with the
 * tokens it spent. Exists only for a client with a telemetry listener; a turn that ends before it was named (its
 * start failed) has neither event.
 *
 * <p>Threading: {@link #named} and {@link #usage} on the turn's lane (named where the turn is bound),
 * {@link #ended} wherever the turn ends; the start and the end agree under this object's lock.
 */
public final class TurnTelemetry {
    private final TelemetryEmitter emitter;
    private final Scheduler scheduler;
    /** When the client sent turn/start, on the scheduler's clock. */
    private final long startNanos;
    /** The thread's total before the turn's first model call, from the turn's first usage report. */
    private volatile TokenCounts baseline;
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

    /** A usage report of the turn's thread. Runs on the lane. */
    public void usage(ThreadTokenUsage usage) {
        if (baseline == null && usage != null && usage.total() != null && usage.last() != null) {
            // The first report of a turn follows its first model call: the total before the turn is the total
            // without that call. Later reports (one per call, or repeated) only move the total.
            baseline = minus(counts(usage.total()), counts(usage.last()));
        }
    }

    /** The turn ended; its end event follows its start event, if it had one. */
    public void ended(TurnStatus status, Optional<CodexException> error, ThreadTokenUsage lastUsage) {
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
        TokenCounts before = baseline;
        Optional<TokenCounts> spent = before == null || lastUsage == null || lastUsage.total() == null
                ? Optional.empty() : Optional.of(minus(counts(lastUsage.total()), before));
        TurnEnded event = new TurnEnded(start, status, error, Optional.ofNullable(lastUsage), duration, spent);
        emitter.emit(l -> l.turnEnded(event));
    }

    private static TokenCounts minus(TokenCounts a, TokenCounts b) {
        return new TokenCounts(nonNegative(a.inputTokens() - b.inputTokens()),
                nonNegative(a.cachedInputTokens() - b.cachedInputTokens()),
                nonNegative(a.outputTokens() - b.outputTokens()),
                nonNegative(a.reasoningOutputTokens() - b.reasoningOutputTokens()),
                nonNegative(a.totalTokens() - b.totalTokens()));
    }

    private static TokenCounts counts(TokenUsageBreakdown b) {
        return new TokenCounts(nonNegative(b.inputTokens()), nonNegative(b.cachedInputTokens()),
                nonNegative(b.outputTokens()), nonNegative(b.reasoningOutputTokens()), nonNegative(b.totalTokens()));
    }

    /** A total that went down (a compacted or reset thread) counts as nothing spent rather than negative. */
    private static long nonNegative(long n) {
        return Math.max(0, n);
    }
}

package dev.codexclient.internal.telemetry;

import dev.codexclient.telemetry.CodexTelemetryListener;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers a client's telemetry to its {@link CodexTelemetryListener}: one call at a time, in the order of {@link #emit},
 * on the callback executor, so that a slow listener never holds the reader thread. Without a listener, {@link
 * #enabled()} is false and callers build no record at all.
 */
public final class TelemetryEmitter {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(TelemetryEmitter.class);
    }


    private final CodexTelemetryListener listener;
    private final Executor executor;
    private final boolean enabled;
    private final Queue<Consumer<CodexTelemetryListener>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final AtomicLong sequence = new AtomicLong();

    public TelemetryEmitter(CodexTelemetryListener listener, Executor executor) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.enabled = listener != CodexTelemetryListener.NONE;
    }

    /** An emitter for a client without a listener. */
    public static TelemetryEmitter none() {
        return new TelemetryEmitter(CodexTelemetryListener.NONE, Runnable::run);
    }

    /** Whether a listener is registered; when not, build no record. */
    public boolean enabled() {
        return enabled;
    }

    /** The next sequence number for a start record. */
    public long nextSequence() {
        return sequence.incrementAndGet();
    }

    /** Queues one listener call; it runs after every call queued before it. */
    public void emit(Consumer<CodexTelemetryListener> call) {
        if (!enabled) {
            return;
        }
        queue.add(call);
        schedule();
    }

    private void schedule() {
        if (queue.isEmpty() || !draining.compareAndSet(false, true)) {
            return;
        }
        try {
            executor.execute(this::drain);
        } catch (RejectedExecutionException e) {
            // The callback executor is gone (the client is closing): deliver the last records on this thread.
            drain();
        }
    }

    private void drain() {
        try {
            Consumer<CodexTelemetryListener> call;
            while ((call = queue.poll()) != null) {
                try {
                    call.accept(listener);
                } catch (RuntimeException e) {
                    Log.LOG.warn("telemetry listener {} failed", listener.getClass().getName(), e);
                }
            }
        } finally {
            draining.set(false);
        }
        // A record queued between the last poll and the flag's reset would otherwise wait for the next emit.
        schedule();
    }
}

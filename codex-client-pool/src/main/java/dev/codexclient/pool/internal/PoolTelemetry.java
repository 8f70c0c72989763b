package dev.codexclient.pool.internal;

import dev.codexclient.telemetry.CodexTelemetryListener;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Hands the pool's events to its listener, one at a time; a listener that throws is logged. */
final class PoolTelemetry {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(PoolTelemetry.class);
    }


    private final CodexTelemetryListener listener;

    PoolTelemetry(CodexTelemetryListener listener) {
        this.listener = listener;
    }

    void emit(Consumer<CodexTelemetryListener> event) {
        if (listener == CodexTelemetryListener.NONE) {
            return;
        }
        synchronized (this) {
            try {
                event.accept(listener);
            } catch (RuntimeException e) {
                Log.LOG.warn("the pool's telemetry listener failed", e);
            }
        }
    }
}

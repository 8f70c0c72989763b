package dev.codexclient.internal.pool;

import dev.codexclient.events.CodexEventListener;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Hands the pool's events to its listener, one at a time; a listener that throws is logged. */
final class PoolEvents {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(PoolEvents.class);
    }


    private final CodexEventListener listener;

    PoolEvents(CodexEventListener listener) {
        this.listener = listener;
    }

    void emit(Consumer<CodexEventListener> event) {
        if (listener == CodexEventListener.NONE) {
            return;
        }
        synchronized (this) {
            try {
                event.accept(listener);
            } catch (RuntimeException e) {
                Log.LOG.warn("the pool's event listener failed", e);
            }
        }
    }
}

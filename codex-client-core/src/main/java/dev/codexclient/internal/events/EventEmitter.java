package dev.codexclient.internal.events;

import dev.codexclient.events.CodexEventListener;
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
 * Delivers a client's events to its {@link CodexEventListener}: one call at a time, in the order of {@link #emit},
 * on the callback executor, so that a slow listener never holds the reader thread. Without a listener, {@link
 * #enabled()} is false and callers build no events at all.
 */
public final class EventEmitter {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(EventEmitter.class);
    }


    private final CodexEventListener listener;
    private final Executor executor;
    private final boolean enabled;
    private final Queue<Consumer<CodexEventListener>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final AtomicLong sequence = new AtomicLong();

    public EventEmitter(CodexEventListener listener, Executor executor) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.enabled = listener != CodexEventListener.NONE;
    }

    /** An emitter for a client without a listener. */
    public static EventEmitter none() {
        return new EventEmitter(CodexEventListener.NONE, Runnable::run);
    }

    /** Whether a listener is registered; when not, build no event. */
    public boolean enabled() {
        return enabled;
    }

    /** The next sequence number for a start event. */
    public long nextSequence() {
        return sequence.incrementAndGet();
    }

    /** Queues one listener call; it runs after every call queued before it. */
    public void emit(Consumer<CodexEventListener> call) {
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
            // The callback executor is gone (the client is closing): deliver the last events on this thread.
            drain();
        }
    }

    private void drain() {
        try {
            Consumer<CodexEventListener> call;
            while ((call = queue.poll()) != null) {
                try {
                    call.accept(listener);
                } catch (RuntimeException e) {
                    Log.LOG.warn("event listener {} failed", listener.getClass().getName(), e);
                }
            }
        } finally {
            draining.set(false);
        }
        // An event queued between the last poll and the flag's reset would otherwise wait for the next emit.
        schedule();
    }
}

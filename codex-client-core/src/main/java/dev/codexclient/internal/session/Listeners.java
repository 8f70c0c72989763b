package dev.codexclient.internal.session;

import dev.codexclient.Subscription;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one source of events (a client, a thread, a turn). Each sits behind a {@link Subscription}
 * whose {@link Subscription#close()} stops its deliveries: once close() returns, the listener is not called again
 * (a call that had already begun may finish). Delivery checks the subscription before each call, so a listener that
 * is closed while a lane still holds events for it, or before its replay has run, receives none of them.
 */
public final class Listeners<T> {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(Listeners.class);
    }


    /** One registered listener. */
    public static final class Entry<T> implements Subscription {
        private final Listeners<T> owner;
        private final Consumer<? super T> listener;
        private final Runnable onClose;
        private final Consumer<Throwable> onEnd;
        private volatile boolean closed;

        private Entry(Listeners<T> owner, Consumer<? super T> listener, Runnable onClose, Consumer<Throwable> onEnd) {
            this.owner = owner;
            this.listener = listener;
            this.onClose = onClose;
            this.onEnd = onEnd;
        }

        /** The source ends: tells the listener's owner why (unless it closed first), then closes. */
        public void end(Throwable cause) {
            if (closed) {
                return;
            }
            try {
                onEnd.accept(cause);
            } catch (RuntimeException e) {
                Log.LOG.warn("A {} subscription failed to take its end", owner.what, e);
            }
            close();
        }

        /** Calls the listener unless the subscription was closed; a listener that throws is logged. */
        public void deliver(T event) {
            if (closed) {
                return;
            }
            try {
                listener.accept(event);
            } catch (RuntimeException e) {
                Log.LOG.warn("A {} listener threw; other listeners still get the event", owner.what, e);
            }
        }

        public boolean isClosed() {
            return closed;
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            owner.entries.remove(this);
            onClose.run();
        }
    }

    private final String what;
    private final List<Entry<T>> entries = new CopyOnWriteArrayList<>();

    /** @param what names the source in log messages ("turn", "thread", "notification") */
    public Listeners(String what) {
        this.what = what;
    }

    /** A subscription for {@code listener}, not yet receiving events: {@link #add} it when it should. */
    public Entry<T> entry(Consumer<? super T> listener, Runnable onClose) {
        return entry(listener, onClose, cause -> { });
    }

    /**
     * Like {@link #entry(Consumer, Runnable)}, with {@code onEnd} told the cause when the source ends
     * ({@link #endAll}) before the subscription is closed.
     */
    public Entry<T> entry(Consumer<? super T> listener, Runnable onClose, Consumer<Throwable> onEnd) {
        return new Entry<>(this, listener, onClose, onEnd);
    }

    /** Registers and returns a listener that receives every event delivered from now on. */
    public Entry<T> add(Consumer<? super T> listener) {
        Entry<T> e = entry(listener, () -> { });
        add(e);
        return e;
    }

    /** Starts delivering to an entry made by {@link #entry}; does nothing once it was closed. */
    public void add(Entry<T> entry) {
        entries.add(entry);
        // A close() that ran before the add found nothing to remove.
        if (entry.isClosed()) {
            entries.remove(entry);
        }
    }

    public void deliver(T event) {
        for (Entry<T> e : entries) {
            e.deliver(event);
        }
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    public int size() {
        return entries.size();
    }

    /** The source ended for {@code cause}: tells each subscription why, then closes it (nothing more will come). */
    public void endAll(Throwable cause) {
        for (Entry<T> e : entries) {
            e.end(cause);
        }
    }

    /** Closes every subscription (nothing more will come). */
    public void closeAll() {
        for (Entry<T> e : entries) {
            e.close();
        }
    }
}

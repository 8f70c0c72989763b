package dev.codexclient.pool.internal;

import dev.codexclient.CodexClient;
import dev.codexclient.Subscription;
import dev.codexclient.protocol.ServerNotification;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pool's notification listeners ({@code CodexPool#onNotification}): one listener of the pool's on every client
 * a member takes (the first, each replacement, the warm spare when a member takes it, the clients of members the
 * resolver adds later) hands each notification to them, on the lane of its codex thread, as a client's own listeners
 * get it.
 *
 * <p>Threading: safe for concurrent use; a listener that throws is logged and the others still get the notification.
 */
final class PoolNotifications {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(PoolNotifications.class);
    }

    /** One registration (the same listener may be added twice). */
    private record Listener(Consumer<? super ServerNotification> delegate) {
    }

    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    /** Follows a client a member took: its notifications go to the pool's listeners for as long as it lives. */
    void attach(CodexClient client) {
        client.onNotification(this::deliver);
    }

    /**
     * Adds a listener, for the notifications of every member from now on.
     *
     * @param listener the listener
     * @return the subscription, whose close removes it
     */
    Subscription subscribe(Consumer<? super ServerNotification> listener) {
        Listener l = new Listener(Objects.requireNonNull(listener, "listener"));
        listeners.add(l);
        return () -> listeners.remove(l);
    }

    private void deliver(ServerNotification notification) {
        for (Listener l : listeners) {
            try {
                l.delegate().accept(notification);
            } catch (RuntimeException e) {
                Log.LOG.warn("A notification listener of the pool threw; the others still get the notification", e);
            }
        }
    }
}

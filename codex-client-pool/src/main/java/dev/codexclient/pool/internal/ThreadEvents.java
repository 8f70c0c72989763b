package dev.codexclient.pool.internal;

import dev.codexclient.CodexThread;
import dev.codexclient.Subscription;
import dev.codexclient.protocol.ServerNotification;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners and the Flow subscribers of one pooled thread, which outlive the member's handle of the moment: one
 * listener of the pool's ({@link #attach}) on the handle of the moment hands each event to the user's listeners, and
 * each subscriber's {@link Relay} subscribes to that handle's publisher. When the thread gets a new handle (resumed on
 * the member's new client, moved to another member, started again), both follow it: the user's listeners and
 * subscribers see the thread's events wherever it runs.
 *
 * <p>What they cannot see: events of the moments when the thread runs nowhere (between the loss of its member's
 * client and the resume on the next one, which comes with the thread's next use). Like a client's listeners, they are
 * let go of when the thread ends for its client: the server closed it ({@code thread/closed}), or it was unsubscribed
 * or archived; a subscriber then completes.
 *
 * <p>Threading: events come on the member's delivery lane of the thread, one after another; the lists are safe for
 * concurrent use; the attachment is guarded by this object.
 */
final class ThreadEvents {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(ThreadEvents.class);
    }

    /** One registration of a user's listener (the same listener may be added twice). */
    private record Listener(Consumer<? super ServerNotification> delegate) {
    }

    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final List<Relay> relays = new CopyOnWriteArrayList<>();
    /** Whether a handle's publisher ended because the handle was outlived (its client replaced, the thread moved). */
    private final Predicate<CodexThread> outlived;
    // Guarded by this.
    private CodexThread attachedTo;
    private Subscription forwarder;

    /**
     * @param outlived whether a handle's publisher that ended did so because the thread has (or will have) another
     *                 handle, rather than because the thread ended or the pool closed
     */
    ThreadEvents(Predicate<CodexThread> outlived) {
        this.outlived = outlived;
    }

    /**
     * Adds a user's listener.
     *
     * @param listener the listener
     * @param current  the handle of the moment, or null when the thread has none yet (it gets one when next used)
     * @return the subscription, whose close removes the listener
     */
    Subscription onEvent(Consumer<? super ServerNotification> listener, CodexThread current) {
        Listener l = new Listener(Objects.requireNonNull(listener, "listener"));
        listeners.add(l);
        if (current != null) {
            attach(current);
        }
        return () -> {
            if (listeners.remove(l) && listeners.isEmpty()) {
                detach();
            }
        };
    }

    /**
     * Subscribes a user's subscriber: {@code onSubscribe} at once, then the events of the handle of the moment.
     *
     * @param subscriber the subscriber
     * @param current    the handle of the moment, or null when the thread has none yet
     */
    void subscribe(Flow.Subscriber<? super ServerNotification> subscriber, CodexThread current) {
        Relay relay = new Relay(Objects.requireNonNull(subscriber, "subscriber"));
        relays.add(relay);
        subscriber.onSubscribe(relay);
        if (current != null) {
            relay.attach(current);
        }
    }

    /** The thread has a handle: the listeners and subscribers follow it there. Called again for each new handle. */
    void attach(CodexThread handle) {
        Subscription old = null;
        boolean subscribe;
        synchronized (this) {
            subscribe = !listeners.isEmpty() && attachedTo != handle;
            if (subscribe) {
                old = forwarder;
                attachedTo = handle;
                forwarder = null;
            }
        }
        if (old != null) {
            old.close();
        }
        if (subscribe) {
            Subscription s = handle.onEvent(this::deliver);
            boolean keep;
            synchronized (this) {
                keep = attachedTo == handle && forwarder == null;
                if (keep) {
                    forwarder = s;
                }
            }
            if (!keep) {
                s.close(); // a newer handle, or the last listener left, meanwhile
            }
        }
        for (Relay r : relays) {
            r.attach(handle);
        }
    }

    /** No user listener is left: the pool's listener leaves the handle, so the member's client may let go. */
    private void detach() {
        Subscription old;
        synchronized (this) {
            if (!listeners.isEmpty()) {
                return;
            }
            old = forwarder;
            forwarder = null;
            attachedTo = null;
        }
        if (old != null) {
            old.close();
        }
    }

    private void deliver(ServerNotification event) {
        for (Listener l : listeners) {
            try {
                l.delegate().accept(event);
            } catch (RuntimeException e) {
                Log.LOG.warn("A listener of a pooled thread threw; the event is still delivered to the others", e);
            }
        }
        if (event instanceof ServerNotification.ThreadClosed) {
            ended();
        }
    }

    /**
     * The thread ended for its client (closed by the server, unsubscribed, archived): its listeners are let go of, as
     * a client lets go of its own; subscribers complete when the handle's publisher does.
     */
    void ended() {
        listeners.clear();
        detach();
    }

    /** The pool closed: every subscriber still waiting for a handle completes. */
    void poolClosed() {
        for (Relay r : relays) {
            r.complete();
        }
    }

    /** {@return whether a user's listener or subscriber is registered} For the pool's close. */
    boolean hasSubscribers() {
        return !relays.isEmpty();
    }

    /**
     * One user's subscription to a pooled thread's events, relayed from the publisher of the handle of the moment:
     * the demand the user asked for and not yet delivered is asked of each handle's subscription in turn. A handle's
     * stream that ends because the handle was outlived is followed by the next handle's; one that ends otherwise ends
     * the user's. Signals of a handle no longer current are dropped.
     *
     * <p>Threading: the state is guarded by this object; the user's signals go out under {@link #emitting}, so that a
     * late signal of an outlived handle and the first of the next never overlap (rule 1.3).
     */
    private final class Relay implements Flow.Subscription {
        private final Flow.Subscriber<? super ServerNotification> downstream;
        private final Object emitting = new Object();
        // Guarded by this.
        private long demand;
        private boolean finished;
        private Inner inner;

        Relay(Flow.Subscriber<? super ServerNotification> downstream) {
            this.downstream = downstream;
        }

        void attach(CodexThread handle) {
            Inner next;
            Inner old;
            synchronized (this) {
                if (finished || (inner != null && inner.handle == handle)) {
                    return;
                }
                old = inner;
                next = new Inner(handle);
                inner = next;
            }
            if (old != null) {
                old.cancel();
            }
            handle.publisher().subscribe(next);
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                end(new IllegalArgumentException("rule 3.9: request(" + n + "): the demand must be positive"));
                return;
            }
            Flow.Subscription upstream;
            synchronized (this) {
                if (finished) {
                    return;
                }
                demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
                upstream = inner == null ? null : inner.upstream;
            }
            if (upstream != null) {
                upstream.request(n);
            }
        }

        @Override
        public void cancel() {
            Inner old;
            synchronized (this) {
                finished = true;
                old = inner;
                inner = null;
            }
            relays.remove(this);
            if (old != null) {
                old.cancel();
            }
        }

        /** Ends the user's stream with {@code onComplete}, unless it ended already. */
        void complete() {
            end(null);
        }

        /** Ends the user's stream, with {@code onError(failure)} or, for none, {@code onComplete}; once. */
        private void end(Throwable failure) {
            if (!finish()) {
                return;
            }
            synchronized (emitting) {
                if (failure == null) {
                    downstream.onComplete();
                } else {
                    downstream.onError(failure);
                }
            }
        }

        private boolean finish() {
            Inner old;
            synchronized (this) {
                if (finished) {
                    return false;
                }
                finished = true;
                old = inner;
                inner = null;
            }
            relays.remove(this);
            if (old != null) {
                old.cancel();
            }
            return true;
        }

        /** The relay's subscriber to one handle's publisher. */
        private final class Inner implements Flow.Subscriber<ServerNotification> {
            final CodexThread handle;
            // Guarded by the relay.
            Flow.Subscription upstream;
            boolean cancelled;

            Inner(CodexThread handle) {
                this.handle = handle;
            }

            void cancel() {
                Flow.Subscription s;
                synchronized (Relay.this) {
                    cancelled = true;
                    s = upstream;
                }
                if (s != null) {
                    s.cancel();
                }
            }

            private boolean current() {
                return !cancelled && inner == this;
            }

            @Override
            public void onSubscribe(Flow.Subscription s) {
                long asked;
                synchronized (Relay.this) {
                    if (!current()) {
                        asked = -1;
                    } else {
                        upstream = s;
                        asked = demand;
                    }
                }
                if (asked < 0) {
                    s.cancel();
                } else if (asked > 0) {
                    s.request(asked);
                }
            }

            @Override
            public void onNext(ServerNotification item) {
                synchronized (Relay.this) {
                    if (!current()) {
                        return;
                    }
                    if (demand != Long.MAX_VALUE) {
                        demand--;
                    }
                }
                synchronized (emitting) {
                    downstream.onNext(item);
                }
            }

            @Override
            public void onError(Throwable failure) {
                ended(failure);
            }

            @Override
            public void onComplete() {
                ended(null);
            }

            private void ended(Throwable failure) {
                synchronized (Relay.this) {
                    if (!current()) {
                        return;
                    }
                    if (outlived.test(handle)) {
                        inner = null; // the next handle's stream goes on from here
                        return;
                    }
                }
                end(failure);
            }
        }
    }
}

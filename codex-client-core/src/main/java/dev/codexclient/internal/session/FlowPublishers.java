package dev.codexclient.internal.session;

import dev.codexclient.PublisherOverflow;
import dev.codexclient.Subscription;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.flow.BufferedSubscription;
import dev.codexclient.internal.flow.DeltaCoalescing;
import dev.codexclient.internal.rpc.Callbacks;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.ServerNotification;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The client's sources of events as {@link Flow.Publisher}s: a turn ({@code CodexTurn#publisher()}), a thread
 * ({@code CodexThread#publisher()}) and the whole connection ({@code CodexClient#publisher()}). Each
 * subscription is a {@link BufferedSubscription} fed by an ordinary listener of its source (the listener only
 * queues, so the source's lane never waits for the subscriber) and drained on a delivery lane of its own, so one
 * subscriber's pace holds up neither the thread's other listeners nor the other subscribers.
 */
public final class FlowPublishers {
    /**
     * Lane keys of subscriptions: a NUL cannot occur in a codex thread id, so they never share a lane with a thread.
     */
    private static final String LANE_PREFIX = "\u0000flow-";
    private static final AtomicLong LANES = new AtomicLong();

    /** Subscribes a listener to a source: the replayed events to the first, the live ones to the second. */
    public interface ReplayingSource {
        /**
         * @param replayed takes the events the source already had
         * @param live     takes the events that arrive from now on
         * @return the subscription of the listeners
         */
        Subscription subscribe(Consumer<ServerNotification> replayed, Consumer<ServerNotification> live);
    }

    private final Callbacks callbacks;
    private final int bufferSize;
    private final PublisherOverflow overflow;
    /** How text deltas are spaced in time; null for not at all. */
    private final BufferedSubscription.Pacing<ServerNotification> pacing;
    /** Whether the user closed the client: the end of a source is then a completion, not an error. */
    private final BooleanSupplier closeRequested;

    /**
     * @param callbacks      the client's lanes, each subscription getting one of its own
     * @param bufferSize     the most events a subscriber may let wait
     * @param overflow       what a subscription does when its subscriber lets more wait
     * @param deltaInterval  the shortest time between two text deltas a subscription hands over; zero for none
     * @param scheduler      the client's clock and timer, on which that time is measured
     * @param closeRequested whether the user closed the client
     */
    public FlowPublishers(Callbacks callbacks, int bufferSize, PublisherOverflow overflow, Duration deltaInterval,
                          Scheduler scheduler, BooleanSupplier closeRequested) {
        this.callbacks = callbacks;
        this.bufferSize = bufferSize;
        this.overflow = overflow;
        this.pacing = deltaInterval.isZero() ? null : new BufferedSubscription.Pacing<>(scheduler,
                Scheduler.saturatedNanos(deltaInterval), DeltaCoalescing::isDelta);
        this.closeRequested = closeRequested;
    }

    /** Subscribes a listener to a hot source, with a callback told why the source ended. */
    public interface HotSource {
        /**
         * @param listener takes the events that arrive from now on
         * @param onEnd    told why the source ended
         * @return the subscription of the listener
         */
        Subscription subscribe(Consumer<ServerNotification> listener, Consumer<Throwable> onEnd);
    }

    /**
     * The events of a turn from its start (as far as its replay buffer reaches) to its end.
     *
     * @param threadId the turn's thread, on whose lane the end is queued behind the turn's events
     * @param name     the turn, for messages
     * @param source   subscribes to the turn's events
     * @param end      completes with null when the turn ended well, with the failure to signal otherwise; fails
     *                 when the turn could not complete
     * @return the publisher
     */
    public Flow.Publisher<ServerNotification> turn(String threadId, String name, ReplayingSource source,
                                                   CompletableFuture<? extends Throwable> end) {
        return subscriber -> {
            BufferedSubscription<ServerNotification> s = open(subscriber, name);
            Subscription listener = source.subscribe(s::offerBacklog, s::offer);
            s.onRelease(listener::close);
            // Queued behind every event of the turn on its thread's lane, as TurnEventStream's end is.
            end.whenComplete((failure, e) -> callbacks.onLane(threadId, () -> {
                if (e != null) {
                    s.error(RpcConnection.unwrap(e));
                } else if (failure != null) {
                    s.error(failure);
                } else {
                    s.complete();
                }
            }));
        };
    }

    /**
     * A hot source (a thread's events from subscription on, until the client lets go of the thread; every
     * notification of the client, until the connection ends) as a publisher.
     *
     * @param name   the source, for messages
     * @param source subscribes to the source's events
     * @return the publisher
     */
    public Flow.Publisher<ServerNotification> hot(String name, HotSource source) {
        return subscriber -> {
            BufferedSubscription<ServerNotification> s = open(subscriber, name);
            Subscription listener = source.subscribe(s::offer, cause -> end(s, cause));
            s.onRelease(listener::close);
        };
    }

    private BufferedSubscription<ServerNotification> open(Flow.Subscriber<? super ServerNotification> subscriber,
                                                          String source) {
        // Rule 1.9: a null subscriber is refused by throwing (the constructor's null check).
        String lane = LANE_PREFIX + LANES.incrementAndGet();
        // Pacing merges the deltas it holds back, whatever the overflow rule: it needs the coalescer.
        BufferedSubscription<ServerNotification> s = new BufferedSubscription<>(subscriber,
                task -> callbacks.onLane(lane, task), bufferSize, source,
                overflow == PublisherOverflow.COALESCE_DELTAS || pacing != null ? DeltaCoalescing::merge
                        : (earlier, later) -> null,
                pacing);
        s.start();
        return s;
    }

    /**
     * A started subscription of items that are not notifications (a thread search's rows): bounded like every
     * subscription, on a lane of its own, none merged or paced.
     *
     * @param subscriber the subscriber
     * @param source     the source, for messages
     * @param <T>        the items
     * @return the subscription, started
     */
    <T> BufferedSubscription<T> items(Flow.Subscriber<? super T> subscriber, String source) {
        String lane = LANE_PREFIX + LANES.incrementAndGet();
        BufferedSubscription<T> s = new BufferedSubscription<>(subscriber, task -> callbacks.onLane(lane, task),
                bufferSize, source);
        s.start();
        return s;
    }

    /**
     * A hot source ended: its events stop because the thread was let go of (closed by the server, archived,
     * unsubscribed) or the client was closed, which completes the subscription, or because the connection failed,
     * which is an error.
     */
    private void end(BufferedSubscription<ServerNotification> s, Throwable cause) {
        if (cause instanceof CodexTransportException && !closeRequested.getAsBoolean()) {
            s.error(cause);
        } else {
            s.complete();
        }
    }
}

package dev.codexclient.internal.session;

import dev.codexclient.PublisherOverflow;
import dev.codexclient.Subscription;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.flow.BufferedSubscription;
import dev.codexclient.internal.flow.DeltaCoalescing;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.protocol.ServerNotification;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;

/**
 * The client's sources of events as {@link Flow.Publisher}s: a turn ({@code CodexTurn#publisher()}), a thread
 * ({@code CodexThread#publisher()}) and the whole connection ({@code CodexClient#notifications()}). Each
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

    private FlowPublishers() {
    }

    /**
     * The events of a turn from its start (as far as its replay buffer reaches) to its end.
     *
     * @param runtime  the client's runtime
     * @param threadId the turn's thread, on whose lane the end is queued behind the turn's events
     * @param name     the turn, for messages
     * @param source   subscribes to the turn's events
     * @param end      completes with null when the turn ended well, with the failure to signal otherwise; fails
     *                 when the turn could not complete
     * @return the publisher
     */
    public static Flow.Publisher<ServerNotification> turn(ClientRuntime runtime, String threadId, String name,
                                                          ReplayingSource source,
                                                          CompletableFuture<? extends Throwable> end) {
        return subscriber -> {
            BufferedSubscription<ServerNotification> s = open(runtime, subscriber, name);
            Subscription listener = source.subscribe(s::offerBacklog, s::offer);
            s.onRelease(listener::close);
            // Queued behind every event of the turn on its thread's lane, as TurnEventStream's end is.
            end.whenComplete((failure, e) -> runtime.onLane(threadId, () -> {
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
     * The events of a thread from subscription on, until the client lets go of the thread.
     *
     * @param runtime the client's runtime
     * @param link    the thread
     * @return the publisher
     */
    public static Flow.Publisher<ServerNotification> thread(ClientRuntime runtime, ThreadLink link) {
        return subscriber -> {
            BufferedSubscription<ServerNotification> s = open(runtime, subscriber, "thread " + link.id());
            Subscription source = runtime.subscribeThread(link, s::offer, cause -> end(runtime, s, cause));
            s.onRelease(source::close);
        };
    }

    /**
     * Every notification of the connection from subscription on, until the connection ends.
     *
     * @param runtime the client's runtime
     * @return the publisher
     */
    public static Flow.Publisher<ServerNotification> notifications(ClientRuntime runtime) {
        return subscriber -> {
            BufferedSubscription<ServerNotification> s = open(runtime, subscriber, "the client's notifications");
            Subscription source = runtime.subscribeNotifications(s::offer, cause -> end(runtime, s, cause));
            s.onRelease(source::close);
        };
    }

    private static BufferedSubscription<ServerNotification> open(ClientRuntime runtime,
                                                                 Flow.Subscriber<? super ServerNotification> subscriber,
                                                                 String source) {
        return open(runtime, subscriber, source,
                runtime.settings().publisherOverflow() == PublisherOverflow.COALESCE_DELTAS ? DeltaCoalescing::merge
                        : (earlier, later) -> null);
    }

    /** A started subscription of other items than notifications (a thread search's rows), none merged. */
    static <T> BufferedSubscription<T> open(ClientRuntime runtime, Flow.Subscriber<? super T> subscriber,
                                            String source, BinaryOperator<T> coalescer) {
        // Rule 1.9: a null subscriber is refused by throwing (the constructor's null check).
        String lane = LANE_PREFIX + LANES.incrementAndGet();
        BufferedSubscription<T> s = new BufferedSubscription<>(subscriber, task -> runtime.onLane(lane, task),
                runtime.settings().publisherBufferSize(), source, coalescer);
        s.start();
        return s;
    }

    /**
     * A hot source ended: its events stop because the thread was let go of (closed by the server, archived,
     * unsubscribed) or the client was closed, which completes the subscription, or because the connection failed,
     * which is an error.
     */
    private static void end(ClientRuntime runtime, BufferedSubscription<ServerNotification> s, Throwable cause) {
        if (cause instanceof CodexTransportException && !runtime.closeRequested()) {
            s.error(cause);
        } else {
            s.complete();
        }
    }
}

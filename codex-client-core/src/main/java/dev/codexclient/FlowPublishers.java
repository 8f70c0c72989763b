package dev.codexclient;

import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.flow.BufferedSubscription;
import dev.codexclient.internal.flow.DeltaCoalescing;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.TurnStatus;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client's sources of events as {@link Flow.Publisher}s: a turn ({@link CodexTurn#publisher()}), a thread
 * ({@link CodexThread#publisher()}) and the whole connection ({@link CodexClient#notifications()}). Each
 * subscription is a {@link BufferedSubscription} fed by an ordinary listener of its source (the listener only
 * queues, so the source's lane never waits for the subscriber) and drained on a delivery lane of its own, so one
 * subscriber's pace holds up neither the thread's other listeners nor the other subscribers.
 */
final class FlowPublishers {
    /**
     * Lane keys of subscriptions: a NUL cannot occur in a codex thread id, so they never share a lane with a thread.
     */
    private static final String LANE_PREFIX = "\u0000flow-";
    private static final AtomicLong LANES = new AtomicLong();

    private FlowPublishers() {
    }

    /** The events of {@code turn} from its start (as far as its replay buffer reaches) to its end. */
    static Flow.Publisher<ServerNotification> turn(CodexClient client, CodexTurn turn) {
        return subscriber -> {
            BufferedSubscription<ServerNotification> s = open(client, subscriber,
                    "turn " + turn.boundIdOr("(starting)") + " of thread " + turn.threadId());
            Subscription source = turn.subscribe(s::offerBacklog, s::offer);
            s.onRelease(source::close);
            // Queued behind every event of the turn on its thread's lane, as TurnEventStream's end is.
            turn.result().whenComplete((r, e) -> turn.thread().onLane(() -> {
                if (e != null) {
                    s.error(RpcConnection.unwrap(e));
                } else if (r.status() == TurnStatus.FAILED) {
                    s.error(r.failure());
                } else {
                    s.complete();
                }
            }));
        };
    }

    /** The events of {@code thread} from subscription on, until the client lets go of the thread. */
    static Flow.Publisher<ServerNotification> thread(CodexClient client, CodexThread thread) {
        return subscriber -> {
            BufferedSubscription<ServerNotification> s = open(client, subscriber, "thread " + thread.id());
            Subscription source = thread.subscribe(s::offer, cause -> end(client, s, cause));
            s.onRelease(source::close);
        };
    }

    /** Every notification of the connection from subscription on, until the connection ends. */
    static Flow.Publisher<ServerNotification> notifications(CodexClient client) {
        return subscriber -> {
            BufferedSubscription<ServerNotification> s = open(client, subscriber, "the client's notifications");
            Subscription source = client.subscribeNotifications(s::offer, cause -> end(client, s, cause));
            s.onRelease(source::close);
        };
    }

    private static BufferedSubscription<ServerNotification> open(CodexClient client,
                                                                 Flow.Subscriber<? super ServerNotification> subscriber,
                                                                 String source) {
        // Rule 1.9: a null subscriber is refused by throwing (the constructor's null check).
        String lane = LANE_PREFIX + LANES.incrementAndGet();
        BufferedSubscription<ServerNotification> s = new BufferedSubscription<>(subscriber,
                task -> client.onLane(lane, task), client.publisherBufferSize(), source,
                client.publisherOverflow() == PublisherOverflow.COALESCE_DELTAS ? DeltaCoalescing::merge
                        : (earlier, later) -> null);
        s.start();
        return s;
    }

    /**
     * A hot source ended: its events stop because the thread was let go of (closed by the server, archived,
     * unsubscribed) or the client was closed, which completes the subscription, or because the connection failed,
     * which is an error.
     */
    private static void end(CodexClient client, BufferedSubscription<ServerNotification> s, Throwable cause) {
        if (cause instanceof CodexTransportException && !client.closeRequested()) {
            s.error(cause);
        } else {
            s.complete();
        }
    }
}

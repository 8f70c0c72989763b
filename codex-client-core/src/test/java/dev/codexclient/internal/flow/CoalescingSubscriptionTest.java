package dev.codexclient.internal.flow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.errors.CodexBackpressureException;
import dev.codexclient.internal.flow.DeltaCoalescingTest.Delta;
import dev.codexclient.internal.flow.DeltaCoalescingTest.Kind;
import dev.codexclient.protocol.AgentMessageDeltaNotification;
import dev.codexclient.protocol.ServerNotification;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

/**
 * A subscription with {@link DeltaCoalescing} as its coalescer, as {@code PublisherOverflow.COALESCE_DELTAS} makes
 * it, fed every kind of text delta, on a lane the test runs by hand: a subscriber that lags gets each run of deltas
 * of one item as one event with the whole text, in order, and overflows only on what cannot be merged.
 */
class CoalescingSubscriptionTest {
    /** One waiting event per kind of delta, and not one more. */
    private static final int BUFFER = 6;

    private final ManualLane lane = new ManualLane();
    private final List<ServerNotification> items = new ArrayList<>();
    private final List<String> ends = new ArrayList<>();
    private Flow.Subscription subscription;

    private BufferedSubscription<ServerNotification> open() {
        BufferedSubscription<ServerNotification> s = new BufferedSubscription<>(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription sub) {
                subscription = sub;
            }

            @Override
            public void onNext(ServerNotification item) {
                items.add(item);
            }

            @Override
            public void onError(Throwable t) {
                ends.add("error: " + t.getClass().getSimpleName());
            }

            @Override
            public void onComplete() {
                ends.add("complete");
            }
        }, lane, BUFFER, "test source", DeltaCoalescing::merge);
        s.start();
        lane.run();
        return s;
    }

    private static String part(Kind kind, int i) {
        return kind.name().charAt(0) + "" + i + (i % 5 == 0 ? "é " : " ");
    }

    @Test
    void aLaggingSubscriberGetsEachKindsRunAsOneEventWithTheWholeText() {
        BufferedSubscription<ServerNotification> s = open();
        int perKind = 50;
        for (Kind kind : Kind.values()) {
            for (int i = 0; i < perKind; i++) {
                s.offer(kind.make(new Delta(part(kind, i), i).item("item-" + kind)));
            }
        }
        lane.run();
        assertThat(ends).as("300 deltas against a buffer of 6, and no overflow").isEmpty();

        subscription.request(Long.MAX_VALUE);
        lane.run();

        assertThat(items).hasSize(Kind.values().length);
        for (int k = 0; k < Kind.values().length; k++) {
            Kind kind = Kind.values()[k];
            StringBuilder whole = new StringBuilder();
            for (int i = 0; i < perKind; i++) {
                whole.append(part(kind, i));
            }
            assertThat(items.get(k)).isInstanceOf(kind.type);
            assertThat(kind.text(items.get(k))).isEqualTo(whole.toString());
            assertThat(items.get(k).emittedAtMs()).isEqualTo(perKind - 1L);
        }
    }

    @Test
    void eventsWithinTheDemandArriveAsTheyCame() {
        BufferedSubscription<ServerNotification> s = open();
        subscription.request(4);
        for (int i = 0; i < 6; i++) {
            s.offer(Kind.PLAN.delta("p" + i, i));
        }
        lane.run();
        // Four were on their way to onNext; the two beyond the demand waited and became one.
        assertThat(items).extracting(Kind.PLAN::text).containsExactly("p0", "p1", "p2", "p3");
        subscription.request(10);
        lane.run();
        assertThat(items).extracting(Kind.PLAN::text).containsExactly("p0", "p1", "p2", "p3", "p4p5");
    }

    @Test
    void onlyConsecutiveDeltasMergeSoInterleavedItemsStillOverflow() {
        BufferedSubscription<ServerNotification> s = open();
        // Two commands writing at once: each delta follows one of the other item, so none can be merged.
        for (int i = 0; i < 2 * (BUFFER + 1); i++) {
            s.offer(Kind.COMMAND_OUTPUT.make(new Delta("line " + i + "\n", i).item(i % 2 == 0 ? "cmd-a" : "cmd-b")));
        }
        lane.run();
        assertThat(ends).containsExactly("error: " + CodexBackpressureException.class.getSimpleName());
        assertThat(items).isEmpty();
    }

    @Test
    void aDeltaWithMembersOfANewerServerBreaksTheRunAndKeepsThem() {
        BufferedSubscription<ServerNotification> s = open();
        s.offer(Kind.AGENT_MESSAGE.delta("a", 1));
        s.offer(Kind.AGENT_MESSAGE.delta("b", 2));
        s.offer(Kind.AGENT_MESSAGE.make(new Delta("c", 3).unknown("phase", "final")));
        s.offer(Kind.AGENT_MESSAGE.delta("d", 4));
        s.offer(Kind.AGENT_MESSAGE.delta("e", 5));
        s.complete();
        lane.run();

        subscription.request(10);
        lane.run();

        assertThat(items).extracting(Kind.AGENT_MESSAGE::text).containsExactly("ab", "c", "de");
        assertThat(((ServerNotification.ItemAgentMessageDelta) items.get(1)).params().unknownMembers().asMap())
                .containsKey("phase");
        assertThat(ends).as("the end after the merged events").containsExactly("complete");
    }

    @Test
    void theReplayIsNotMergedIntoButLiveDeltasAfterItAre() {
        BufferedSubscription<ServerNotification> s = open();
        s.offerBacklog(Kind.REASONING_TEXT.delta("replayed ", 1));
        s.offer(Kind.REASONING_TEXT.delta("live ", 2));
        s.offer(Kind.REASONING_TEXT.delta("text", 3));
        s.offer(Kind.REASONING_TEXT.make(new Delta("next part", 4).index(1)));
        lane.run();
        subscription.request(10);
        lane.run();

        assertThat(items).extracting(Kind.REASONING_TEXT::text).containsExactly("replayed ", "live text", "next part");
        assertThat(items.get(1)).isInstanceOfSatisfying(ServerNotification.ItemReasoningTextDelta.class,
                d -> assertThat(d.params().contentIndex()).isZero());
    }

    @Test
    void aSubscriberThatKeepsUpGetsEveryDeltaAsSent() {
        BufferedSubscription<ServerNotification> s = open();
        subscription.request(Long.MAX_VALUE);
        List<ServerNotification> sent = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            for (int i = 0; i < 3; i++) {
                ServerNotification n = kind.delta(part(kind, i), i);
                sent.add(n);
                s.offer(n);
            }
        }
        lane.run();
        assertThat(items).containsExactlyElementsOf(sent);
        assertThat(items.get(0)).isInstanceOf(ServerNotification.ItemAgentMessageDelta.class);
        assertThat(((ServerNotification.ItemAgentMessageDelta) items.get(0)).params())
                .isEqualTo(new AgentMessageDeltaNotification(part(Kind.AGENT_MESSAGE, 0), "item-1", "thr", "turn"));
    }
}

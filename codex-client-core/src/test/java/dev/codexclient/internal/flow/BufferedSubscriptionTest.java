package dev.codexclient.internal.flow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.errors.CodexBackpressureException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * The subscription's rules, on a lane the test runs by hand: nothing is delivered until the test runs the lane, so
 * every assertion sees exactly what a given sequence of offers and requests allows.
 */
class BufferedSubscriptionTest {

    /** Records signals; {@code onNextAction} runs inside onNext with the subscription and the element. */
    private static final class Recorder implements Flow.Subscriber<Integer> {
        final List<Integer> items = new ArrayList<>();
        final List<String> signals = new ArrayList<>();
        Throwable error;
        boolean completed;
        Flow.Subscription subscription;
        BiConsumer<Flow.Subscription, Integer> onNextAction = (s, i) -> { };
        int depth;
        int maxDepth;

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            signals.add("subscribe");
        }

        @Override
        public void onNext(Integer item) {
            depth++;
            maxDepth = Math.max(maxDepth, depth);
            items.add(item);
            signals.add("next");
            onNextAction.accept(subscription, item);
            depth--;
        }

        @Override
        public void onError(Throwable t) {
            error = t;
            signals.add("error");
        }

        @Override
        public void onComplete() {
            completed = true;
            signals.add("complete");
        }
    }

    private final ManualLane lane = new ManualLane();
    private final Recorder subscriber = new Recorder();
    private final AtomicInteger releases = new AtomicInteger();

    private BufferedSubscription<Integer> open(int bufferSize) {
        BufferedSubscription<Integer> s = new BufferedSubscription<>(subscriber, lane, bufferSize, "test source");
        s.start();
        s.onRelease(releases::incrementAndGet);
        lane.run();
        return s;
    }

    @Test
    void deliversOnlyWhatWasRequested() {
        BufferedSubscription<Integer> s = open(100);
        for (int i = 0; i < 10; i++) {
            s.offer(i);
        }
        lane.run();
        assertThat(subscriber.items).isEmpty();

        for (int n = 1; n <= 3; n++) {
            subscriber.subscription.request(1);
            lane.run();
            assertThat(subscriber.items).hasSize(n);
        }
        subscriber.subscription.request(4);
        lane.run();
        assertThat(subscriber.items).containsExactly(0, 1, 2, 3, 4, 5, 6);
        s.offer(10);
        lane.run();
        assertThat(subscriber.items).hasSize(7);
    }

    @Test
    void theEndComesAfterTheQueuedEventsAndNeedsTheirDemand() {
        BufferedSubscription<Integer> s = open(100);
        s.offer(1);
        s.offer(2);
        s.complete();
        s.offer(3);
        lane.run();
        assertThat(subscriber.signals).containsExactly("subscribe");

        subscriber.subscription.request(1);
        lane.run();
        assertThat(subscriber.signals).containsExactly("subscribe", "next");
        subscriber.subscription.request(1);
        lane.run();
        assertThat(subscriber.signals).containsExactly("subscribe", "next", "next", "complete");
        assertThat(subscriber.items).containsExactly(1, 2);
        assertThat(releases).hasValue(1);
    }

    @Test
    void aSubscriberThatDoesNotRequestGetsTheOverflowErrorWithoutDemand() {
        BufferedSubscription<Integer> s = open(3);
        for (int i = 0; i < 3; i++) {
            s.offer(i);
        }
        lane.run();
        assertThat(subscriber.error).isNull();
        assertThat(releases).hasValue(0);

        s.offer(3);
        assertThat(releases).as("the source is let go of at once").hasValue(1);
        lane.run();
        assertThat(subscriber.error).isInstanceOf(CodexBackpressureException.class)
                .hasMessageContaining("test source");
        assertThat(((CodexBackpressureException) subscriber.error).bufferSize()).isEqualTo(3);
        assertThat(subscriber.items).isEmpty();

        s.offer(4);
        s.complete();
        subscriber.subscription.request(10);
        lane.run();
        assertThat(subscriber.signals).containsExactly("subscribe", "error");
    }

    @Test
    void theBacklogDoesNotCountAgainstTheBuffer() {
        BufferedSubscription<Integer> s = open(2);
        for (int i = 0; i < 50; i++) {
            s.offerBacklog(i);
        }
        s.offer(50);
        s.offer(51);
        lane.run();
        assertThat(subscriber.error).isNull();

        subscriber.subscription.request(52);
        lane.run();
        assertThat(subscriber.items).hasSize(52);
        s.offer(52);
        s.offer(53);
        s.offer(54);
        lane.run();
        assertThat(subscriber.error).isInstanceOf(CodexBackpressureException.class);
    }

    @Test
    void eventsWithinTheDemandWaitBeyondTheBuffer() {
        // A slow onNext with demand outstanding: what was requested is on its way, the bound is on the rest.
        BufferedSubscription<Integer> s = open(2);
        subscriber.subscription.request(3);
        for (int i = 0; i < 5; i++) {
            s.offer(i);
        }
        assertThat(releases).hasValue(0);
        s.offer(5);
        assertThat(releases).hasValue(1);
        lane.run();
        assertThat(subscriber.items).isEmpty();
        assertThat(subscriber.error).isInstanceOf(CodexBackpressureException.class);
    }

    @Test
    void theBoundFollowsTheDemandAsItIsUsedUp() {
        BufferedSubscription<Integer> s = open(2);
        subscriber.subscription.request(3);
        lane.run();
        for (int i = 0; i < 3; i++) {
            s.offer(i);
        }
        lane.run();
        assertThat(subscriber.items).hasSize(3);
        s.offer(3);
        s.offer(4);
        lane.run();
        assertThat(subscriber.error).isNull();
        s.offer(5);
        lane.run();
        assertThat(subscriber.error).isInstanceOf(CodexBackpressureException.class);
    }

    @Test
    void cancellingInOnNextStopsEverythingAndReleasesTheSource() {
        BufferedSubscription<Integer> s = open(100);
        subscriber.onNextAction = (sub, i) -> {
            if (i == 2) {
                sub.cancel();
            }
        };
        subscriber.subscription.request(Long.MAX_VALUE);
        for (int i = 0; i < 10; i++) {
            s.offer(i);
        }
        lane.run();
        assertThat(subscriber.items).containsExactly(0, 1, 2);
        assertThat(releases).hasValue(1);
        assertThat(s.isDone()).isTrue();

        s.offer(11);
        s.complete();
        subscriber.subscription.request(1);
        lane.run();
        assertThat(subscriber.signals).containsExactly("subscribe", "next", "next", "next");
        assertThat(lane.tasks).isEmpty();
    }

    @Test
    void requestFromOnNextDoesNotRecurse() {
        BufferedSubscription<Integer> s = open(10_000);
        subscriber.onNextAction = (sub, i) -> sub.request(1);
        for (int i = 0; i < 5_000; i++) {
            s.offer(i);
        }
        subscriber.subscription.request(1);
        lane.run();
        assertThat(subscriber.items).hasSize(5_000);
        assertThat(subscriber.maxDepth).isEqualTo(1);
    }

    @Test
    void aLongRunYieldsTheLaneBetweenBatches() {
        BufferedSubscription<Integer> s = open(10_000);
        subscriber.subscription.request(Long.MAX_VALUE);
        lane.run();
        for (int i = 0; i < 1_000; i++) {
            s.offer(i);
        }
        // One drain is queued for the lot; it hands over a batch, then queues the next drain behind other work.
        assertThat(lane.tasks).hasSize(1);
        lane.tasks.poll().run();
        assertThat(subscriber.items).hasSizeLessThan(1_000);
        assertThat(lane.tasks).hasSize(1);
        lane.run();
        assertThat(subscriber.items).hasSize(1_000);
    }

    @Test
    void aNonPositiveRequestIsAnError() {
        BufferedSubscription<Integer> s = open(100);
        s.offer(1);
        subscriber.subscription.request(0);
        lane.run();
        assertThat(subscriber.error).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3.9");
        assertThat(subscriber.items).isEmpty();
        assertThat(releases).hasValue(1);
    }

    @Test
    void aSubscriberThatThrowsIsCancelled() {
        BufferedSubscription<Integer> s = open(100);
        subscriber.onNextAction = (sub, i) -> {
            throw new IllegalStateException("boom");
        };
        subscriber.subscription.request(10);
        s.offer(1);
        s.offer(2);
        lane.run();
        assertThat(subscriber.items).containsExactly(1);
        assertThat(releases).hasValue(1);
        assertThat(s.isDone()).isTrue();
    }

    @Test
    void aReleaseSetAfterTheEndRunsAtOnce() {
        BufferedSubscription<Integer> s = new BufferedSubscription<>(subscriber, lane, 10, "test source");
        s.start();
        s.complete();
        s.onRelease(releases::incrementAndGet);
        assertThat(releases).hasValue(1);
        lane.run();
        assertThat(subscriber.signals).containsExactly("subscribe", "complete");
    }

    @Test
    void demandSaturatesAtLongMaxValue() {
        BufferedSubscription<Integer> s = open(100);
        subscriber.subscription.request(Long.MAX_VALUE);
        subscriber.subscription.request(Long.MAX_VALUE);
        for (int i = 0; i < 5; i++) {
            s.offer(i);
        }
        lane.run();
        assertThat(subscriber.items).hasSize(5);
        assertThat(subscriber.error).isNull();
    }

    /** Merges two integers of the same tens (10 and 13 stand for one another) into their sum; others stay apart. */
    private BufferedSubscription<Integer> openCoalescing(int bufferSize) {
        BufferedSubscription<Integer> s = new BufferedSubscription<>(subscriber, lane, bufferSize, "test source",
                (a, b) -> a / 10 == b / 10 ? a + b - (a / 10) * 10 : null);
        s.start();
        s.onRelease(releases::incrementAndGet);
        lane.run();
        return s;
    }

    @Test
    void aLaggingSubscriberGetsMergedEventsAndNoOverflow() {
        BufferedSubscription<Integer> s = openCoalescing(2);
        // 11, 12, 13 merge into one (tens kept, units summed: 16); 20 is a new run; 21 merges into it (21).
        for (int i : new int[] {11, 12, 13, 20, 21}) {
            s.offer(i);
        }
        lane.run();
        assertThat(subscriber.error).isNull();
        subscriber.subscription.request(10);
        lane.run();
        assertThat(subscriber.items).containsExactly(16, 21);
    }

    @Test
    void eventsWithinTheDemandAreNeverMerged() {
        BufferedSubscription<Integer> s = openCoalescing(100);
        subscriber.subscription.request(3);
        s.offer(11);
        s.offer(12);
        s.offer(13);
        // Beyond the demand of three: 14 and 15 merge with each other, not with 13, which is on its way.
        s.offer(14);
        s.offer(15);
        lane.run();
        assertThat(subscriber.items).containsExactly(11, 12, 13);
        subscriber.subscription.request(5);
        lane.run();
        assertThat(subscriber.items).containsExactly(11, 12, 13, 19);
    }

    @Test
    void theBacklogIsNeverMergedInto() {
        BufferedSubscription<Integer> s = openCoalescing(100);
        s.offerBacklog(11);
        s.offer(12);
        s.offer(13);
        subscriber.subscription.request(10);
        lane.run();
        assertThat(subscriber.items).containsExactly(11, 15);
    }

    @Test
    void eventsThatCannotBeMergedStillOverflow() {
        BufferedSubscription<Integer> s = openCoalescing(2);
        s.offer(10);
        s.offer(20);
        s.offer(30);
        lane.run();
        assertThat(subscriber.error).isInstanceOf(CodexBackpressureException.class);
        assertThat(subscriber.items).isEmpty();
    }
}

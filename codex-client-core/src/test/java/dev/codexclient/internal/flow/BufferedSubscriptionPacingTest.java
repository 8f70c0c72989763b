package dev.codexclient.internal.flow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.internal.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

/**
 * Pacing: paced events (numbers below 100 here, the "deltas" of one stream, merged by adding them up) are handed over
 * at most once per interval of a manual clock, to a subscriber whose demand never runs out, as a streaming HTTP
 * response's does. The lane runs when the test says, and time moves only when the test moves it.
 */
class BufferedSubscriptionPacingTest {
    private static final Duration INTERVAL = Duration.ofMillis(50);

    /** A serial executor whose tasks run when the test says. */
    private static final class ManualLane implements Executor {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        void run() {
            Runnable t;
            while ((t = tasks.poll()) != null) {
                t.run();
            }
        }
    }

    /** Requests everything at once and records what comes. */
    private static final class OpenDemand implements Flow.Subscriber<Integer> {
        final List<Integer> items = new ArrayList<>();
        Flow.Subscription subscription;
        boolean completed;

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Integer item) {
            items.add(item);
        }

        @Override
        public void onError(Throwable t) {
            throw new AssertionError(t);
        }

        @Override
        public void onComplete() {
            completed = true;
        }
    }

    private final ManualLane lane = new ManualLane();
    private final ManualScheduler clock = new ManualScheduler();
    private final OpenDemand subscriber = new OpenDemand();

    private BufferedSubscription<Integer> open() {
        BufferedSubscription<Integer> s = new BufferedSubscription<>(subscriber, lane, 16, "paced source",
                (a, b) -> a < 100 && b < 100 ? a + b : null,
                new BufferedSubscription.Pacing<>(clock, INTERVAL.toNanos(), i -> i < 100));
        s.start();
        lane.run();
        return s;
    }

    /** Moves the clock, which may end a wait, then runs what that queued on the lane. */
    private void advance(Duration by) {
        clock.advance(by);
        lane.run();
    }

    @Test
    void theFirstDeltaGoesAtOnceAndTheNextWaitsItsIntervalTakingWhatArrivesMeanwhile() {
        BufferedSubscription<Integer> s = open();
        s.offer(1);
        lane.run();
        assertThat(subscriber.items).containsExactly(1);

        s.offer(2);
        lane.run();
        s.offer(3);
        s.offer(4);
        lane.run();
        assertThat(subscriber.items).as("within the interval: waiting, and merged").containsExactly(1);

        advance(INTERVAL.minusMillis(1));
        assertThat(subscriber.items).containsExactly(1);
        advance(Duration.ofMillis(1));
        assertThat(subscriber.items).containsExactly(1, 9);
    }

    @Test
    void deltasQueuedTogetherAreMergedEvenWithinTheDemand() {
        BufferedSubscription<Integer> s = open();
        s.offer(1);
        s.offer(2);
        lane.run();
        assertThat(subscriber.items).as("none was on its way yet").containsExactly(3);
    }

    @Test
    void aDeltaAfterAQuietIntervalGoesAtOnce() {
        BufferedSubscription<Integer> s = open();
        s.offer(1);
        lane.run();
        advance(INTERVAL);
        s.offer(2);
        lane.run();
        assertThat(subscriber.items).containsExactly(1, 2);
        assertThat(clock.pendingTasks()).as("no timer when nothing waits").isZero();
    }

    @Test
    void anEventThatIsNotPacedEndsTheWaitAndKeepsTheOrder() {
        BufferedSubscription<Integer> s = open();
        s.offer(1);
        lane.run();
        s.offer(2);
        lane.run();
        assertThat(subscriber.items).containsExactly(1);
        s.offer(100);   // an item completed, say: it must not wait, nor overtake the delta before it
        lane.run();
        assertThat(subscriber.items).containsExactly(1, 2, 100);
    }

    @Test
    void theEndOfTheSourceEndsTheWait() {
        BufferedSubscription<Integer> s = open();
        s.offer(1);
        lane.run();
        s.offer(2);
        lane.run();
        s.complete();
        lane.run();
        assertThat(subscriber.items).containsExactly(1, 2);
        assertThat(subscriber.completed).isTrue();
        assertThat(clock.pendingTasks()).as("the timer stopped with the subscription").isZero();
    }

    @Test
    void aSteadyStreamGetsAtMostOneDeltaPerIntervalAndLosesNothing() {
        BufferedSubscription<Integer> s = open();
        // One delta every millisecond for a second: 1,000 deltas, each worth 1.
        for (int ms = 0; ms < 1000; ms++) {
            s.offer(1);
            lane.run();
            advance(Duration.ofMillis(1));
        }
        s.complete();
        lane.run();
        assertThat(subscriber.items.stream().mapToInt(Integer::intValue).sum()).as("every delta").isEqualTo(1000);
        // One at once, then one per 50 ms of the second: 21 at most.
        assertThat(subscriber.items).hasSizeLessThanOrEqualTo(1 + 1000 / 50);
        assertThat(subscriber.items.size()).isGreaterThanOrEqualTo(1000 / 50);
    }

    @Test
    void cancellingWhileADeltaWaitsStopsTheTimer() {
        BufferedSubscription<Integer> s = open();
        s.offer(1);
        lane.run();
        s.offer(2);
        lane.run();
        assertThat(clock.pendingTasks()).isOne();
        subscriber.subscription.cancel();
        assertThat(clock.pendingTasks()).isZero();
        advance(INTERVAL);
        assertThat(subscriber.items).containsExactly(1);
    }

    @Test
    void aSubscriberWithoutDemandStillGetsTheMergedDeltaWhenItAsks() {
        // Pacing and demand together: what waited for demand goes out when asked, merged, once its interval passed.
        List<Integer> got = new ArrayList<>();
        Flow.Subscription[] subscription = new Flow.Subscription[1];
        BufferedSubscription<Integer> s = new BufferedSubscription<>(new Flow.Subscriber<Integer>() {
            public void onSubscribe(Flow.Subscription sub) {
                subscription[0] = sub;
            }

            public void onNext(Integer item) {
                got.add(item);
            }

            public void onError(Throwable t) {
                throw new AssertionError(t);
            }

            public void onComplete() {
            }
        }, lane, 16, "paced source", (a, b) -> a < 100 && b < 100 ? a + b : null,
                new BufferedSubscription.Pacing<>(clock, INTERVAL.toNanos(), i -> i < 100));
        s.start();
        lane.run();
        for (int i = 0; i < 5; i++) {
            s.offer(1);
        }
        lane.run();
        subscription[0].request(10);
        lane.run();
        assertThat(got).containsExactly(5);
    }
}

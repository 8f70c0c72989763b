package dev.codexclient.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Delivery lanes: order per key, isolation between keys, lanes that exist only while they have work. */
class LanesTest {
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final AtomicInteger handOffs = new AtomicInteger();
    private final Lanes lanes = new Lanes(task -> {
        handOffs.incrementAndGet();
        pool.execute(task);
    });

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
    }

    /** Waits until every lane has run dry: a task queued behind all others on each key has run. */
    private void drain(List<String> keys) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(keys.size());
        for (String key : keys) {
            lanes.execute(key, done::countDown);
        }
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void tasksOfOneKeyRunInOrderAndASlowLaneDoesNotHoldUpAnother() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch bDone = new CountDownLatch(100);
        lanes.execute("A", () -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        for (int i = 0; i < 100; i++) {
            int n = i;
            lanes.execute("A", () -> seen.add("A" + n));
            lanes.execute("B", () -> {
                seen.add("B" + n);
                bDone.countDown();
            });
        }
        assertThat(bDone.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(seen).noneMatch(s -> s.startsWith("A"));
        release.countDown();
        drain(List.of("A", "B"));
        assertThat(seen.stream().filter(s -> s.startsWith("A")).toList())
                .isEqualTo(java.util.stream.IntStream.range(0, 100).mapToObj(i -> "A" + i).toList());
        assertThat(seen.stream().filter(s -> s.startsWith("B")).toList())
                .isEqualTo(java.util.stream.IntStream.range(0, 100).mapToObj(i -> "B" + i).toList());
    }

    @Test
    void aLaneExistsOnlyWhileItHasWork() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        lanes.execute("busy", () -> {
            running.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(lanes.size()).isEqualTo(1);

        // Ten thousand keys that each see a few events (threads this client never held, for instance).
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            keys.add("thread-" + i);
            lanes.execute("thread-" + i, () -> { });
        }
        drain(keys);
        waitForLanes(1);
        release.countDown();
        waitForLanes(0);
    }

    @Test
    void orderHoldsAcrossALaneRetiringAndTheNextOneStarting() throws Exception {
        // One producer per key, racing the lane that runs dry between its tasks.
        Map<String, List<Integer>> seen = new ConcurrentHashMap<>();
        List<Thread> producers = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            String key = "k" + k;
            seen.put(key, java.util.Collections.synchronizedList(new ArrayList<>()));
            Thread t = new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    int n = i;
                    lanes.execute(key, () -> seen.get(key).add(n));
                    if (i % 7 == 0) {
                        Thread.yield();
                    }
                }
            });
            producers.add(t);
            t.start();
        }
        for (Thread t : producers) {
            t.join(20_000);
        }
        drain(List.of("k0", "k1", "k2", "k3"));
        for (List<Integer> s : seen.values()) {
            assertThat(s).hasSize(10_000).isSorted();
        }
        waitForLanes(0);
    }

    @Test
    void aBatchStartsEachLaneThatBecameBusyOnceAtItsEnd() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        Lanes.Batch batch = lanes.newBatch();
        batch.begin();
        for (int i = 0; i < 40; i++) {
            int n = i;
            batch.deliver("t" + (i % 2), () -> seen.add("t" + (n % 2) + ":" + n));
        }
        assertThat(handOffs.get()).isZero();
        assertThat(seen).isEmpty();
        batch.end();
        drain(List.of("t0", "t1"));
        assertThat(seen).hasSize(40);
        // Two lanes went from idle to busy in the batch, plus the two drain markers.
        assertThat(handOffs.get()).isLessThanOrEqualTo(4);
    }

    @Test
    void aTaskKnowsWhichLaneItRunsOn() throws Exception {
        List<String> answers = new CopyOnWriteArrayList<>();
        Lanes other = new Lanes(pool);
        CountDownLatch done = new CountDownLatch(1);
        lanes.execute("A", () -> {
            answers.add("A on A: " + lanes.isRunning("A"));
            answers.add("A on B: " + lanes.isRunning("B"));
            answers.add("any: " + lanes.isRunningAny());
            answers.add("other lanes: " + other.isRunning("A"));
            done.countDown();
        });
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(answers).containsExactly("A on A: true", "A on B: false", "any: true", "other lanes: false");
        assertThat(lanes.isRunning("A")).isFalse();
        assertThat(lanes.isRunningAny()).isFalse();
    }

    @Test
    void aTaskQueuedOnItsOwnLaneRunsAfterIt() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        lanes.execute("A", () -> {
            lanes.execute("A", () -> {
                seen.add("second");
                done.countDown();
            });
            seen.add("first");
        });
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(seen).containsExactly("first", "second");
    }

    @Test
    void aShutDownPoolRunsTheTasksOnTheSubmittingThread() {
        Lanes closing = new Lanes(task -> {
            throw new RejectedExecutionException("shut down");
        });
        List<String> seen = new ArrayList<>();
        closing.execute("A", () -> seen.add(Thread.currentThread().getName()));
        assertThat(seen).containsExactly(Thread.currentThread().getName());
        assertThat(closing.size()).isZero();
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheLane() throws Exception {
        CountDownLatch after = new CountDownLatch(1);
        lanes.execute("A", () -> {
            throw new IllegalStateException("listener bug");
        });
        lanes.execute("A", after::countDown);
        assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
    }

    private void waitForLanes(int expected) throws InterruptedException {
        // A lane removes itself right after its last task returns: wait for that step, not for time.
        for (int i = 0; i < 10_000 && lanes.size() != expected; i++) {
            Thread.onSpinWait();
            Thread.yield();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (lanes.size() != expected && System.nanoTime() < deadline) {
            Thread.yield();
        }
        assertThat(lanes.size()).isEqualTo(expected);
    }

    @Test
    void aTaskAfterAllRunsOnceEveryLaneRanWhatItHeld() throws Exception {
        CountDownLatch releaseA = new CountDownLatch(1);
        List<String> seen = new CopyOnWriteArrayList<>();
        lanes.execute("A", () -> {
            try {
                releaseA.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            seen.add("A");
        });
        CountDownLatch bDone = new CountDownLatch(1);
        lanes.execute("B", () -> {
            seen.add("B");
            bDone.countDown();
        });
        CountDownLatch after = new CountDownLatch(1);
        lanes.executeAfterAll(() -> {
            seen.add("after");
            after.countDown();
        });
        assertThat(bDone.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(after.getCount()).as("lane A still holds its task").isEqualTo(1);

        releaseA.countDown();
        assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(seen).containsExactlyInAnyOrder("A", "B", "after").endsWith("after");
    }

    @Test
    void aTaskAfterAllRunsAtOnceWhenNoLaneHasWork() {
        List<String> seen = new ArrayList<>();
        lanes.executeAfterAll(() -> seen.add("after"));
        assertThat(seen).containsExactly("after");
    }
}

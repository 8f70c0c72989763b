package dev.codexclient.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SharedThreadsTest {
    private static final long WAIT_SECONDS = 30;

    @Test
    void atTheCeilingTasksWaitInArrivalOrderForAThreadToComeFree() throws Exception {
        SharedThreads pool = new SharedThreads("shared-threads-test-", 4);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch fourBlocked = new CountDownLatch(4);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostRunning = new AtomicInteger();
        List<Integer> order = new CopyOnWriteArrayList<>();
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        CountDownLatch all = new CountDownLatch(1000);
        for (int i = 0; i < 1000; i++) {
            int n = i;
            pool.execute(() -> {
                threads.add(Thread.currentThread());
                mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                if (n < 4) {
                    fourBlocked.countDown();
                    awaitQuietly(release);
                } else {
                    order.add(n);
                }
                running.decrementAndGet();
                all.countDown();
            });
        }
        assertThat(fourBlocked.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        // Every thread blocks: the other 996 tasks wait, and no fifth thread starts for them.
        assertThat(pool.threads()).isEqualTo(4);
        assertThat(pool.queued()).isEqualTo(996);
        assertThat(order).isEmpty();

        release.countDown();
        assertThat(all.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(mostRunning.get()).isEqualTo(4);
        assertThat(pool.peakThreads()).isEqualTo(4);
        assertThat(threads).hasSize(4).allSatisfy(t -> {
            assertThat(t.getName()).startsWith("shared-threads-test-");
            assertThat(t.isDaemon()).isTrue();
        });
        assertThat(order).hasSize(996);
        assertThat(pool.queued()).isZero();
    }

    @Test
    void belowTheCeilingATaskNeverWaitsForAnother() throws Exception {
        SharedThreads pool = new SharedThreads("shared-threads-test-", 8);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(8);
        for (int i = 0; i < 8; i++) {
            pool.execute(() -> {
                started.countDown();
                awaitQuietly(release);
            });
        }
        // Eight blocking tasks, eight threads: none of them waited for another to return.
        assertThat(started.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(pool.threads()).isEqualTo(8);
        release.countDown();
    }

    @Test
    void anIdleThreadIsReusedRatherThanANewOneStarted() throws Exception {
        SharedThreads pool = new SharedThreads("shared-threads-test-", 8);
        for (int i = 0; i < 50; i++) {
            CountDownLatch ran = new CountDownLatch(1);
            pool.execute(ran::countDown);
            assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            // The thread counts as idle once it waits again (until then, a second thread would start).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (pool.idle() < 1 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(pool.idle()).isEqualTo(1);
        }
        assertThat(pool.peakThreads()).isEqualTo(1);
    }

    @Test
    void aTaskThatThrowsLeavesTheThreadServing() throws Exception {
        SharedThreads pool = new SharedThreads("shared-threads-test-", 1);
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> reported.add(e));
        try {
            pool.execute(() -> {
                throw new IllegalStateException("listener bug");
            });
            CountDownLatch ran = new CountDownLatch(1);
            pool.execute(ran::countDown);
            assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
        assertThat(reported).singleElement().extracting(Throwable::getMessage).isEqualTo("listener bug");
        assertThat(pool.threads()).isEqualTo(1);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

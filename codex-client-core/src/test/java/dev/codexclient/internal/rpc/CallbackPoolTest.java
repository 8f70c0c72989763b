package dev.codexclient.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CallbackPoolTest {
    private static final long WAIT_SECONDS = 30;

    @Test
    void clientsReuseTheSharedPoolsIdleThreads() throws Exception {
        CallbackPool first = new CallbackPool();
        CompletableFuture<Thread> ran = new CompletableFuture<>();
        first.execute(() -> ran.complete(Thread.currentThread()));
        Thread thread = ran.get(WAIT_SECONDS, TimeUnit.SECONDS);
        first.shutdown();
        assertThat(first.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

        assertThat(thread.getName()).startsWith("codex-shared-callback-");
        assertThat(thread.isDaemon()).isTrue();
        // The thread outlives the first client's executor and serves the next client (the only idle one here,
        // unless another test's tasks ended meanwhile: then any shared thread will do).
        CallbackPool second = new CallbackPool();
        CompletableFuture<Thread> next = new CompletableFuture<>();
        second.execute(() -> next.complete(Thread.currentThread()));
        assertThat(next.get(WAIT_SECONDS, TimeUnit.SECONDS).getName()).startsWith("codex-shared-callback-");
        assertThat(thread.isAlive()).isTrue();
        second.shutdown();
    }

    @Test
    void shutdownWaitsForItsOwnTasksOnlyAndRejectsNewOnes() throws Exception {
        CallbackPool closing = new CallbackPool();
        CallbackPool other = new CallbackPool();
        CountDownLatch releaseOwn = new CountDownLatch(1);
        CountDownLatch releaseOther = new CountDownLatch(1);
        CountDownLatch bothStarted = new CountDownLatch(2);
        closing.execute(() -> {
            bothStarted.countDown();
            awaitQuietly(releaseOwn);
        });
        other.execute(() -> {
            bothStarted.countDown();
            awaitQuietly(releaseOther);
        });
        assertThat(bothStarted.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

        closing.shutdown();
        assertThat(closing.isShutdown()).isTrue();
        assertThat(closing.isTerminated()).isFalse();
        assertThatThrownBy(() -> closing.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        releaseOwn.countDown();
        // Terminates while the other client's task still runs.
        assertThat(closing.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(other.isShutdown()).isFalse();
        assertThat(other.isTerminated()).isFalse();
        releaseOther.countDown();
        other.shutdown();
        assertThat(other.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void shutdownNowInterruptsItsOwnTasksAndLeavesTheThreadUninterrupted() throws Exception {
        CallbackPool pool = new CallbackPool();
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        CompletableFuture<Thread> thread = new CompletableFuture<>();
        pool.execute(() -> {
            thread.complete(Thread.currentThread());
            started.countDown();
            try {
                new CountDownLatch(1).await();
                interrupted.complete(false);
            } catch (InterruptedException e) {
                interrupted.complete(true);
            }
        });
        assertThat(started.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

        assertThat(pool.shutdownNow()).isEmpty();

        assertThat(interrupted.get(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(pool.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(thread.get().isInterrupted()).isFalse();
    }

    @Test
    void handlersRunOnThreadsOfTheirOwnUnderTheSameShutdown() throws Exception {
        CallbackPool pool = new CallbackPool();
        CompletableFuture<Thread> handler = new CompletableFuture<>();
        CountDownLatch release = new CountDownLatch(1);
        pool.handlers().execute(() -> {
            handler.complete(Thread.currentThread());
            awaitQuietly(release);
        });
        assertThat(handler.get(WAIT_SECONDS, TimeUnit.SECONDS).getName()).startsWith("codex-shared-handler-");
        assertThat(handler.get().isDaemon()).isTrue();

        pool.shutdown();
        assertThatThrownBy(() -> pool.handlers().execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        // The running handler is one of the client's tasks: termination waits for it.
        assertThat(pool.isTerminated()).isFalse();
        release.countDown();
        assertThat(pool.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }

    /**
     * Handlers at their ceiling, every one blocked, do not hold up the other callbacks: the callback that releases
     * them still runs. The JVM-wide handler threads never exceed their ceiling.
     */
    @Test
    void handlersBlockedAtTheirCeilingLeaveTheCallbackThreadsFree() throws Exception {
        CallbackPool pool = new CallbackPool();
        int requests = CallbackPool.HANDLER_THREADS * 4;
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch answered = new CountDownLatch(requests);
        java.util.concurrent.atomic.AtomicInteger blocked = new java.util.concurrent.atomic.AtomicInteger();
        for (int i = 0; i < requests; i++) {
            pool.handlers().execute(() -> {
                blocked.incrementAndGet();
                awaitQuietly(release);
                answered.countDown();
            });
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (blocked.get() < CallbackPool.HANDLER_THREADS && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(blocked.get()).isEqualTo(CallbackPool.HANDLER_THREADS);
        assertThat(CallbackPool.handlerThreads()).isEqualTo(CallbackPool.HANDLER_THREADS);

        pool.execute(release::countDown);

        assertThat(answered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(blocked.get()).isEqualTo(requests);
        assertThat(CallbackPool.peakHandlerThreads()).isEqualTo(CallbackPool.HANDLER_THREADS);
        pool.shutdown();
        assertThat(pool.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aCeilingComesFromItsSystemPropertyAndABadOneIsIgnored() {
        String property = "dev.codexclient.test.ceiling";
        try {
            assertThat(CallbackPool.ceiling(property, 256)).isEqualTo(256);
            System.setProperty(property, " 32 ");
            assertThat(CallbackPool.ceiling(property, 256)).isEqualTo(32);
            for (String bad : new String[] {"0", "-4", "lots", "1.5"}) {
                System.setProperty(property, bad);
                assertThat(CallbackPool.ceiling(property, 256)).as(bad).isEqualTo(256);
            }
        } finally {
            System.clearProperty(property);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package dev.codexclient.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import dev.codexclient.internal.time.SystemScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The future of a call: waiting threads wake on the reader thread's word, dependents run on the callback executor,
 * and what a user does to the future wins over what the connection does when it comes first.
 */
class CallFutureTest {
    private static final String READER = "test-transport-reader";
    private static final String CALLBACK = "test-callback-";

    private final ObjectMapper mapper = new ObjectMapper();
    private final ScriptedTransport transport = new ScriptedTransport();
    private final AtomicInteger callbackThreads = new AtomicInteger();
    private final ExecutorService callbacks = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, CALLBACK + callbackThreads.incrementAndGet());
        t.setDaemon(true);
        return t;
    });
    private final CountDownLatch releaseCallbacks = new CountDownLatch(1);
    private final SystemScheduler scheduler = new SystemScheduler();
    private RpcConnection rpc;

    private RpcConnection connect() {
        rpc = new RpcConnection(transport, new JsonWireCodec(mapper), new RpcSettings(Duration.ofSeconds(5), 1, Duration.ofMillis(5),
                Duration.ofMillis(20), Duration.ofSeconds(5)), callbacks, true, scheduler, s -> s, new RpcConnection.Handler() {
                    @Override
                    public void onNotification(IncomingNotification n) {
                    }

                    @Override
                    public CompletionStage<ServerRequestReply> onRequest(IncomingRequest request) {
                        return CompletableFuture.failedFuture(new UnsupportedOperationException());
                    }

                    @Override
                    public void onClosed(CodexTransportException cause) {
                    }
                });
        rpc.start();
        return rpc;
    }

    @AfterEach
    void tearDown() {
        releaseCallbacks.countDown();
        if (rpc != null) {
            rpc.close();
        }
    }

    /** Holds the (single) callback thread until {@link #releaseCallbacks} opens: dependents queue up meanwhile. */
    private void stallCallbacks() throws InterruptedException {
        CountDownLatch stalled = new CountDownLatch(1);
        callbacks.execute(() -> {
            stalled.countDown();
            try {
                releaseCallbacks.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(stalled.await(5, TimeUnit.SECONDS)).isTrue();
    }

    /** Delivers a line on a thread that plays the transport's reader, and waits until it has been handled. */
    private void injectFromReader(String json) throws InterruptedException {
        Thread reader = new Thread(() -> transport.inject(json), READER);
        reader.setDaemon(true);
        reader.start();
        reader.join(5_000);
        assertThat(reader.isAlive()).isFalse();
    }

    private long sentId() throws Exception {
        return mapper.readTree(transport.takeSent(Duration.ofSeconds(5))).get("id").asLong();
    }

    @Test
    void getReturnsTheValueAndDependentsNeverRunOnTheReaderThread() throws Exception {
        connect();
        CompletableFuture<JsonNode> f = rpc.call("m", null, JsonNode.class, null);
        List<String> threads = new CopyOnWriteArrayList<>();
        CompletableFuture<Integer> applied = f.thenApply(v -> {
            threads.add("thenApply " + Thread.currentThread().getName());
            return v.get("n").asInt();
        });
        CompletableFuture<JsonNode> watched = f.whenComplete((v, e) ->
                threads.add("whenComplete " + Thread.currentThread().getName()));
        CompletableFuture<Void> all = CompletableFuture.allOf(f).thenRun(() ->
                threads.add("allOf " + Thread.currentThread().getName()));

        injectFromReader("{\"id\":" + sentId() + ",\"result\":{\"n\":7}}");

        assertThat(f.get(5, TimeUnit.SECONDS).get("n").asInt()).isEqualTo(7);
        assertThat(applied.get(5, TimeUnit.SECONDS)).isEqualTo(7);
        watched.get(5, TimeUnit.SECONDS);
        all.get(5, TimeUnit.SECONDS);
        assertThat(threads).hasSize(3).allSatisfy(t -> assertThat(t).contains(CALLBACK).doesNotContain(READER));
    }

    @Test
    void aBlockedGetWakesWithoutTheCallbackExecutorWhileDependentsWaitForIt() throws Exception {
        connect();
        CompletableFuture<JsonNode> f = rpc.call("m", null, JsonNode.class, null);
        long id = sentId();
        AtomicReference<String> dependentThread = new AtomicReference<>();
        CompletableFuture<Integer> applied = f.thenApply(v -> {
            dependentThread.set(Thread.currentThread().getName());
            return v.get("n").asInt();
        });
        stallCallbacks();

        injectFromReader("{\"id\":" + id + ",\"result\":{\"n\":3}}");

        // The callback executor is stuck, yet every way of waiting for or asking about the call sees the result.
        assertThat(f.get(5, TimeUnit.SECONDS).get("n").asInt()).isEqualTo(3);
        assertThat(f.get().get("n").asInt()).isEqualTo(3);
        assertThat(f.join().get("n").asInt()).isEqualTo(3);
        assertThat(f.getNow(null)).isNotNull();
        assertThat(f.isDone()).isTrue();
        assertThat(f.isCompletedExceptionally()).isFalse();
        assertThat(applied).isNotDone();
        // The result is known: a late completion by the user is refused, as on any completed future.
        assertThat(f.complete(mapper.createObjectNode())).isFalse();
        assertThat(f.cancel(true)).isFalse();

        releaseCallbacks.countDown();
        assertThat(applied.get(5, TimeUnit.SECONDS)).isEqualTo(3);
        assertThat(dependentThread.get()).startsWith(CALLBACK);
        assertThat(f.get().get("n").asInt()).isEqualTo(3);
    }

    @Test
    void aThreadBlockedInGetPublishesTheResultItselfWhenNothingDependsOnIt() throws Exception {
        connect();
        CompletableFuture<JsonNode> f = rpc.call("m", null, JsonNode.class, null);
        long id = sentId();
        stallCallbacks();
        CompletableFuture<JsonNode> got = new CompletableFuture<>();
        Thread blocked = new Thread(() -> {
            try {
                got.complete(f.get(10, TimeUnit.SECONDS));
            } catch (Throwable t) {
                got.completeExceptionally(t);
            }
        }, "test-waiter");
        blocked.setDaemon(true);
        blocked.start();
        waitUntilWaiting(blocked);

        injectFromReader("{\"id\":" + id + ",\"result\":{\"n\":5}}");

        assertThat(got.get(5, TimeUnit.SECONDS).get("n").asInt()).isEqualTo(5);
        blocked.join(5_000);
        // Published by the waiter, not by the (stalled) callback executor: a stage the JDK attaches itself
        // completes at once, while a dependent added now still runs on the callback executor.
        assertThat(CompletableFuture.allOf(f)).isDone();
        CompletableFuture<Integer> late = f.thenApply(v -> v.get("n").asInt());
        assertThat(late).isNotDone();
        releaseCallbacks.countDown();
        assertThat(late.get(5, TimeUnit.SECONDS)).isEqualTo(5);
    }

    @Test
    void everyDependentRunsOnTheCallbackExecutorEvenWhenAddedAfterTheOutcome() throws Exception {
        connect();
        CompletableFuture<JsonNode> f = rpc.call("m", null, JsonNode.class, null);
        injectFromReader("{\"id\":" + sentId() + ",\"result\":{\"n\":1}}");
        f.get(5, TimeUnit.SECONDS);
        List<String> threads = new CopyOnWriteArrayList<>();
        List<CompletableFuture<?>> stages = List.of(
                f.thenApply(v -> threads.add(Thread.currentThread().getName())),
                f.thenAccept(v -> threads.add(Thread.currentThread().getName())),
                f.thenRun(() -> threads.add(Thread.currentThread().getName())),
                f.whenComplete((v, e) -> threads.add(Thread.currentThread().getName())),
                f.handle((v, e) -> threads.add(Thread.currentThread().getName())),
                f.thenCompose(v -> {
                    threads.add(Thread.currentThread().getName());
                    return CompletableFuture.completedFuture(v);
                }),
                f.thenCombine(CompletableFuture.completedFuture(1), (a, b) -> threads.add(
                        Thread.currentThread().getName())),
                f.thenApplyAsync(v -> threads.add(Thread.currentThread().getName())),
                f.exceptionally(e -> null).thenApply(v -> threads.add("exceptionally passed through")));
        for (CompletableFuture<?> stage : stages) {
            stage.get(5, TimeUnit.SECONDS);
        }
        assertThat(threads).hasSize(stages.size())
                .allSatisfy(t -> assertThat(t).matches(CALLBACK + ".*|exceptionally passed through"));
    }

    @Test
    void dependentsAddedWhileTheResponseArrivesNeverRunOnTheReaderAndAlwaysRun() throws Exception {
        connect();
        ExecutorService roles = Executors.newFixedThreadPool(3, r -> {
            Thread t = new Thread(r, "test-role");
            t.setDaemon(true);
            return t;
        });
        List<String> dependentThreads = new CopyOnWriteArrayList<>();
        try {
            for (int i = 0; i < 300; i++) {
                CompletableFuture<JsonNode> f = rpc.call("m", null, JsonNode.class, null);
                long id = sentId();
                CountDownLatch go = new CountDownLatch(1);
                int round = i;
                // Waiters that give up early (or not at all) and a dependent added at about the same time.
                CompletableFuture<?> waiter = CompletableFuture.runAsync(() -> {
                    await(go);
                    try {
                        f.get(round % 3 == 0 ? 0 : round % 3 == 1 ? 50 : 5_000, TimeUnit.MICROSECONDS);
                    } catch (TimeoutException | InterruptedException | ExecutionException e) {
                        // giving up is part of the race
                    }
                }, roles);
                CompletableFuture<CompletableFuture<Void>> dependent = CompletableFuture.supplyAsync(() -> {
                    await(go);
                    return f.thenRun(() -> dependentThreads.add(Thread.currentThread().getName()));
                }, roles);
                CompletableFuture<?> reader = CompletableFuture.runAsync(() -> {
                    await(go);
                    Thread.currentThread().setName(READER);
                    try {
                        transport.inject("{\"id\":" + id + ",\"result\":{}}");
                    } finally {
                        Thread.currentThread().setName("test-role");
                    }
                }, roles);
                go.countDown();
                waiter.get(5, TimeUnit.SECONDS);
                reader.get(5, TimeUnit.SECONDS);
                dependent.get(5, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
                assertThat(f.thenApply(v -> v).get(5, TimeUnit.SECONDS)).isNotNull();
            }
        } finally {
            roles.shutdownNow();
        }
        assertThat(dependentThreads).hasSize(300).noneMatch(READER::equals);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(5, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void cancelUnblocksAThreadWaitingInGet() throws Exception {
        connect();
        CompletableFuture<JsonNode> f = rpc.call("m", null, JsonNode.class, null);
        long id = sentId();
        CompletableFuture<Throwable> waiter = new CompletableFuture<>();
        Thread blocked = new Thread(() -> {
            try {
                f.get(10, TimeUnit.SECONDS);
                waiter.complete(null);
            } catch (Throwable t) {
                waiter.complete(t);
            }
        }, "test-waiter");
        blocked.setDaemon(true);
        blocked.start();
        waitUntilWaiting(blocked);

        assertThat(f.cancel(true)).isTrue();

        assertThat(waiter.get(5, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
        assertThat(f.isCancelled()).isTrue();
        assertThat(f.isCompletedExceptionally()).isTrue();
        assertThat(rpc.pendingCount()).isZero();
        // The answer that comes anyway is dropped.
        injectFromReader("{\"id\":" + id + ",\"result\":{}}");
        assertThatThrownBy(f::join).isInstanceOf(CancellationException.class);
    }

    @Test
    void aValueTheUserCompletesWithFirstWinsOverTheResponse() throws Exception {
        connect();
        CompletableFuture<JsonNode> f = rpc.call("m", null, JsonNode.class, null);
        long id = sentId();
        JsonNode mine = mapper.readTree("{\"mine\":true}");
        AtomicReference<JsonNode> seenByDependent = new AtomicReference<>();
        CompletableFuture<Void> dependent = f.thenAccept(seenByDependent::set);

        assertThat(f.complete(mine)).isTrue();
        injectFromReader("{\"id\":" + id + ",\"result\":{\"server\":true}}");

        assertThat(f.get(5, TimeUnit.SECONDS)).isSameAs(mine);
        assertThat(f.join()).isSameAs(mine);
        dependent.get(5, TimeUnit.SECONDS);
        assertThat(seenByDependent.get()).isSameAs(mine);
    }

    @Test
    void completeAsyncOnTheCallIsSeenByWaiters() throws Exception {
        connect();
        CompletableFuture<JsonNode> f = rpc.call("m", null, JsonNode.class, null);
        sentId();
        JsonNode mine = mapper.readTree("{\"async\":1}");
        f.completeAsync(() -> mine);
        assertThat(f.get(5, TimeUnit.SECONDS)).isSameAs(mine);
        assertThat(f.thenApply(v -> v).get(5, TimeUnit.SECONDS)).isSameAs(mine);
    }

    @Test
    void anErrorResponseFailsGetAndJoinWithTheCauseDependentsSee() throws Exception {
        connect();
        CompletableFuture<JsonNode> f = rpc.call("thread/start", null, JsonNode.class, null);
        AtomicReference<Throwable> seenByDependent = new AtomicReference<>();
        AtomicReference<String> dependentThread = new AtomicReference<>();
        CompletableFuture<JsonNode> watched = f.whenComplete((v, e) -> {
            seenByDependent.set(e);
            dependentThread.set(Thread.currentThread().getName());
        });

        injectFromReader("{\"id\":" + sentId() + ",\"error\":{\"code\":-32602,\"message\":\"bad cwd\"}}");

        Throwable viaGet = catchThrowable(() -> f.get(5, TimeUnit.SECONDS));
        assertThat(viaGet).isInstanceOf(ExecutionException.class);
        assertThat(viaGet.getCause()).isInstanceOfSatisfying(CodexRpcException.class,
                e -> assertThat(e.code()).isEqualTo(-32602));
        Throwable viaJoin = catchThrowable(f::join);
        assertThat(viaJoin).isInstanceOf(CompletionException.class);
        assertThat(viaJoin.getCause()).isSameAs(viaGet.getCause());
        assertThat(f.isCompletedExceptionally()).isTrue();
        assertThatThrownBy(watched::join).isInstanceOf(CompletionException.class);
        assertThat(seenByDependent.get()).isSameAs(viaGet.getCause());
        assertThat(dependentThread.get()).startsWith(CALLBACK);
    }

    @Test
    void aTimeoutFailsGetAndJoinWithTheTimeoutException() throws Exception {
        connect();
        CompletableFuture<JsonNode> f = rpc.call("slow", null, JsonNode.class, Duration.ofMillis(50));
        sentId();
        AtomicReference<Throwable> seenByDependent = new AtomicReference<>();
        CompletableFuture<JsonNode> watched = f.whenComplete((v, e) -> seenByDependent.set(e));

        Throwable viaGet = catchThrowable(() -> f.get(5, TimeUnit.SECONDS));
        assertThat(viaGet).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(CodexTimeoutException.class).hasMessageContaining("slow");
        Throwable viaJoin = catchThrowable(f::join);
        assertThat(viaJoin).isInstanceOf(CompletionException.class);
        assertThat(viaJoin.getCause()).isSameAs(viaGet.getCause());
        assertThatThrownBy(watched::join).isInstanceOf(CompletionException.class);
        assertThat(seenByDependent.get()).isSameAs(viaGet.getCause());
    }

    @Test
    void closingFailsAWaiterWithTheTransportException() throws Exception {
        connect();
        CompletableFuture<JsonNode> f = rpc.call("m", null, JsonNode.class, null);
        sentId();
        transport.peerExit(3, "boom");
        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(CodexTransportException.class);
        assertThat(rpc.pendingCount()).isZero();
    }

    /**
     * The client's bookkeeping of a call (its end event) runs before the outcome is visible to those waiting for
     * it: a caller that wakes from get() and reports something next (the handshake's "connection opened") reports
     * it after the call's end, in the order the two happened.
     */
    @Test
    void theBookkeepingOfAnOutcomeRunsBeforeAnyWaiterCanSeeIt() {
        for (boolean failed : new boolean[] {false, true}) {
            CallFuture<String> f = new CallFuture<>(Runnable::run, () -> { });
            List<Boolean> visibleDuringBookkeeping = new CopyOnWriteArrayList<>();
            f.onSettled((value, error) -> visibleDuringBookkeeping.add(f.isDone()));

            if (failed) {
                f.settle(null, new CodexTransportException("lost"));
            } else {
                f.settle("answer", null);
            }

            assertThat(visibleDuringBookkeeping).containsExactly(false);
            assertThat(f.isDone()).isTrue();
        }
    }

    @Test
    void bookkeepingRegisteredAfterTheOutcomeRunsAtOnce() {
        CallFuture<String> f = new CallFuture<>(Runnable::run, () -> { });
        f.settle("answer", null);
        List<Object> seen = new CopyOnWriteArrayList<>();
        f.onSettled((value, error) -> seen.add(value));
        assertThat(seen).containsExactly("answer");
    }

    private static void waitUntilWaiting(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (thread.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(thread.getState()).isEqualTo(Thread.State.TIMED_WAITING);
    }

    @Test
    void aWaitingCallerSpinsOnlyWithMoreThanTwoProcessors() {
        // With two, the spin takes the processor the reader thread or the server needs to deliver the answer.
        assertThat(CallFuture.spinsWith(1)).isFalse();
        assertThat(CallFuture.spinsWith(2)).isFalse();
        assertThat(CallFuture.spinsWith(3)).isTrue();
        assertThat(CallFuture.spinsWith(64)).isTrue();
    }
}

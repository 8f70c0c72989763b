package dev.codexclient.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.errors.CodexOverloadedException;
import dev.codexclient.errors.CodexProtocolException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.internal.time.SystemScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RpcConnectionTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private final ObjectMapper mapper = new ObjectMapper()
            .configure(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    private final ScriptedTransport transport = new ScriptedTransport();
    private final List<IncomingNotification> notifications = new CopyOnWriteArrayList<>();
    private volatile Function<IncomingRequest, CompletionStage<ServerRequestReply>> requestHandler =
            r -> CompletableFuture.failedFuture(new UnsupportedOperationException("no handler for " + r.method()));
    private volatile CodexTransportException closedWith;
    private final SystemScheduler scheduler = new SystemScheduler();
    private RpcConnection rpc;

    private RpcConnection connect(RpcSettings settings) {
        return connect(settings, scheduler);
    }

    private RpcConnection connect(RpcSettings settings, Scheduler clock) {
        rpc = new RpcConnection(transport, new JsonWireCodec(mapper), settings, Executors.newCachedThreadPool(),
                true, clock, s -> s,
                new RpcConnection.Handler() {
                    @Override
                    public void onNotification(IncomingNotification n) {
                        notifications.add(n);
                    }

                    @Override
                    public CompletionStage<ServerRequestReply> onRequest(IncomingRequest request) {
                        return requestHandler.apply(request);
                    }

                    @Override
                    public void onClosed(CodexTransportException cause) {
                        closedWith = cause;
                    }
                });
        rpc.start();
        return rpc;
    }

    private static final RpcSettings SETTINGS = new RpcSettings(Duration.ofSeconds(5), 4, Duration.ofMillis(5),
            Duration.ofMillis(20), Duration.ofSeconds(5));

    private RpcConnection connect() {
        return connect(SETTINGS);
    }

    @AfterEach
    void tearDown() {
        if (rpc != null) {
            rpc.close();
        }
    }

    private JsonNode sent() throws Exception {
        return mapper.readTree(transport.takeSent(WAIT));
    }

    @Test
    void correlatesResponsesThatArriveOutOfOrder() throws Exception {
        connect();
        CompletableFuture<JsonNode> a = rpc.call("a", null, JsonNode.class, null);
        CompletableFuture<JsonNode> b = rpc.call("b", mapper.createObjectNode().put("x", 1), JsonNode.class, null);
        JsonNode ra = sent();
        JsonNode rb = sent();
        assertThat(ra.has("params")).isFalse();
        assertThat(rb.get("params").get("x").asInt()).isEqualTo(1);
        assertThat(ra.has("jsonrpc")).isFalse();
        transport.inject("{\"id\":" + rb.get("id") + ",\"result\":{\"who\":\"b\"}}");
        transport.inject("{\"id\":" + ra.get("id") + ",\"result\":{\"who\":\"a\"}}");
        assertThat(a.get(5, TimeUnit.SECONDS).get("who").asText()).isEqualTo("a");
        assertThat(b.get(5, TimeUnit.SECONDS).get("who").asText()).isEqualTo("b");
        assertThat(rpc.pendingCount()).isZero();
    }

    record Answer(String who) {
    }

    @Test
    void decodesTypedResultsAndReportsUndecodableOnes() throws Exception {
        connect();
        CompletableFuture<Answer> ok = rpc.call("m", null, Answer.class, null);
        transport.inject("{\"id\":" + sent().get("id") + ",\"result\":{\"who\":\"x\",\"extra\":1}}");
        assertThat(ok.get(5, TimeUnit.SECONDS)).isEqualTo(new Answer("x"));

        CompletableFuture<Answer> bad = rpc.call("m", null, Answer.class, null);
        transport.inject("{\"id\":" + sent().get("id") + ",\"result\":[1,2]}");
        assertThatThrownBy(() -> bad.get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(CodexProtocolException.class).hasMessageContaining("m");
    }

    @Test
    void errorResponsesBecomeTypedRpcExceptions() throws Exception {
        connect();
        CompletableFuture<JsonNode> f = rpc.call("thread/start", null, JsonNode.class, null);
        transport.inject("{\"id\":" + sent().get("id")
                + ",\"error\":{\"code\":-32602,\"message\":\"bad cwd\",\"data\":{\"k\":1}}}");
        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).cause().isInstanceOfSatisfying(
                CodexRpcException.class, e -> {
                    assertThat(e.code()).isEqualTo(-32602);
                    assertThat(e.serverMessage()).isEqualTo("bad cwd");
                    assertThat(e.method()).hasValue("thread/start");
                    assertThat(e.data()).hasValueSatisfying(d -> assertThat(d.get("k").asInt()).isEqualTo(1));
                });
        assertThat(rpc.pendingCount()).isZero();
    }

    @Test
    void timeoutNamesMethodAndIdAndForgetsTheRequest() throws Exception {
        ManualScheduler clock = new ManualScheduler();
        connect(SETTINGS, clock);
        CompletableFuture<JsonNode> f = rpc.call("slow/method", null, JsonNode.class, Duration.ofMillis(50));
        JsonNode req = sent();
        clock.advance(Duration.ofMillis(49));
        assertThat(f).isNotDone();
        clock.advance(Duration.ofMillis(1));
        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(CodexTimeoutException.class)
                .hasMessageContaining("slow/method").hasMessageContaining("id " + req.get("id").asLong());
        assertThat(rpc.pendingCount()).isZero();
        // A late response is dropped without harm.
        transport.inject("{\"id\":" + req.get("id") + ",\"result\":{}}");
        assertThat(rpc.pendingCount()).isZero();
    }

    @Test
    void overloadIsRetriedWithNewIdsUntilItSucceeds() throws Exception {
        connect();
        CompletableFuture<JsonNode> f = rpc.call("turn/start", null, JsonNode.class, null);
        long first = sent().get("id").asLong();
        transport.inject("{\"id\":" + first + ",\"error\":{\"code\":-32001,\"message\":\"Server overloaded; retry later.\"}}");
        long second = sent().get("id").asLong();
        assertThat(second).isNotEqualTo(first);
        transport.inject("{\"id\":" + second + ",\"error\":{\"code\":-32001,\"message\":\"Server overloaded; retry later.\"}}");
        long third = sent().get("id").asLong();
        transport.inject("{\"id\":" + third + ",\"result\":{\"ok\":true}}");
        assertThat(f.get(5, TimeUnit.SECONDS).get("ok").asBoolean()).isTrue();
    }

    @Test
    void childExitFailsEveryPendingCallWithExitCodeAndStderr() throws Exception {
        connect();
        List<CompletableFuture<JsonNode>> calls = new java.util.ArrayList<>();
        for (int i = 0; i < 50; i++) {
            calls.add(rpc.call("m" + i, null, JsonNode.class, null));
        }
        transport.peerExit(3, "fatal: boom");
        for (CompletableFuture<JsonNode> c : calls) {
            assertThatThrownBy(() -> c.get(5, TimeUnit.SECONDS)).cause()
                    .isInstanceOfSatisfying(CodexTransportException.class, e -> {
                        assertThat(e.exitCode()).hasValue(3);
                        assertThat(e.stderrTail()).contains("fatal: boom");
                    });
        }
        assertThat(rpc.pendingCount()).isZero();
        assertThat(rpc.terminated().get(5, TimeUnit.SECONDS)).isNotNull();
        assertThat(closedWith).isNotNull();
        // Calls after the exit fail at once.
        assertThatThrownBy(() -> rpc.call("late", null, JsonNode.class, null).get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(CodexTransportException.class);
    }

    /**
     * A transport closed by other code than the client (a socket closed under it) reports a requested end: that
     * is a lost connection, told with the transport's words, not the client's own close.
     */
    @Test
    void aTransportClosedUnderTheConnectionIsALossNotTheClientsClose() throws Exception {
        connect();
        CompletableFuture<JsonNode> pending = rpc.call("m", null, JsonNode.class, null);
        sent();
        transport.close();
        Throwable failure = catchThrowable(() -> pending.get(5, TimeUnit.SECONDS)).getCause();
        assertThat(failure).isInstanceOf(CodexTransportException.class)
                .hasMessageContaining("was lost").hasMessageContaining("scripted")
                .hasMessageContaining("closed by client").hasMessageNotContaining("the client was closed");
    }

    @Test
    void theConnectionsOwnCloseIsTheClientsClose() throws Exception {
        connect();
        CompletableFuture<JsonNode> pending = rpc.call("m", null, JsonNode.class, null);
        sent();
        rpc.closing();
        transport.close();
        assertThat(catchThrowable(() -> pending.get(5, TimeUnit.SECONDS)).getCause())
                .isInstanceOf(CodexTransportException.class).hasMessage("the client was closed");
    }

    @Test
    void closeWithRequestsInFlightFailsThemAll() throws Exception {
        connect();
        List<CompletableFuture<JsonNode>> calls = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            calls.add(rpc.call("m", null, JsonNode.class, null));
        }
        rpc.close();
        for (CompletableFuture<JsonNode> c : calls) {
            assertThatThrownBy(() -> c.get(5, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(CodexTransportException.class);
        }
        assertThat(rpc.pendingCount()).isZero();
    }

    @Test
    void serverRequestsAreAnsweredWithTheSameIdAndIdType() throws Exception {
        connect();
        requestHandler = r -> CompletableFuture.completedFuture(new ServerRequestReply.Result(
                mapper.createObjectNode().put("decision", "accept")));
        transport.inject("{\"id\":7,\"method\":\"item/commandExecution/requestApproval\",\"params\":{}}");
        JsonNode reply = sent();
        assertThat(reply.get("id").isIntegralNumber()).isTrue();
        assertThat(reply.get("id").asLong()).isEqualTo(7);
        assertThat(reply.get("result").get("decision").asText()).isEqualTo("accept");

        transport.inject("{\"id\":\"abc-1\",\"method\":\"x\",\"params\":{}}");
        JsonNode reply2 = sent();
        assertThat(reply2.get("id").isTextual()).isTrue();
        assertThat(reply2.get("id").asText()).isEqualTo("abc-1");
    }

    @Test
    void resolvedCancelsTheRunningHandlerAndSuppressesItsReply() throws Exception {
        connect();
        CompletableFuture<ServerRequestReply> handlerStage = new CompletableFuture<>();
        CountDownLatch invoked = new CountDownLatch(1);
        requestHandler = r -> {
            invoked.countDown();
            return handlerStage;
        };
        transport.inject("{\"id\":0,\"method\":\"item/commandExecution/requestApproval\",\"params\":{\"threadId\":\"t\"}}");
        assertThat(invoked.await(5, TimeUnit.SECONDS)).isTrue();
        transport.inject("{\"method\":\"serverRequest/resolved\",\"params\":{\"threadId\":\"t\",\"requestId\":0}}");
        waitUntil(handlerStage::isCancelled);
        // Everything after the cancellation runs on this thread: no reply can still be on its way.
        handlerStage.complete(new ServerRequestReply.Result(mapper.createObjectNode())); // no effect: cancelled
        assertThat(transport.sent).isEmpty();
        assertThat(rpc.inflightServerRequestCount()).isZero();
        waitUntil(() -> notifications.stream().anyMatch(n -> n.method().equals("serverRequest/resolved")));
    }

    @Test
    void garbageAndOddLinesAreSkippedAndReadingContinues() throws Exception {
        connect();
        CompletableFuture<JsonNode> f = rpc.call("m", null, JsonNode.class, null);
        long id = sent().get("id").asLong();
        transport.inject("not json at all");
        transport.inject("[1,2,3]");
        transport.inject("{\"neither\":true}");
        transport.inject("{\"id\":{\"weird\":1},\"method\":\"x\"}");
        transport.inject("{\"id\":999999,\"result\":{}}");
        transport.inject("{\"id\":" + id + ",\"result\":{\"fine\":1}}");
        assertThat(f.get(5, TimeUnit.SECONDS).get("fine").asInt()).isEqualTo(1);
    }

    @Test
    void aBatchIsDeliveredInOrderAndStartsEachIdleLaneOnce() throws Exception {
        AtomicInteger starts = new AtomicInteger();
        java.util.concurrent.ExecutorService pool = Executors.newCachedThreadPool();
        java.util.concurrent.ExecutorService counting = new java.util.concurrent.AbstractExecutorService() {
            @Override
            public void execute(Runnable command) {
                starts.incrementAndGet();
                pool.execute(command);
            }

            @Override
            public void shutdown() {
                pool.shutdown();
            }

            @Override
            public List<Runnable> shutdownNow() {
                return pool.shutdownNow();
            }

            @Override
            public boolean isShutdown() {
                return pool.isShutdown();
            }

            @Override
            public boolean isTerminated() {
                return pool.isTerminated();
            }

            @Override
            public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
                return pool.awaitTermination(timeout, unit);
            }
        };
        rpc = new RpcConnection(transport, new JsonWireCodec(mapper), new RpcSettings(Duration.ofSeconds(5), 1, Duration.ZERO,
                Duration.ZERO, Duration.ofSeconds(5)), counting, true, scheduler, s -> s, new RpcConnection.Handler() {
                    @Override
                    public void onNotification(IncomingNotification n) {
                        notifications.add(n);
                    }

                    @Override
                    public CompletionStage<ServerRequestReply> onRequest(IncomingRequest request) {
                        return CompletableFuture.completedFuture(new ServerRequestReply.Result(
                                mapper.createObjectNode()));
                    }

                    @Override
                    public void onClosed(CodexTransportException cause) {
                    }
                });
        rpc.start();
        String[] lines = new String[40];
        for (int i = 0; i < lines.length; i++) {
            lines[i] = "{\"method\":\"test/event\",\"params\":{\"threadId\":\"t" + (i % 2)
                    + "\",\"delta\":\"" + i + "\"}}";
        }

        transport.injectBatch(lines);

        waitUntil(() -> notifications.size() == lines.length);
        for (String thread : List.of("t0", "t1")) {
            assertThat(notifications).filteredOn(n -> n.threadId().orElseThrow().equals(thread))
                    .extracting(n -> raw(n).get("params").get("delta").asInt())
                    .isSorted()
                    .hasSize(lines.length / 2);
        }
        // Two lanes went from idle to busy in the batch: two hand-offs to the pool, not one per event.
        assertThat(starts.get()).isEqualTo(2);
    }

    @Test
    void notificationsKeepWireOrderPerThreadAndASlowThreadDoesNotBlockAnother() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<String> seen = new CopyOnWriteArrayList<>();
        rpc = new RpcConnection(transport, new JsonWireCodec(mapper), new RpcSettings(Duration.ofSeconds(5), 1, Duration.ZERO,
                Duration.ZERO, Duration.ZERO), Executors.newCachedThreadPool(), true, scheduler, s -> s,
                new RpcConnection.Handler() {
                    @Override
                    public void onNotification(IncomingNotification n) {
                        String thread = n.threadId().orElse("-");
                        if (thread.equals("A") && raw(n).path("params").path("n").asInt() == 0) {
                            try {
                                release.await(10, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                        seen.add(thread + raw(n).path("params").path("n").asInt());
                    }

                    @Override
                    public CompletionStage<ServerRequestReply> onRequest(IncomingRequest request) {
                        return CompletableFuture.completedFuture(new ServerRequestReply.Result(
                                mapper.createObjectNode()));
                    }

                    @Override
                    public void onClosed(CodexTransportException cause) {
                    }
                });
        rpc.start();
        for (int i = 0; i < 100; i++) {
            transport.inject("{\"method\":\"test/event\",\"params\":{\"threadId\":\"A\",\"n\":" + i + "}}");
            transport.inject("{\"method\":\"test/event\",\"params\":{\"threadId\":\"B\",\"n\":" + i + "}}");
        }
        // Thread B is delivered completely while A's first listener call is still blocked.
        waitUntil(() -> seen.stream().filter(s -> s.startsWith("B")).count() == 100);
        assertThat(seen).noneMatch(s -> s.startsWith("A"));
        release.countDown();
        waitUntil(() -> seen.size() == 200);
        List<String> a = seen.stream().filter(s -> s.startsWith("A")).toList();
        List<String> b = seen.stream().filter(s -> s.startsWith("B")).toList();
        for (int i = 0; i < 100; i++) {
            assertThat(a.get(i)).isEqualTo("A" + i);
            assertThat(b.get(i)).isEqualTo("B" + i);
        }
    }

    @Test
    void notificationsWithThreadObjectRouteByItsId() throws Exception {
        connect();
        transport.inject("{\"method\":\"thread/started\",\"params\":{\"thread\":{\"id\":\"T1\"}}}");
        transport.inject("{\"method\":\"account/updated\",\"params\":{}}");
        waitUntil(() -> notifications.size() == 2);
        assertThat(notifications).anySatisfy(n -> assertThat(n.threadId()).hasValue("T1"));
        assertThat(notifications).anySatisfy(n -> assertThat(n.threadId()).isEmpty());
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within " + WAIT);
            }
            Thread.sleep(5);
        }
    }

    @SuppressWarnings("unused")
    private static <T> T get(CompletableFuture<T> f) throws ExecutionException, InterruptedException {
        return f.get();
    }

    /** The whole message of a notification of a method the schema does not have. */
    private static com.fasterxml.jackson.databind.node.ObjectNode raw(IncomingNotification n) {
        return ((dev.codexclient.protocol.ServerNotification.Unrecognized) n.notification()).raw();
    }
}

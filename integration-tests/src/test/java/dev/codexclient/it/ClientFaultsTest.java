package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.childProcess;
import static dev.codexclient.it.ClientTestSupport.failureOf;
import static dev.codexclient.it.ClientTestSupport.get;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static dev.codexclient.it.ClientTestSupport.pendingRequests;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.ModelListParams;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.Fault;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What a misbehaving server can do to the client, and that the client survives it with typed errors. */
@ExtendWith(CodexTestExtension.class)
class ClientFaultsTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    @Test
    void garbageLineIsSkippedAndTheConnectionKeepsWorking(FakeCodexAppServer fake) {
        List<ServerNotification> seen = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake).onNotification(seen::add).build()) {
            fake.apply(Fault.garbageLine());
            fake.apply(Fault.garbageLine("[1, 2, 3]"));
            fake.apply(Fault.garbageLine("{\"neither\": \"request nor response\"}"));
            fake.notify("warning", Map.of("message", "after the garbage"));
            awaitCondition("the warning after the garbage", () -> seen.stream().anyMatch(n ->
                    n instanceof ServerNotification.Warning w && w.params().message().equals("after the garbage")));
            assertThat(seen).hasSize(1);
            assertThat(client.startThread().id()).isNotBlank();
            assertThat(client.isClosed()).isFalse();
        }
    }

    @Test
    void notificationShapedLinesThatAreNotJsonAreSkipped(FakeCodexAppServer fake) {
        // Shaped like notifications, so they are routed without a full parse; the lane's parse must drop them.
        List<ServerNotification> seen = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake).onNotification(seen::add).build()) {
            fake.apply(Fault.garbageLine("{\"method\":\"warning\",\"params\":{\"message\":tru}}"));
            fake.apply(Fault.garbageLine("{\"method\":\"item/agentMessage/delta\",\"params\":{\"threadId\":\"t\","
                    + "\"turnId\":\"u\",\"itemId\":\"i\",\"delta\":\"bad \\q escape\"}}"));
            fake.apply(Fault.garbageLine("{\"method\":\"fake/unknown\",\"params\":{\"n\":01}}"));
            fake.notify("warning", Map.of("message", "after the garbage"));
            awaitCondition("the warning after the garbage", () -> seen.stream().anyMatch(n ->
                    n instanceof ServerNotification.Warning w && w.params().message().equals("after the garbage")));
            assertThat(seen).hasSize(1);
            assertThat(client.startThread().id()).isNotBlank();
            assertThat(client.isClosed()).isFalse();
        }
    }

    @Test
    void lineSplitInSlowFragmentsInsideMultiByteCharactersDecodes(FakeCodexAppServer fake) {
        List<String> warnings = new CopyOnWriteArrayList<>();
        try (CodexClient client = childProcess(fake).onNotification(n -> {
            if (n instanceof ServerNotification.Warning w) {
                warnings.add(w.params().message());
            }
        }).build()) {
            fake.apply(Fault.slowFragments(3, Duration.ofMillis(2)));
            fake.apply(Fault.slowFragments("日本語のテキスト — ünïcödé ✓✓ 🎉🎉", 1, Duration.ofMillis(1)));
            awaitCondition("both fragmented warnings", () -> warnings.size() >= 2);
            assertThat(warnings).containsExactly("fragmented ✓ – naïve café 🎉 done",
                    "日本語のテキスト — ünïcödé ✓✓ 🎉🎉");
            assertThat(client.startThread().id()).isNotBlank();
        }
    }

    @Test
    void lineOverTheCapIsDroppedAndTheConnectionSurvives(FakeCodexAppServer fake) {
        List<String> warnings = new CopyOnWriteArrayList<>();
        try (CodexClient client = childProcess(fake).stdio(s -> s.maxLineBytes(64 * 1024)).onNotification(n -> {
            if (n instanceof ServerNotification.Warning w) {
                warnings.add(w.params().message());
            }
        }).build()) {
            fake.apply(Fault.hugeLine(1_000_000));
            fake.apply(Fault.hugeLine(40_000));
            fake.notify("warning", Map.of("message", "after the huge line"));
            awaitCondition("the warning after the huge line", () -> warnings.contains("after the huge line"));
            // The 1 MB line was drained and reported; the 40 KB one (under the cap) arrived intact.
            assertThat(warnings).hasSize(2);
            assertThat(warnings.get(0).length()).isBetween(39_000, 40_000);
            assertThat(client.startThread().id()).isNotBlank();
            assertThat(client.isClosed()).isFalse();
        }
    }

    @Test
    void hugeLineUnderTheDefaultCapIsDelivered(FakeCodexAppServer fake) {
        List<String> warnings = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake).onNotification(n -> {
            if (n instanceof ServerNotification.Warning w) {
                warnings.add(w.params().message());
            }
        }).build()) {
            fake.apply(Fault.hugeLine(3 * 1024 * 1024));
            awaitCondition("the 3 MB warning", Duration.ofSeconds(10), () -> !warnings.isEmpty());
            assertThat(warnings.get(0).length()).isGreaterThan(3 * 1024 * 1024 - 200);
        }
    }

    @Test
    void unknownNotificationIsDeliveredAsUnrecognized(FakeCodexAppServer fake) {
        List<ServerNotification> seen = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake).onNotification(seen::add).build()) {
            fake.apply(Fault.unknownNotification());
            awaitCondition("the unknown notification", () -> !seen.isEmpty());
            assertThat(seen.get(0)).isInstanceOfSatisfying(ServerNotification.Unrecognized.class, u -> {
                assertThat(u.method()).isEqualTo("fake/unknownNotification");
                assertThat(u.params().path("note").asText()).isEqualTo("not part of the protocol");
                assertThat(u.emittedAtMs()).isNotNull();
            });
        }
    }

    @Test
    void knownNotificationWithParamsThatDoNotMatchIsDeliveredUnrecognized(FakeCodexAppServer fake) {
        List<ServerNotification> seen = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake).onNotification(seen::add).build()) {
            fake.notify("turn/started", Map.of("threadId", List.of("not", "a", "string"), "turn", "nope"));
            fake.notify("warning", Map.of("message", "still alive"));
            awaitCondition("both notifications", () -> seen.size() >= 2);
            assertThat(seen.get(0)).isInstanceOf(ServerNotification.Unrecognized.class);
            assertThat(seen.get(0).method()).isEqualTo("turn/started");
            assertThat(seen.get(1)).isInstanceOf(ServerNotification.Warning.class);
        }
    }

    @Test
    void aBlockedListenerDoesNotStopResponsesFromArriving(FakeCodexAppServer fake) throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch blocked = new java.util.concurrent.CountDownLatch(1);
        try (CodexClient client = inMemory(fake).onNotification(n -> {
            if (n.method().equals("warning")) {
                blocked.countDown();
                try {
                    release.await(10, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }).build()) {
            fake.notify("warning", Map.of("message", "block the listener"));
            assertThat(blocked.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            fake.on("model/list").respond(Map.of("data", List.of(), "nextCursor", "still responsive"));
            assertThat(get(client.rpc().modelList(ModelListParams.builder().build())).nextCursor())
                    .isEqualTo("still responsive");
            assertThat(client.startThread().startTurn("hi").await(WAIT).isCompleted()).isTrue();
            // Released before close(), which would otherwise wait (boundedly) for the listener to drain.
            release.countDown();
        } finally {
            release.countDown();
        }
    }

    @Test
    void responseWithAnUnknownIdIsIgnored(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            fake.apply(Fault.responseWithUnknownId());
            fake.on("model/list").respond(Map.of("data", List.of(), "nextCursor", "x"));
            assertThat(get(client.rpc().modelList(ModelListParams.builder().build())).nextCursor()).isEqualTo("x");
            assertThat(pendingRequests(client)).isZero();
        }
    }

    @Test
    void childExitMidRequestFailsEveryPendingCallAndRunningTurnWithTheExitCode(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("working").pause(Duration.ofSeconds(30)).completed());
        fake.on("model/list").noReply();
        try (CodexClient client = childProcess(fake).build()) {
            CodexThread thread = client.startThread();
            CodexTurn turn = thread.startTurn("long task");
            CompletableFuture<?> first = client.rpc().modelList(ModelListParams.builder().build());
            CompletableFuture<?> second = client.rpc().modelList(ModelListParams.builder().limit(1L).build());
            fake.takeRequest("model/list", WAIT);
            fake.takeRequest("model/list", WAIT);
            fake.apply(Fault.exit(3));

            for (CompletableFuture<?> call : List.of(first, second, turn.result())) {
                assertThat(failureOf(call, WAIT)).isInstanceOfSatisfying(CodexTransportException.class,
                        e -> assertThat(e.exitCode()).hasValue(3));
            }
            awaitCondition("the client notices the end", client::isClosed);
            assertThat(pendingRequests(client)).isZero();
            // Later calls fail at once, typed, still naming the exit code.
            assertThat(failureOf(client.rpc().modelList(ModelListParams.builder().build()), WAIT))
                    .isInstanceOfSatisfying(CodexTransportException.class,
                            e -> assertThat(e.exitCode()).hasValue(3));
        }
    }

    @Test
    void eventIteratorEndsWhenTheConnectionIsLost(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("working").pause(Duration.ofSeconds(30)).completed());
        try (CodexClient client = inMemory(fake).build()) {
            CodexTurn turn = client.startThread().startTurn("long task");
            CompletableFuture<List<String>> iterated = CompletableFuture.supplyAsync(() -> {
                List<String> methods = new ArrayList<>();
                turn.events().forEach(e -> methods.add(e.method()));
                return methods;
            });
            awaitCondition("the turn streams", () -> fake.sentMessages().stream()
                    .anyMatch(m -> m.path("method").asText().equals("item/agentMessage/delta")));
            fake.apply(Fault.exit(9));
            assertThat(iterated.orTimeout(5, java.util.concurrent.TimeUnit.SECONDS).join())
                    .contains("turn/started").doesNotContain("turn/completed");
            assertThat(failureOf(turn.result(), WAIT)).isInstanceOfSatisfying(CodexTransportException.class,
                    e -> assertThat(e.exitCode()).hasValue(9));
        }
    }

    /**
     * A thread listener is busy with the first of five events when the server dies: the four others, read before
     * the death and queued on the thread's lane, still reach it and the thread's publisher, in order, and only then
     * does the publisher end with the loss.
     */
    @Test
    void eventsQueuedOnAThreadsLaneWhenTheConnectionDiesAreDeliveredBeforeTheEnd(FakeCodexAppServer fake)
            throws Exception {
        fake.onTurnStart(t -> t.agentMessage("working").neverComplete());
        java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (CodexClient client = inMemory(fake).build()) {
            // Its turn fails when the client handles the loss, on this thread's own (idle) lane.
            CodexTurn elsewhere = client.startThread().startTurn("long task");
            CodexThread thread = client.startThread();
            List<String> heard = new CopyOnWriteArrayList<>();
            thread.onEvent(n -> {
                if (!(n instanceof ServerNotification.ItemAgentMessageDelta)) {
                    return;
                }
                heard.add(delta(n));
                if (heard.size() == 1) {
                    busy.countDown();
                    awaitLatch(release);
                }
            });
            RecordingSubscriber<ServerNotification> published = new RecordingSubscriber<>(Long.MAX_VALUE);
            thread.publisher().subscribe(published);
            published.subscription();

            for (int i = 1; i <= 5; i++) {
                fake.notify("item/agentMessage/delta", Map.of("threadId", thread.id(), "turnId", "turn-1",
                        "itemId", "msg-1", "delta", "part " + i));
            }
            awaitLatch(busy);
            fake.apply(Fault.exit(9));
            // The client has handled the loss while four events of the thread are queued behind the busy listener.
            assertThat(failureOf(elsewhere.result(), WAIT)).isInstanceOf(CodexTransportException.class);
            release.countDown();

            List<String> all = List.of("part 1", "part 2", "part 3", "part 4", "part 5");
            assertThat(published.error()).isInstanceOfSatisfying(CodexTransportException.class,
                    e -> assertThat(e.exitCode()).hasValue(9));
            assertThat(published.items).filteredOn(n -> n instanceof ServerNotification.ItemAgentMessageDelta)
                    .extracting(ClientFaultsTest::delta).containsExactlyElementsOf(all);
            assertThat(heard).containsExactlyElementsOf(all);
            assertThat(published.violations).isEmpty();
        }
    }

    private static void awaitLatch(java.util.concurrent.CountDownLatch latch) {
        try {
            assertThat(latch.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static String delta(ServerNotification n) {
        return n instanceof ServerNotification.ItemAgentMessageDelta d ? d.params().delta() : n.method();
    }

    @Test
    void connectionEndInMemoryFailsPendingCallsAndTurns(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("working").pause(Duration.ofSeconds(30)).completed());
        fake.on("model/list").fault(Fault.exit(7));
        try (CodexClient client = inMemory(fake).build()) {
            CodexTurn turn = client.startThread().startTurn("long task");
            CompletableFuture<?> call = client.rpc().modelList(ModelListParams.builder().build());
            assertThat(failureOf(call, WAIT)).isInstanceOfSatisfying(CodexTransportException.class,
                    e -> assertThat(e.exitCode()).hasValue(7));
            assertThat(failureOf(turn.result(), WAIT)).isInstanceOf(CodexTransportException.class);
        }
    }

    @Test
    void closeWithAThousandRequestsInFlightFailsThemAllQuickly(FakeCodexAppServer fake) {
        fake.on("model/list").noReply();
        CodexClient client = inMemory(fake).build();
        List<CompletableFuture<?>> calls = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            calls.add(client.rpc().modelList(ModelListParams.builder().limit((long) i).build()));
        }
        awaitCondition("the fake saw the requests", Duration.ofSeconds(10), () -> fake.requestCount() >= 1_001);
        assertThat(pendingRequests(client)).isEqualTo(1_000);
        client.close();
        // Failed by close() itself, before it returned: nothing waits for a response or a timeout.
        assertThat(calls).allSatisfy(call -> assertThat(call).isCompletedExceptionally());
        for (CompletableFuture<?> call : calls) {
            assertThat(failureOf(call, WAIT)).isInstanceOf(CodexTransportException.class);
        }
        assertThat(pendingRequests(client)).isZero();
        assertThat(client.isClosed()).isTrue();
    }
}

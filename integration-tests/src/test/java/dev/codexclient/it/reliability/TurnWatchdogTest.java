package dev.codexclient.it.reliability;

import static dev.codexclient.it.reliability.FaultHarness.child;
import static dev.codexclient.it.reliability.FaultHarness.inMemory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.ClientProbe;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.RecordedRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The stuck-turn watchdog against the fake: lost completions, turns that never end, and turns that are just slow. */
class TurnWatchdogTest {
    private static final Duration SHORT = Duration.ofSeconds(10);

    @AfterAll
    static void report() {
        ReliabilityReport.publish();
    }

    /**
     * A {@code thread/read} result for {@code threadId} (as the fake created it) whose newest turn has
     * {@code status}; a finished turn carries the agent message the fake streamed.
     */
    static JsonNode threadWithTurn(FakeCodexAppServer fake, String threadId, String status) {
        ObjectNode thread = null;
        String turnId = null;
        String lastText = null;
        String lastItemId = null;
        for (JsonNode m : fake.sentMessages()) {
            if (m.path("result").path("thread").path("id").asText("").equals(threadId)) {
                thread = ((ObjectNode) m.path("result").path("thread")).deepCopy();
            }
            JsonNode params = m.path("params");
            if (m.path("method").asText("").equals("turn/started")
                    && params.path("threadId").asText("").equals(threadId)) {
                turnId = params.path("turn").path("id").asText();
            }
            if (m.path("method").asText("").equals("item/completed")
                    && params.path("item").path("type").asText("").equals("agentMessage")) {
                lastText = params.path("item").path("text").asText();
                lastItemId = params.path("item").path("id").asText();
            }
        }
        if (thread == null || turnId == null) {
            throw new AssertionError("the fake has no started turn on thread " + threadId);
        }
        ObjectNode turn = thread.objectNode().put("id", turnId).put("status", status);
        ArrayNode items = turn.putArray("items");
        if (lastText != null && !status.equals("inProgress")) {
            items.addObject().put("type", "agentMessage").put("id", lastItemId).put("text", lastText);
        }
        turn.putNull("error");
        thread.putArray("turns").add(turn);
        ObjectNode result = thread.objectNode();
        result.set("thread", thread);
        return result;
    }

    private static long count(FakeCodexAppServer fake, String method) {
        return fake.requests().stream().map(RecordedRequest::method).filter(method::equals).count();
    }

    /** Waits (in real time, boundedly) until the turn has delivered an event matching {@code what}. */
    private static void awaitEvent(CodexTurn turn, java.util.function.Predicate<ServerNotification> what)
            throws Exception {
        CompletableFuture<Void> seen = new CompletableFuture<>();
        turn.onEvent(n -> {
            if (what.test(n)) {
                seen.complete(null);
            }
        });
        seen.get(SHORT.toSeconds(), TimeUnit.SECONDS);
    }

    private static TurnResult resultOf(CodexTurn turn) throws Exception {
        return turn.result().get(SHORT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void lostCompletionIsRecoveredFromThreadRead() {
        FaultHarness.run("watchdog: turn/completed lost, thread/read says completed", f -> {
            try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
                // The turn streams its answer, then its turn/completed is "lost": the server finished the turn.
                fake.onTurnStart(t -> t.agentMessage("All tests pass.").neverComplete());
                fake.on("thread/read").always().respondWith(req -> threadWithTurn(fake,
                        req.params().path("threadId").asText(), "completed"));
                ManualScheduler clock = new ManualScheduler();
                try (CodexClient client = ClientProbe.useScheduler(child(fake), clock)
                        .turnWatchdog(Duration.ofMillis(400)).build()) {
                    CodexTurn turn = client.startThread().startTurn("run the tests");
                    awaitEvent(turn, n -> n instanceof ServerNotification.ItemCompleted c
                            && c.params().item() instanceof ThreadItem.AgentMessage);
                    clock.advance(Duration.ofMillis(399));
                    assertThat(count(fake, "thread/read")).isZero();
                    clock.advance(Duration.ofMillis(1));
                    TurnResult r = resultOf(turn);
                    assertThat(r.status()).isEqualTo(TurnStatus.COMPLETED);
                    assertThat(r.stalled()).isFalse();
                    assertThat(r.finalText()).isEqualTo("All tests pass.");
                    assertThat(r.itemsOf(ThreadItem.AgentMessage.class)).hasSize(1);
                    assertThat(r.turn()).isPresent();
                    RecordedRequest read = fake.takeRequest("thread/read", SHORT);
                    assertThat(read.params().path("includeTurns").asBoolean()).isTrue();
                    assertThat(count(fake, "turn/interrupt")).isZero();
                    f.sent(FaultHarness.sentNotifications(fake)).received(1)
                            .outcome("COMPLETED from thread/read once the turn was silent for 400 ms; no interrupt");
                }
            }
        });
    }

    @Test
    void turnThatNeverCompletesIsInterruptedThenStalled() {
        FaultHarness.run("watchdog: never completes, not even on interrupt", f -> {
            try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
                fake.onTurnStart(t -> t.agentMessage("thinking").neverComplete());
                fake.on("thread/read").always().respondWith(req -> threadWithTurn(fake,
                        req.params().path("threadId").asText(), "inProgress"));
                ManualScheduler clock = new ManualScheduler();
                try (CodexClient client = ClientProbe.useScheduler(inMemory(fake), clock)
                        .interruptGracePeriod(Duration.ofMillis(500)).build()) {
                    // Per turn, no client-wide watchdog.
                    CodexTurn turn = client.startThread().startTurn("hang").watchdog(Duration.ofMillis(300));
                    // The last event the fake sends: an event during the read would mean the turn is alive.
                    awaitEvent(turn, n -> n instanceof ServerNotification.ItemCompleted c
                            && c.params().item() instanceof ThreadItem.AgentMessage);
                    clock.advance(Duration.ofMillis(300));
                    fake.takeRequest("turn/interrupt", SHORT);
                    clock.advance(Duration.ofMillis(499));
                    assertThat(turn.isDone()).isFalse();
                    clock.advance(Duration.ofMillis(1));
                    TurnResult r = resultOf(turn);
                    assertThat(r.stalled()).isTrue();
                    assertThat(r.status()).isEqualTo(TurnStatus.INTERRUPTED);
                    assertThat(r.finalText()).isEqualTo("thinking");
                    assertThat(count(fake, "thread/read")).isEqualTo(1);
                    assertThat(count(fake, "turn/interrupt")).isEqualTo(1);
                    f.sent(FaultHarness.sentNotifications(fake)).received(1)
                            .outcome("read -> interrupt -> stalled");
                }
            }
        });
    }

    @Test
    void unreadableThreadIsTreatedAsRunning() {
        FaultHarness.run("watchdog: thread/read fails", f -> {
            try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
                fake.onTurnStart(t -> t.neverComplete());
                // Neither the latest turns nor the whole thread: the server cannot report on the turn.
                fake.on("thread/turns/list").always().respondError(-32600, "thread not loaded");
                fake.on("thread/read").always().respondError(-32600, "thread not loaded");
                ManualScheduler clock = new ManualScheduler();
                try (CodexClient client = ClientProbe.useScheduler(inMemory(fake), clock)
                        .turnWatchdog(Duration.ofMillis(300)).interruptGracePeriod(Duration.ofMillis(500)).build()) {
                    CodexTurn turn = client.startThread().startTurn("hang");
                    // The last event the fake sends: an event during the read would mean the turn is alive.
                    awaitEvent(turn, n -> n instanceof ServerNotification.ItemCompleted c
                            && c.params().item() instanceof ThreadItem.UserMessage);
                    clock.advance(Duration.ofMillis(300));
                    fake.takeRequest("turn/interrupt", SHORT);
                    clock.advance(Duration.ofMillis(500));
                    TurnResult r = resultOf(turn);
                    assertThat(r.stalled()).isTrue();
                    assertThat(count(fake, "thread/turns/list")).isEqualTo(1);
                    assertThat(count(fake, "thread/read")).isEqualTo(1);
                    assertThat(count(fake, "turn/interrupt")).isEqualTo(1);
                    f.outcome("read error -> interrupt -> stalled");
                }
            }
        });
    }

    @Test
    void slowButSteadyTurnIsLeftAlone() {
        FaultHarness.run("watchdog: slow but steady turn untouched", f -> {
            try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
                // The test plays the turn itself: one delta every 150 ms of the client's clock.
                fake.onTurnStart(t -> t.neverComplete());
                ManualScheduler clock = new ManualScheduler();
                try (CodexClient client = ClientProbe.useScheduler(inMemory(fake), clock)
                        .turnWatchdog(Duration.ofMillis(400)).build()) {
                    CodexTurn turn = client.startThread().startTurn("slowly");
                    awaitEvent(turn, n -> n instanceof ServerNotification.ItemCompleted c
                            && c.params().item() instanceof ThreadItem.UserMessage);
                    for (int i = 0; i < 8; i++) {
                        clock.advance(Duration.ofMillis(150));
                        String delta = "step " + i + " ";
                        fake.notify("item/agentMessage/delta", Map.of("threadId", turn.threadId(),
                                "turnId", turn.id(), "itemId", "msg", "delta", delta));
                        awaitEvent(turn, n -> n instanceof ServerNotification.ItemAgentMessageDelta d
                                && d.params().delta().equals(delta));
                    }
                    fake.notify("turn/completed", Map.of("threadId", turn.threadId(), "turn", Map.of(
                            "id", turn.id(), "items", List.of(), "status", "completed")));
                    TurnResult r = resultOf(turn);
                    assertThat(r.status()).isEqualTo(TurnStatus.COMPLETED);
                    assertThat(r.stalled()).isFalse();
                    assertThat(count(fake, "thread/read")).isZero();
                    assertThat(count(fake, "turn/interrupt")).isZero();
                    f.outcome("1.2 s of 150 ms gaps under a 400 ms watchdog: no read, no interrupt");
                }
            }
        });
    }

    @Test
    void aSilentTurnIsCheckedOnceItsIdleTimeHasPassedSinceItsLastEvent() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.neverComplete());
            fake.on("thread/read").always().respondWith(req -> threadWithTurn(fake,
                    req.params().path("threadId").asText(), "inProgress"));
            ManualScheduler clock = new ManualScheduler();
            try (CodexClient client = ClientProbe.useScheduler(inMemory(fake), clock)
                    .turnWatchdog(Duration.ofSeconds(10)).build()) {
                CodexTurn turn = client.startThread().startTurn("hang");
                awaitEvent(turn, n -> n instanceof ServerNotification.ItemCompleted c
                        && c.params().item() instanceof ThreadItem.UserMessage);
                clock.advance(Duration.ofSeconds(6));
                fake.notify("item/agentMessage/delta", Map.of("threadId", turn.threadId(), "turnId", turn.id(),
                        "itemId", "msg", "delta", "alive"));
                awaitEvent(turn, n -> n instanceof ServerNotification.ItemAgentMessageDelta);
                // 10 s after the start, but only 4 s after the last event: no check yet.
                clock.advance(Duration.ofSeconds(4));
                assertThat(count(fake, "thread/read")).isZero();
                clock.advance(Duration.ofMillis(5_999));
                assertThat(count(fake, "thread/read")).isZero();
                clock.advance(Duration.ofMillis(1));
                fake.takeRequest("thread/read", SHORT);
                fake.takeRequest("turn/interrupt", SHORT);
            }
        }
    }

    @Test
    void watchdogRejectsNonPositiveIdleTimes() {
        assertThatThrownBy(() -> CodexClient.builder().turnWatchdog(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        try (FakeCodexAppServer fake = new FakeCodexAppServer();
             CodexClient client = inMemory(fake).build()) {
            CodexTurn turn = client.startThread().startTurn("hi");
            assertThatThrownBy(() -> turn.watchdog(Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(turn.await(SHORT).status()).isEqualTo(TurnStatus.COMPLETED);
        }
    }

    static List<String> methods(FakeCodexAppServer fake) {
        return fake.requests().stream().map(RecordedRequest::method).toList();
    }
}

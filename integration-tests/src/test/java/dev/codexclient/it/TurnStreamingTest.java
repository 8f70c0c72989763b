package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.get;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.StructuredTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexOutputParseException;
import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.protocol.AgentMessageDeltaNotification;
import dev.codexclient.protocol.CodexErrorInfo;
import dev.codexclient.protocol.CommandExecutionOutputDeltaNotification;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.protocol.TurnDiffUpdatedNotification;
import dev.codexclient.protocol.TurnPlanStep;
import dev.codexclient.protocol.TurnPlanUpdatedNotification;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.protocol.TurnSteerResponse;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.Fault;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.RecordedRequest;
import dev.codexclient.testkit.TurnScript;
import dev.codexclient.testkit.TurnScript.PlanStep;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Turns: routing, replay, the event iterator, typed listeners, result accumulation, control and deadlines. */
@ExtendWith(CodexTestExtension.class)
class TurnStreamingTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String DIFF = "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n"
            + "@@ -1 +1 @@\n-old\n+new\n";

    /** A turn that exercises every typed listener. */
    private static final Consumer<TurnScript> RICH_TURN = turn -> turn
            .reasoning("Looking at the repository")
            .planUpdate("first plan", PlanStep.inProgress("read"), PlanStep.pending("write"))
            .commandExecution("ls -1", "a.txt\nb.txt\n", 0)
            .fileChange("README.md", "@@ -1 +1 @@\n-old\n+new\n")
            .diffUpdate(DIFF)
            .planUpdate("final plan", PlanStep.completed("read"), PlanStep.completed("write"))
            .agentMessage("All done here.")
            .tokenUsage(1200, 100, 80, 20)
            .completed();

    record Verdict(boolean safe, List<String> risks) {
    }

    @Test
    void eventsThatArriveBeforeTheTurnStartResponseBelongToTheTurn(FakeCodexAppServer fake) {
        fake.on("turn/start").once().respondWith(request -> {
            String threadId = request.params().path("threadId").asText();
            ObjectNode turn = turnNode("turn-early", "inProgress");
            fake.notify("turn/started", json().put("threadId", threadId).set("turn", turn));
            fake.notify("item/agentMessage/delta", json().put("threadId", threadId).put("turnId", "turn-early")
                    .put("itemId", "msg-1").put("delta", "Hel"));
            fake.notify("item/agentMessage/delta", json().put("threadId", threadId).put("turnId", "turn-early")
                    .put("itemId", "msg-1").put("delta", "lo"));
            return json().set("turn", turn);
        });
        try (CodexClient client = inMemory(fake).build()) {
            CodexThread thread = client.startThread();
            CodexTurn turn = thread.startTurn("hi");
            assertThat(turn.id()).isEqualTo("turn-early");
            List<String> deltas = new CopyOnWriteArrayList<>();
            turn.onAgentMessageDelta(d -> deltas.add(d.delta()));

            ObjectNode completedItem = json().put("threadId", thread.id()).put("turnId", "turn-early")
                    .put("completedAtMs", System.currentTimeMillis());
            completedItem.putObject("item").put("type", "agentMessage").put("id", "msg-1").put("text", "Hello");
            fake.notify("item/completed", completedItem);
            fake.notify("turn/completed", json().put("threadId", thread.id())
                    .set("turn", turnNode("turn-early", "completed")));

            TurnResult result = turn.await(WAIT);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(result.turnId()).hasValue("turn-early");
            assertThat(result.finalText()).isEqualTo("Hello");
            assertThat(deltas).containsExactly("Hel", "lo");
            List<String> methods = new ArrayList<>();
            turn.events().forEach(e -> methods.add(e.method()));
            assertThat(methods).containsExactly("turn/started", "item/agentMessage/delta",
                    "item/agentMessage/delta", "item/completed", "turn/completed");
        }
    }

    @Test
    void resultFindsAnItemByIdWhateverItsVariant(FakeCodexAppServer fake) {
        fake.on("turn/start").once().respondWith(request -> json().set("turn", turnNode("turn-ids", "inProgress")));
        try (CodexClient client = inMemory(fake).build()) {
            CodexThread thread = client.startThread();
            CodexTurn turn = thread.startTurn("hi");
            ObjectNode known = json().put("threadId", thread.id()).put("turnId", "turn-ids");
            known.putObject("item").put("type", "agentMessage").put("id", "msg-1").put("text", "Hello");
            fake.notify("item/completed", known);
            // An item of a newer server: found by the id it carries, kept whole.
            ObjectNode newer = json().put("threadId", thread.id()).put("turnId", "turn-ids");
            newer.putObject("item").put("type", "someNewItem").put("id", "new-1").put("extra", 1);
            fake.notify("item/completed", newer);
            fake.notify("turn/completed", json().put("threadId", thread.id())
                    .set("turn", turnNode("turn-ids", "completed")));

            TurnResult result = turn.await(WAIT);
            assertThat(result.item("msg-1")).get().isInstanceOf(ThreadItem.AgentMessage.class);
            assertThat(result.item("new-1")).get().isInstanceOfSatisfying(ThreadItem.Unrecognized.class,
                    u -> assertThat(u.raw().path("extra").asInt()).isEqualTo(1));
            assertThat(result.item("missing")).isEmpty();
            assertThat(result.items()).extracting(ThreadItem::id).containsExactly("msg-1", "new-1");
        }
    }

    @Test
    void aListenerAttachedAfterStartGetsTheWholeTurnReplayed(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("Hello world").completed());
        try (CodexClient client = inMemory(fake).build()) {
            CodexTurn turn = client.startThread().startTurn("hi");
            turn.await(WAIT);
            List<ServerNotification> events = new CopyOnWriteArrayList<>();
            turn.onEvent(events::add);
            awaitCondition("the replay reaches turn/completed",
                    () -> !events.isEmpty() && events.get(events.size() - 1) instanceof ServerNotification.TurnCompleted);
            assertThat(events.get(0)).isInstanceOf(ServerNotification.TurnStarted.class);
            assertThat(events).filteredOn(e -> e instanceof ServerNotification.ItemAgentMessageDelta)
                    .extracting(e -> ((ServerNotification.ItemAgentMessageDelta) e).params().delta())
                    .containsExactly("Hello", " world");
            // Only this turn's events: the thread-level status changes are not part of it.
            assertThat(events).noneMatch(e -> e instanceof ServerNotification.ThreadStatusChanged);
        }
    }

    @Test
    void eventIteratorEndsAfterTurnCompleted(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("one two three").tokenUsage(10, 3).completed());
        try (CodexClient client = inMemory(fake).build()) {
            CodexTurn turn = client.startThread().startTurn("count");
            List<String> methods = new ArrayList<>();
            assertTimeoutPreemptively(WAIT, () -> turn.events().forEach(e -> methods.add(e.method())));
            assertThat(methods.get(0)).isEqualTo("turn/started");
            assertThat(methods.get(methods.size() - 1)).isEqualTo("turn/completed");
            assertThat(methods).containsSubsequence("item/started", "item/agentMessage/delta",
                    "item/agentMessage/delta", "item/agentMessage/delta", "item/completed",
                    "thread/tokenUsage/updated", "turn/completed");
            assertThat(turn.isDone()).isTrue();
        }
    }

    @Test
    void typedListenersSeeEveryKindOfEvent(FakeCodexAppServer fake) {
        fake.onTurnStart(RICH_TURN);
        try (CodexClient client = inMemory(fake).build()) {
            CodexTurn turn = client.startThread().startTurn("do the work");
            List<AgentMessageDeltaNotification> deltas = new CopyOnWriteArrayList<>();
            List<ThreadItem> started = new CopyOnWriteArrayList<>();
            List<ThreadItem> completed = new CopyOnWriteArrayList<>();
            List<CommandExecutionOutputDeltaNotification> output = new CopyOnWriteArrayList<>();
            List<TurnPlanUpdatedNotification> plans = new CopyOnWriteArrayList<>();
            List<TurnDiffUpdatedNotification> diffs = new CopyOnWriteArrayList<>();
            List<ThreadTokenUsage> usage = new CopyOnWriteArrayList<>();
            turn.onAgentMessageDelta(deltas::add);
            turn.onItemStarted(started::add);
            turn.onItemCompleted(completed::add);
            turn.onCommandOutputDelta(output::add);
            turn.onPlanUpdated(plans::add);
            turn.onDiffUpdated(diffs::add);
            turn.onTokenUsage(usage::add);
            turn.await(WAIT);
            awaitCondition("token usage delivered", () -> !usage.isEmpty());

            assertThat(String.join("", deltas.stream().map(AgentMessageDeltaNotification::delta).toList()))
                    .isEqualTo("All done here.");
            assertThat(deltas).allSatisfy(d -> assertThat(d.turnId()).isEqualTo(turn.id()));
            assertThat(started).extracting(i -> i.getClass().getSimpleName()).containsExactly("UserMessage",
                    "Reasoning", "CommandExecution", "FileChange", "AgentMessage");
            assertThat(completed).extracting(i -> i.getClass().getSimpleName()).containsExactly("UserMessage",
                    "Reasoning", "CommandExecution", "FileChange", "AgentMessage");
            assertThat(output).extracting(CommandExecutionOutputDeltaNotification::delta)
                    .containsExactly("a.txt\n", "b.txt\n");
            assertThat(plans).hasSize(2);
            assertThat(plans.get(0).explanation()).isEqualTo("first plan");
            assertThat(plans.get(1).plan()).extracting(TurnPlanStep::step).containsExactly("read", "write");
            assertThat(diffs).extracting(TurnDiffUpdatedNotification::diff).containsExactly(DIFF);
            assertThat(usage.get(0).last().inputTokens()).isEqualTo(1200);
            assertThat(usage.get(0).last().outputTokens()).isEqualTo(80);
        }
    }

    @Test
    void resultAccumulatesTextItemsUsageDiffAndPlan(FakeCodexAppServer fake) {
        fake.onTurnStart(RICH_TURN);
        try (CodexClient client = inMemory(fake).build()) {
            CodexThread thread = client.startThread();
            TurnResult first = thread.startTurn("do the work").await(WAIT);
            assertThat(first.isCompleted()).isTrue();
            assertThat(first.threadId()).isEqualTo(thread.id());
            assertThat(first.finalText()).isEqualTo("All done here.");
            assertThat(first.items()).extracting(i -> i.getClass().getSimpleName()).containsExactly("UserMessage",
                    "Reasoning", "CommandExecution", "FileChange", "AgentMessage");
            assertThat(first.itemsOf(ThreadItem.CommandExecution.class)).singleElement()
                    .satisfies(c -> {
                        assertThat(c.command()).isEqualTo("ls -1");
                        assertThat(c.aggregatedOutput()).isEqualTo("a.txt\nb.txt\n");
                        assertThat(c.exitCode()).isZero();
                    });
            assertThat(first.lastDiff()).contains(DIFF);
            assertThat(first.lastPlan()).extracting(TurnPlanStep::step).containsExactly("read", "write");
            assertThat(first.lastPlan()).extracting(s -> s.status().toString().toLowerCase())
                    .containsOnly("completed");
            assertThat(first.usage()).hasValueSatisfying(u -> {
                assertThat(u.last().inputTokens()).isEqualTo(1200);
                assertThat(u.last().cachedInputTokens()).isEqualTo(100);
                assertThat(u.total().inputTokens()).isEqualTo(1200);
            });
            assertThat(first.error()).isEmpty();
            assertThat(first.orThrow()).isSameAs(first);

            TurnResult second = thread.startTurn("again").await(WAIT);
            assertThat(second.turnId()).isNotEqualTo(first.turnId());
            assertThat(second.usage()).hasValueSatisfying(u -> {
                assertThat(u.last().inputTokens()).isEqualTo(1200);
                assertThat(u.total().inputTokens()).isEqualTo(2400);
            });
        }
    }

    @Test
    void failedTurnCarriesItsErrorAndOrThrowRaisesIt(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("Trying")
                .failed("upstream returned 502", java.util.Map.of("httpConnectionFailed",
                        java.util.Map.of("httpStatusCode", 502))));
        try (CodexClient client = inMemory(fake).build()) {
            TurnResult result = client.startThread().startTurn("hi").await(WAIT);
            assertThat(result.status()).isEqualTo(TurnStatus.FAILED);
            assertThat(result.error()).hasValueSatisfying(e -> {
                assertThat(e.message()).isEqualTo("upstream returned 502");
                assertThat(e.codexErrorInfo()).isEqualTo(new CodexErrorInfo.HttpConnectionFailed(502));
            });
            assertThatThrownBy(result::orThrow).isInstanceOfSatisfying(CodexTurnFailedException.class, e -> {
                assertThat(e.serverMessage()).isEqualTo("upstream returned 502");
                assertThat(e.turnId()).isEqualTo(result.turnId());
                assertThat(e.threadId()).isEqualTo(result.threadId());
                assertThat(e.codexErrorInfo()).hasValueSatisfying(info -> assertThat(info)
                        .isInstanceOfSatisfying(CodexErrorInfo.HttpConnectionFailed.class,
                                failed -> assertThat(failed.httpStatusCode()).isEqualTo(502)));
                assertThat(e.getMessage()).contains("httpConnectionFailed").contains("502");
                assertThat(e.getMessage()).contains("upstream returned 502");
            });
        }
    }

    @Test
    void steerAddsInputToTheRunningTurn(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("working").pause(Duration.ofSeconds(30)).completed());
        try (CodexClient client = inMemory(fake).build()) {
            CodexTurn turn = client.startThread().startTurn("start");
            TurnSteerResponse steered = get(turn.steerAsync("also update the changelog"));
            assertThat(steered.turnId()).isEqualTo(turn.id());
            RecordedRequest steer = fake.takeRequest("turn/steer", WAIT);
            assertThat(steer.params().path("threadId").asText()).isEqualTo(turn.threadId());
            assertThat(steer.params().path("expectedTurnId").asText()).isEqualTo(turn.id());
            assertThat(steer.params().path("input").get(0).path("text").asText())
                    .isEqualTo("also update the changelog");
            assertThat(get(turn.interruptAsync()).status()).isEqualTo(TurnStatus.INTERRUPTED);
        }
    }

    @Test
    void interruptSettlesWhenTheServerReportsTheTurnInterrupted(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("partial answer").pause(Duration.ofSeconds(30)).completed());
        try (CodexClient client = inMemory(fake).build()) {
            CodexTurn turn = client.startThread().startTurn("long task");
            // Interrupt only once the partial answer is in, or the interrupt can overtake it.
            java.util.concurrent.CompletableFuture<ThreadItem> answered = new java.util.concurrent.CompletableFuture<>();
            turn.onItemCompleted(item -> {
                if (item instanceof ThreadItem.AgentMessage) {
                    answered.complete(item);
                }
            });
            get(answered);
            TurnResult result = get(turn.interruptAsync());
            assertThat(result.status()).isEqualTo(TurnStatus.INTERRUPTED);
            assertThat(result.stalled()).isFalse();
            assertThat(result.deadlineExceeded()).isFalse();
            assertThat(result.finalText()).isEqualTo("partial answer");
            RecordedRequest interrupt = fake.takeRequest("turn/interrupt", WAIT);
            assertThat(interrupt.params().path("turnId").asText()).isEqualTo(turn.id());
            assertThat(interrupt.params().path("threadId").asText()).isEqualTo(turn.threadId());
        }
    }

    @Test
    void interruptOfATurnTheServerNeverSettlesEndsStalledAfterTheGracePeriod(FakeCodexAppServer fake)
            throws Exception {
        fake.apply(Fault.neverCompleteTurn());
        ManualScheduler clock = new ManualScheduler();
        try (CodexClient client = ClientTestSupport.withClock(inMemory(fake), clock)
                .interruptGracePeriod(Duration.ofMillis(300)).build()) {
            CodexTurn turn = client.startThread().startTurn("hang");
            // The interrupt goes out at once once the turn runs (codex refuses it before).
            CompletableFuture<Void> running = new CompletableFuture<>();
            turn.onEvent(n -> running.complete(null));
            running.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            CompletableFuture<TurnResult> interrupted = turn.interruptAsync();
            fake.takeRequest("turn/interrupt", WAIT);
            clock.advance(Duration.ofMillis(299));
            assertThat(interrupted).isNotDone();
            clock.advance(Duration.ofMillis(1));
            TurnResult result = get(interrupted);
            assertThat(result.stalled()).isTrue();
            assertThat(result.status()).isEqualTo(TurnStatus.INTERRUPTED);
            assertThat(result.deadlineExceeded()).isFalse();
        }
    }

    @Test
    void deadlineInterruptsTheTurn(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("slow").pause(Duration.ofSeconds(30)).completed());
        try (CodexClient client = inMemory(fake).build()) {
            CodexTurn turn = client.startThread().startTurn("slow task").deadline(Duration.ofMillis(200));
            TurnResult result = turn.await(WAIT);
            assertThat(result.status()).isEqualTo(TurnStatus.INTERRUPTED);
            assertThat(result.deadlineExceeded()).isTrue();
            assertThat(result.stalled()).isFalse();
            assertThat(fake.takeRequest("turn/interrupt", WAIT).params().path("turnId").asText())
                    .isEqualTo(turn.id());
        }
    }

    @Test
    void deadlineOfATurnTheServerNeverSettlesEndsStalled(FakeCodexAppServer fake) {
        fake.apply(Fault.neverCompleteTurn());
        try (CodexClient client = inMemory(fake).interruptGracePeriod(Duration.ofMillis(200)).build()) {
            TurnResult result = client.startThread().startTurn("hang").deadline(Duration.ofMillis(100))
                    .await(WAIT);
            assertThat(result.deadlineExceeded()).isTrue();
            assertThat(result.stalled()).isTrue();
        }
    }

    @Test
    void deadlineThatDoesNotPassChangesNothing(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            TurnResult result = client.startThread().startTurn("quick").deadline(Duration.ofSeconds(30))
                    .await(WAIT);
            assertThat(result.isCompleted()).isTrue();
            assertThat(result.deadlineExceeded()).isFalse();
            assertThat(fake.requests()).extracting(RecordedRequest::method).doesNotContain("turn/interrupt");
        }
    }

    @Test
    void structuredOutputIsParsedIntoARecord(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessageDeltas("{\"safe\":false,", "\"risks\":[\"deletes data\"]}"));
        try (CodexClient client = inMemory(fake).build()) {
            StructuredTurn<Verdict> turn = client.startThread().startTurn("Is this diff safe?", Verdict.class);
            Verdict verdict = turn.await(WAIT);
            assertThat(verdict).isEqualTo(new Verdict(false, List.of("deletes data")));
            JsonNode schema = fake.takeRequest("turn/start", WAIT).params().path("outputSchema");
            assertThat(schema.path("type").asText()).isEqualTo("object");
            assertThat(schema.path("properties").path("safe").path("type").asText()).isEqualTo("boolean");
            assertThat(schema.path("properties").path("risks").path("type").asText()).isEqualTo("array");
            assertThat(get(turn.result())).isEqualTo(verdict);
        }
    }

    @Test
    void structuredOutputThatDoesNotParseKeepsTheRawText(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("I think it is safe."));
        try (CodexClient client = inMemory(fake).build()) {
            StructuredTurn<Verdict> turn = client.startThread().startTurn("Is this diff safe?", Verdict.class);
            assertThatThrownBy(() -> turn.await(WAIT)).isInstanceOfSatisfying(CodexOutputParseException.class,
                    e -> {
                        assertThat(e.rawOutput()).isEqualTo("I think it is safe.");
                        assertThat(e.targetType()).contains("Verdict");
                    });
        }
    }

    @Test
    void aSlowListenerOnOneThreadDoesNotDelayAnotherThread(FakeCodexAppServer fake) throws Exception {
        fake.onTurnStart(turn -> turn.agentMessage("streaming some words here").completed());
        CountDownLatch release = new CountDownLatch(1);
        try (CodexClient client = inMemory(fake).build()) {
            CodexThread a = client.startThread();
            CodexThread b = client.startThread();
            CountDownLatch aBlocked = new CountDownLatch(1);
            // Registered before the turn starts, so A's lane stops at its first delta, before turn/completed.
            a.onEvent(e -> {
                if (e instanceof ServerNotification.ItemAgentMessageDelta) {
                    aBlocked.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            CodexTurn turnA = a.startTurn("a");
            assertThat(aBlocked.await(5, TimeUnit.SECONDS)).isTrue();
            // A's lane is now stuck in its listener; B must still stream and finish.
            TurnResult resultB = b.startTurn("b").await(WAIT);
            assertThat(resultB.finalText()).isEqualTo("streaming some words here");
            assertThat(turnA.isDone()).isFalse();
            release.countDown();
            assertThat(turnA.await(WAIT).finalText()).isEqualTo("streaming some words here");
        } finally {
            release.countDown();
        }
    }

    @Test
    void rejectedTurnStartIsATypedErrorAndTheThreadStaysUsable(FakeCodexAppServer fake) {
        fake.on("turn/start").once().respondError(-32600, "input too large");
        try (CodexClient client = inMemory(fake).build()) {
            CodexThread thread = client.startThread();
            assertThatThrownBy(() -> thread.startTurn("x".repeat(100)))
                    .isInstanceOfSatisfying(dev.codexclient.errors.CodexRpcException.class, e -> {
                        assertThat(e.method()).hasValue("turn/start");
                        assertThat(e.serverMessage()).isEqualTo("input too large");
                    });
            assertThat(thread.startTurn("short").await(WAIT).isCompleted()).isTrue();
        }
    }

    @Test
    void thousandsOfDeltasArriveInWireOrder(FakeCodexAppServer fake) {
        String[] parts = new String[3_000];
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            parts[i] = i + ",";
            expected.append(parts[i]);
        }
        fake.onTurnStart(turn -> turn.agentMessageDeltas(parts).completed());
        try (CodexClient client = inMemory(fake).build()) {
            CodexTurn turn = client.startThread().startTurn("count");
            StringBuilder streamed = new StringBuilder();
            turn.onAgentMessageDelta(d -> streamed.append(d.delta()));
            TurnResult result = turn.await(Duration.ofSeconds(10));
            assertThat(result.finalText()).isEqualTo(expected.toString());
            awaitCondition("every delta streamed", () -> streamed.length() == expected.length());
            assertThat(streamed.toString()).isEqualTo(expected.toString());
        }
    }

    @Test
    void threadListenerSeesThreadAndTurnEventsInOrder(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            CodexThread thread = client.startThread();
            List<String> methods = new CopyOnWriteArrayList<>();
            thread.onEvent(e -> methods.add(e.method()));
            thread.startTurn("hi").await(WAIT);
            awaitCondition("the thread goes idle", () -> methods.size() >= 2
                    && methods.get(methods.size() - 1).equals("thread/status/changed")
                    && methods.contains("turn/completed"));
            assertThat(methods).containsSubsequence("thread/status/changed", "turn/started", "item/started",
                    "item/completed", "turn/completed", "thread/status/changed");
        }
    }

    @Test
    void replayLimitKeepsTheNewestEventsForLateListeners(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessageDeltas("a", "b", "c", "d", "e", "f").completed());
        try (CodexClient client = inMemory(fake).turnReplayLimit(3).build()) {
            CodexTurn turn = client.startThread().startTurn("hi");
            TurnResult result = turn.await(WAIT);
            assertThat(result.finalText()).isEqualTo("abcdef");
            List<String> replayed = new CopyOnWriteArrayList<>();
            turn.onEvent(e -> replayed.add(e.method()));
            awaitCondition("the replay", () -> replayed.size() == 3);
            assertThat(replayed.get(2)).isEqualTo("turn/completed");
        }
    }

    /**
     * A listener added after the turn ended gets its replay on the lane; a wait for the result that starts after the
     * listener was added returns only once that replay has run, so code that adds a listener and then awaits (as the
     * Quickstart does) prints every delta before what follows the wait.
     */
    @Test
    void aWaitForTheResultReturnsAfterTheReplayToListenersAddedBeforeIt(FakeCodexAppServer fake) throws Exception {
        fake.onTurnStart(turn -> turn.agentMessageDeltas("Hel", "lo", "!").completed());
        try (CodexClient client = inMemory(fake).build()) {
            CodexTurn turn = client.startThread().startTurn("hi");
            turn.await(WAIT);
            // A first late listener holds the lane in its replay, so the second one's replay waits behind it.
            CountDownLatch replaying = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            turn.onEvent(e -> {
                replaying.countDown();
                awaitLatch(release);
            });
            assertThat(replaying.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            StringBuilder text = new StringBuilder();
            turn.onAgentMessageDelta(d -> text.append(d.delta()));

            CompletableFuture<TurnResult> result = turn.result();
            assertThat(result).as("the replays to the listeners added before the wait are still to run").isNotDone();
            release.countDown();
            assertThat(result.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).finalText()).isEqualTo("Hello!");
            assertThat(text).as("what the listener had when the wait returned").hasToString("Hello!");
            assertThat(turn.await(WAIT).finalText()).isEqualTo("Hello!");
        }
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ObjectNode json() {
        return ProtocolJson.mapper().createObjectNode();
    }

    private static ObjectNode turnNode(String id, String status) {
        ObjectNode turn = json().put("id", id).put("status", status);
        turn.putArray("items");
        turn.putNull("error");
        turn.put("startedAt", System.currentTimeMillis() / 1000);
        if (status.equals("inProgress")) {
            turn.putNull("completedAt");
            turn.putNull("durationMs");
        } else {
            turn.put("completedAt", System.currentTimeMillis() / 1000);
            turn.put("durationMs", 5);
        }
        return turn;
    }
}

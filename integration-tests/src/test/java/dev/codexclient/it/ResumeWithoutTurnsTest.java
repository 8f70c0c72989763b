package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.WAIT;
import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.failureOf;
import static dev.codexclient.it.ClientTestSupport.withClock;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.RestartPolicy;
import dev.codexclient.Subscription;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexServerRestartedException;
import dev.codexclient.telemetry.ThreadResumed;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.Fault;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.RecordedRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's own resumes ask for no history they do not use, where the server can leave it out: a restart resumes
 * held threads without their turns and lists only the latest turns of a thread with turns running at the loss; a
 * handle resumed with {@code resumeThreadWithoutTurns} has none (and says so by its name), one resumed by id has them. Which servers can, by version and {@code experimentalApi}, and what happens
 * when one refuses all the same. Against the fake, which answers as codex 0.169.0 unless told another version.
 */
@Timeout(60)
class ResumeWithoutTurnsTest {
    private static final Duration BACKOFF = Duration.ofMillis(100);

    private final ManualScheduler clock = new ManualScheduler();
    private final RestartPolicyTest.Recorder events = new RestartPolicyTest.Recorder();

    private CodexClientBuilder restarting(FakeCodexAppServer fake) {
        return withClock(CodexClient.builder()
                .transportFactory(fake::connectInMemory)
                .restartPolicy(RestartPolicy.builder().maxAttempts(3).backoff(BACKOFF, Duration.ofSeconds(1)).build())
                .telemetryListener(events)
                .requestTimeout(Duration.ofSeconds(10))
                .initializeTimeout(Duration.ofSeconds(10)), clock);
    }

    private void nextAttempt() {
        awaitCondition("the next attempt is scheduled",
                () -> clock.nextDelay().filter(d -> d.compareTo(BACKOFF) <= 0).isPresent());
        clock.advance(BACKOFF);
    }

    private static void serverVersion(FakeCodexAppServer fake, String version) {
        fake.initializeResult(Map.of("userAgent", "codex_cli_rs/" + version + " (Linux 6.1; x86_64) it"));
    }

    private static List<RecordedRequest> requests(FakeCodexAppServer fake, String method) {
        return fake.requests().stream().filter(r -> r.method().equals(method)).toList();
    }

    /** A thread with {@code turns} ended turns, held by a listener. */
    private static CodexThread threadWithTurns(CodexClient client, int turns) {
        CodexThread thread = client.startThread();
        for (int i = 0; i < turns; i++) {
            thread.startTurn("turn " + i).await(WAIT);
        }
        return thread;
    }

    /** Starts a turn whose script the fake has queued, and waits until it streams (it has been named). */
    private static CodexTurn running(CodexThread thread) throws Exception {
        CodexTurn running = thread.startTurn("long work");
        CompletableFuture<Void> streaming = new CompletableFuture<>();
        running.onEvent(n -> streaming.complete(null));
        streaming.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        awaitCondition("the turn is named", () -> running.id() != null && !running.id().isEmpty());
        return running;
    }

    /** Ends the connection with an exit, and lets the client's next attempt replace it. */
    private void lose(FakeCodexAppServer fake) {
        fake.apply(Fault.exit(137));
        nextAttempt();
    }

    @Test
    void aHeldIdleThreadIsResumedWithoutItsTurnsAndNothingIsListed() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("done").completed());
            try (CodexClient client = restarting(fake).build()) {
                CodexThread thread = threadWithTurns(client, 3);
                Subscription hold = thread.onEvent(n -> { });

                fake.apply(Fault.exit(137));
                nextAttempt();
                assertThat(events.future(ThreadResumed.class).get(WAIT.toSeconds(), TimeUnit.SECONDS).threadId())
                        .isEqualTo(thread.id());

                RecordedRequest resume = fake.takeRequest("thread/resume", WAIT);
                assertThat(resume.params().path("threadId").asText()).isEqualTo(thread.id());
                assertThat(resume.params().path("excludeTurns").asBoolean()).isTrue();
                assertThat(requests(fake, "thread/turns/list")).isEmpty();
                assertThat(thread.startTurn("go on").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
                hold.close();
            }
        }
    }

    @Test
    void aTurnRunningAtTheLossIsSettledFromTheThreadsLatestTurns() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.enqueueTurn(t -> t.agentMessage("earlier").completed());
            fake.enqueueTurn(t -> t.agentMessage("earlier").completed());
            fake.enqueueTurn(t -> t.agentMessage("finished while the client was away").neverComplete());
            try (CodexClient client = restarting(fake).build()) {
                CodexThread thread = threadWithTurns(client, 2);
                CodexTurn running = running(thread);
                // The new server finished the turn: it says so in the thread's latest turns.
                fake.on("thread/turns/list").always().respondWith(req -> latestTurns(running.id()));
                lose(fake);

                TurnResult result = running.result().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
                assertThat(fake.takeRequest("thread/resume", WAIT).params().path("excludeTurns").asBoolean())
                        .isTrue();
                JsonNode list = fake.takeRequest("thread/turns/list", WAIT).params();
                assertThat(list.path("threadId").asText()).isEqualTo(thread.id());
                // The one running turn and a few more, newest first, with their items.
                assertThat(list.path("limit").asInt()).isEqualTo(5);
                assertThat(list.path("sortDirection").asText()).isEqualTo("desc");
                assertThat(list.path("itemsView").asText()).isEqualTo("full");
            }
        }
    }

    @Test
    void aTurnTheLatestTurnsDoNotReportEndsWithTheRestartOutcome() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.enqueueTurn(t -> t.agentMessage("earlier").completed());
            fake.enqueueTurn(t -> t.agentMessageDeltas("part").neverComplete());
            try (CodexClient client = restarting(fake).build()) {
                CodexThread thread = threadWithTurns(client, 1);
                CodexTurn running = running(thread);
                lose(fake);

                assertThat(failureOf(running.result(), WAIT)).isInstanceOf(CodexServerRestartedException.class);
                // The fake keeps ended turns only: the listed page held the earlier turn, not the running one.
                assertThat(fake.takeRequest("thread/turns/list", WAIT).params().path("threadId").asText())
                        .isEqualTo(thread.id());
            }
        }
    }

    @Test
    void whenTheLatestTurnsCannotBeListedTheThreadIsResumedWithItsTurns() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.enqueueTurn(t -> t.agentMessageDeltas("part").neverComplete());
            fake.on("thread/turns/list").always().respondError(-32600, "ephemeral threads do not support "
                    + "thread/turns/list");
            try (CodexClient client = restarting(fake).build()) {
                CodexThread thread = client.startThread();
                CodexTurn running = running(thread);
                lose(fake);

                assertThat(failureOf(running.result(), WAIT)).isInstanceOf(CodexServerRestartedException.class);
                assertThat(events.future(ThreadResumed.class).get(WAIT.toSeconds(), TimeUnit.SECONDS).threadId())
                        .isEqualTo(thread.id());
                List<RecordedRequest> resumes = requests(fake, "thread/resume");
                assertThat(resumes).hasSize(2);
                assertThat(resumes.get(0).params().path("excludeTurns").asBoolean()).isTrue();
                assertThat(resumes.get(1).params().has("excludeTurns")).isFalse();
            }
        }
    }

    @Test
    void aServerThatRefusesExcludeTurnsIsAskedAgainWithoutItAndNotAgainWithItOnThatConnection()
            throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.on("thread/resume", r -> r.params().has("excludeTurns")).always()
                    .respondError(-32600, "thread/resume.excludeTurns requires experimentalApi capability");
            try (CodexClient client = CodexClient.builder().transport(fake.connectInMemory()).build()) {
                String first = client.startThread().id();
                String second = client.startThread().id();

                assertThat(client.resumeThreadWithoutTurns(first).id()).isEqualTo(first);
                assertThat(client.resumeThreadWithoutTurns(second).id()).isEqualTo(second);

                List<RecordedRequest> resumes = requests(fake, "thread/resume");
                assertThat(resumes).extracting(r -> r.params().has("excludeTurns"))
                        .containsExactly(true, false, false);
            }
        }
    }

    @Test
    void serversBeforeExcludeTurnsAreResumedWithTheirTurnsAsBefore() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            serverVersion(fake, "0.120.0");
            fake.enqueueTurn(t -> t.agentMessage("earlier").completed());
            fake.enqueueTurn(t -> t.agentMessageDeltas("part").neverComplete());
            try (CodexClient client = restarting(fake).build()) {
                CodexThread thread = threadWithTurns(client, 1);
                CodexTurn running = running(thread);
                lose(fake);

                assertThat(failureOf(running.result(), WAIT)).isInstanceOf(CodexServerRestartedException.class);
                assertThat(fake.takeRequest("thread/resume", WAIT).params().has("excludeTurns")).isFalse();
                assertThat(requests(fake, "thread/turns/list")).isEmpty();
                assertThat(client.resumeThreadWithoutTurns(thread.id()).info().turns()).hasSize(1);
            }
        }
    }

    @Test
    void whichServersLeaveTurnsOutByVersionAndExperimentalApi() {
        assertLeavesOut("0.98.0", false, false);
        assertLeavesOut("0.124.0", true, false);
        assertLeavesOut("0.125.0", false, true);
        assertLeavesOut("0.128.0", false, true);
        assertLeavesOut("0.129.0", false, false);
        assertLeavesOut("0.129.0", true, true);
        assertLeavesOut("0.150.1", false, false);
        assertLeavesOut("0.150.1", true, true);
        assertLeavesOut("0.151.0", false, true);
        assertLeavesOut("0.171.0", false, true);
        assertLeavesOut("1.2.0", false, true);
    }

    private static void assertLeavesOut(String version, boolean experimentalApi, boolean expected) {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            serverVersion(fake, version);
            try (CodexClient client = CodexClient.builder().transport(fake.connectInMemory())
                    .experimentalApi(experimentalApi).build()) {
                client.resumeThreadWithoutTurns(client.startThread().id());
                assertThat(fake.takeRequest("thread/resume", WAIT).params().path("excludeTurns").asBoolean())
                        .as("codex %s, experimentalApi %s", version, experimentalApi).isEqualTo(expected);
            }
        }
    }

    @Test
    void aThreadResumedByIdHasItsTurnsOneResumedWithoutThemSaysSoByNameAndParamsOfTheUsersOwnAreSentAsGiven() {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("done").completed());
            try (CodexClient client = CodexClient.builder().transport(fake.connectInMemory()).build()) {
                CodexThread thread = threadWithTurns(client, 2);

                // By id: thread/resume with the id alone, and the history in the answer.
                CodexThread byId = client.resumeThread(thread.id());
                assertThat(byId.info().turns()).hasSize(2);
                assertThat(client.resumeThreadAsync(thread.id()).join().info().turns()).hasSize(2);

                CodexThread lean = client.resumeThreadWithoutTurns(thread.id());
                assertThat(lean.info().turns()).isEmpty();
                assertThat(lean.read().turns()).hasSize(2);
                assertThat(client.resumeThreadWithoutTurnsAsync(thread.id()).join().info().turns()).isEmpty();

                CodexThread full = client.resumeThread(ThreadResumeParams.builder().threadId(thread.id()).build());
                assertThat(full.info().turns()).hasSize(2);
                assertThat(requests(fake, "thread/resume")).extracting(r -> r.params().has("excludeTurns"))
                        .containsExactly(false, false, true, true, false);
            }
        }
    }

    @Test
    void excludeTurnsInTheUsersParamsIsSentOnlyToAServerThatTakesIt() {
        for (String version : List.of("0.140.0", "0.169.0")) {
            try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
                serverVersion(fake, version);
                // As codex 0.129.0 to 0.150.x do without the experimental API.
                fake.on("thread/resume", r -> r.params().has("excludeTurns") && version.equals("0.140.0")).always()
                        .respondError(-32600, "thread/resume.excludeTurns requires experimentalApi capability");
                try (CodexClient client = CodexClient.builder().transport(fake.connectInMemory()).build()) {
                    String id = client.startThread().id();
                    CodexThread resumed = client.resumeThread(ThreadResumeParams.builder().threadId(id)
                            .excludeTurns(true).model("gpt-test").build());
                    assertThat(resumed.id()).isEqualTo(id);
                    JsonNode sent = fake.takeRequest("thread/resume", WAIT).params();
                    assertThat(sent.has("excludeTurns")).as("codex %s", version).isEqualTo(version.equals("0.169.0"));
                    assertThat(sent.path("model").asText()).isEqualTo("gpt-test");
                    assertThat(requests(fake, "thread/resume")).hasSize(1);
                }
            }
        }
    }

    /** A {@code thread/turns/list} page whose newest turn is {@code turnId}, completed with one agent message. */
    private static JsonNode latestTurns(String turnId) {
        ObjectNode result = JsonNodeFactory.instance.objectNode();
        ObjectNode turn = result.putArray("data").addObject().put("id", turnId).put("status", "completed");
        turn.putArray("items").addObject().put("type", "agentMessage").put("id", "msg-1")
                .put("text", "finished while the client was away");
        turn.putNull("error");
        result.putNull("nextCursor");
        result.putNull("backwardsCursor");
        return result;
    }
}

package dev.codexclient.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.testkit.internal.fake.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every fault over the in-memory connection; the child-only effects are in {@link ChildProcessRelayTest}. */
class FaultTest {
    private final FakeCodexAppServer fake = new FakeCodexAppServer();
    private RawClient client;

    @AfterEach
    void tearDown() {
        if (client != null) {
            client.close();
        }
        fake.close();
    }

    /** The connection still works: a thread starts, with the id of the one thread the fake created. */
    private void startsTheOnlyThread(RawClient c) {
        String id = c.startThread();
        assertThat(fake.threadIds()).containsExactly(id);
    }

    private RawClient connected() {
        client = RawClient.inMemory(fake);
        client.initialize();
        return client;
    }

    @Test
    void garbageLineThenTheConnectionGoesOn() {
        RawClient c = connected();
        fake.apply(Fault.garbageLine());
        fake.apply(Fault.garbageLine("<html>502</html>"));
        assertThat(c.take(JsonNode::isTextual, "garbage").asText()).startsWith("this is not json");
        assertThat(c.take(JsonNode::isTextual, "garbage").asText()).isEqualTo("<html>502</html>");
        startsTheOnlyThread(c);
        assertThatThrownBy(() -> Fault.garbageLine("a\nb")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void slowFragmentsAreReassembledIntoOneValidLine() {
        RawClient c = connected();
        long t0 = System.nanoTime();
        fake.apply(Fault.slowFragments(7, Duration.ofMillis(5)));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(20));
        JsonNode warning = c.notification("warning");
        assertThat(warning.path("params").path("message").asText()).isEqualTo("fragmented ✓ – naïve café 🎉 done");
    }

    @Test
    void hugeLineArrivesWhole() {
        RawClient c = connected();
        fake.apply(Fault.hugeLine(3 * 1024 * 1024));
        JsonNode warning = c.notification("warning");
        String message = warning.path("params").path("message").asText();
        // The fake fills the line with a message of the requested size less 100 bytes of room for the envelope.
        assertThat(message).hasSize(3 * 1024 * 1024 - 100);
        assertThat(message.chars().distinct()).containsExactly((int) 'x');
    }

    @Test
    void closeStdoutEndsTheClientsInputButKeepsReadingItsWrites() {
        RawClient c = connected();
        fake.apply(Fault.closeStdout());
        assertThat(c.awaitEof(RawClient.WAIT)).isTrue();
        assertThat(c.termination().exitCode()).isEmpty();
        assertThat(c.termination().requested()).isFalse();
        c.request("thread/start", Map.of());
        assertThat(fake.takeRequest("thread/start", RawClient.WAIT)).isNotNull();
    }

    @Test
    void exitEndsTheConnectionWithTheExitCode() {
        RawClient c = connected();
        fake.apply(Fault.exit(3));
        assertThat(c.awaitEof(RawClient.WAIT)).isTrue();
        assertThat(c.termination().exitCode()).hasValue(3);
        assertThatThrownBy(() -> c.request("thread/start", Map.of()))
                .isInstanceOf(CodexTransportException.class);
    }

    @Test
    void exitAsTheAnswerToARequest() {
        fake.on("turn/start").once().fault(Fault.exit(2));
        RawClient c = connected();
        String threadId = c.startThread();
        c.request("turn/start", Map.of("threadId", threadId, "input", List.of()));
        assertThat(c.awaitEof(RawClient.WAIT)).isTrue();
        assertThat(c.termination().exitCode()).hasValue(2);
    }

    @Test
    void stallStopsAnsweringUntilResumed() {
        RawClient c = connected();
        fake.apply(Fault.stall());
        long stalled = c.request("thread/start", Map.of());
        assertThat(c.poll(m -> m.has("id"), Duration.ofMillis(200))).isEmpty();
        assertThat(fake.takeRequest("thread/start", RawClient.WAIT).id().toString()).isEqualTo("" + stalled);
        fake.resume();
        startsTheOnlyThread(c);
        assertThat(c.poll(m -> m.path("id").asLong() == stalled, Duration.ofMillis(100))).isEmpty();
    }

    @Test
    void stallPausesAPlayingTurn() {
        // The turn waits for the approval's reply, so the stall is in place before its next message whatever the
        // timing.
        fake.onTurnStart(turn -> turn.agentMessage("one").commandApproval("make", reply -> { }).agentMessage("two"));
        RawClient c = connected();
        String threadId = c.startThread();
        c.result("turn/start", Map.of("threadId", threadId, "input", List.of()));
        JsonNode approval = c.serverRequest("item/commandExecution/requestApproval");
        fake.apply(Fault.stall());
        c.send(Json.parseUnchecked("{\"id\":" + approval.path("id") + ",\"result\":{\"decision\":\"accept\"}}"));
        // The turn has its reply, and sends nothing more until the stall ends.
        assertThat(c.poll(m -> m.path("method").asText().equals("turn/completed")
                || m.path("params").path("item").path("type").asText().equals("commandExecution")
                && m.path("method").asText().equals("item/completed"), Duration.ofMillis(400))).isEmpty();
        fake.resume();
        assertThat(c.notification("turn/completed").path("params").path("turn").path("status").asText())
                .isEqualTo("completed");
    }

    @Test
    void overloadedNTimesThenSuccess() {
        fake.apply(Fault.overloaded("thread/start", 2));
        RawClient c = connected();
        for (int i = 0; i < 2; i++) {
            JsonNode error = c.call("thread/start", Map.of()).path("error");
            assertThat(error.path("code").asInt()).isEqualTo(-32001);
            assertThat(error.path("message").asText()).isEqualTo("Server overloaded; retry later.");
        }
        startsTheOnlyThread(c);
    }

    @Test
    void neverCompleteTurnIgnoresInterrupts() {
        fake.apply(Fault.neverCompleteTurn());
        RawClient c = connected();
        String threadId = c.startThread();
        String turnId = c.result("turn/start", Map.of("threadId", threadId, "input", List.of()))
                .path("turn").path("id").asText();
        c.notification("turn/started");
        c.result("turn/interrupt", Map.of("threadId", threadId, "turnId", turnId));
        assertThat(c.poll(m -> m.path("method").asText().equals("turn/completed"), Duration.ofMillis(300)))
                .isEmpty();
        // only the next turn was affected
        c.result("turn/start", Map.of("threadId", threadId, "input", List.of()));
        assertThat(c.notification("turn/completed")).isNotNull();
    }

    @Test
    void unknownNotificationRequestAndResponseId() {
        RawClient c = connected();
        fake.apply(Fault.unknownNotification());
        fake.apply(Fault.unknownServerRequest());
        fake.apply(Fault.responseWithUnknownId());
        assertThat(c.notification("fake/unknownNotification").has("emittedAtMs")).isTrue();
        JsonNode request = c.serverRequest("fake/unknownRequest");
        c.send(Json.parseUnchecked("{\"id\":" + request.path("id").asLong()
                + ",\"error\":{\"code\":-32601,\"message\":\"unknown\"}}"));
        assertThat(c.take(m -> m.path("id").asLong() == 987_654_321L, "unknown id").has("result")).isTrue();
        // the client's answer to the unknown request is recorded
        long deadline = System.nanoTime() + RawClient.WAIT.toNanos();
        while (fake.receivedMessages().stream().noneMatch(m -> m.has("error")) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(fake.receivedMessages()).anySatisfy(m -> assertThat(m.path("error").path("code").asInt())
                .isEqualTo(-32601));
    }

    @Test
    void enqueuedFaultsAnswerTheNextRequestsInOrder() {
        RawClient c = connected();
        fake.on("thread/start").respond(java.util.Map.of("thread", java.util.Map.of("id", "scripted")));
        fake.enqueueFault(Fault.garbageLine("first"));
        fake.enqueueFault(Fault.responseWithUnknownId());
        long a = c.request("thread/start", Map.of());
        assertThat(c.take(JsonNode::isTextual, "garbage").asText()).isEqualTo("first");
        long b = c.request("thread/start", Map.of());
        assertThat(c.take(m -> m.path("id").asLong() == 987_654_321L, "unknown id")).isNotNull();
        // neither request got an answer; the third one gets the scripted rule
        assertThat(c.poll(m -> m.path("id").asLong() == a || m.path("id").asLong() == b, Duration.ofMillis(100)))
                .isEmpty();
        assertThat(c.startThread()).isEqualTo("scripted");
    }

    @Test
    void serverRequestToADisconnectedClientFailsFast() {
        RawClient c = connected();
        c.close();
        long deadline = System.nanoTime() + RawClient.WAIT.toNanos();
        PendingServerRequest p;
        do {
            p = fake.requestChatgptTokenRefresh();
        } while (!p.reply.isDone() && System.nanoTime() < deadline);
        PendingServerRequest last = p;
        assertThatThrownBy(() -> last.awaitResponse(Duration.ofSeconds(1))).isInstanceOf(AssertionError.class)
                .hasMessageContaining("disconnected");
    }

    @Test
    void stderrFloodIsHarmlessInMemory() {
        RawClient c = connected();
        fake.apply(Fault.floodStderr(1024));
        startsTheOnlyThread(c);
    }

    @Test
    void closeEndsConnectionsAndRefusesNewOnes() {
        RawClient c = connected();
        fake.close();
        assertThat(c.awaitEof(RawClient.WAIT)).isTrue();
        assertThat(c.termination().exitCode()).hasValue(0);
        assertThatThrownBy(fake::connectInMemory).isInstanceOf(IllegalStateException.class);
        fake.close(); // idempotent
    }
}

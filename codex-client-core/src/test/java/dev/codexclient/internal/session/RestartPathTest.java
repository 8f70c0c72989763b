package dev.codexclient.internal.session;

import static dev.codexclient.internal.session.SessionHarness.BACKOFF;
import static dev.codexclient.internal.session.SessionHarness.REQUEST_TIMEOUT;
import static dev.codexclient.internal.session.SessionHarness.completed;
import static dev.codexclient.internal.session.SessionHarness.delta;
import static dev.codexclient.internal.session.SessionHarness.threadResult;
import static dev.codexclient.internal.session.SessionHarness.turn;
import static dev.codexclient.internal.session.SessionHarness.turnParams;
import static dev.codexclient.internal.session.SessionHarness.turnResult;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.protocol.TurnStatus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The restart path, one mechanism at a time, on scripted connections and a manual clock: the wait of a
 * {@code turn/start} made while the connection is down, the repeated resume rounds of an attempt, and a connection
 * lost in the middle of a round. Each test drives the runtime's own parts ({@link ConnectionSupervisor},
 * {@link ResumeRounds}, {@link TurnStarts}) through what the servers answer and when time moves.
 */
class RestartPathTest {

    @Test
    void aTurnStartedWhileTheConnectionIsDownWaitsAndGoesOutOnTheNewConnectionAfterItsThreadIsResumed()
            throws Exception {
        try (SessionHarness h = new SessionHarness(true)) {
            ThreadLink idle = h.startThread("t-idle");
            h.peer(0).exit(137);

            CompletableFuture<TurnState> started = idle.startTurn(turnParams("t-idle")).async();

            // Nothing goes to the lost server, and no attempt is made before the backoff has passed.
            assertThat(h.peer(0).has("turn/start")).isFalse();
            assertThat(h.peers).hasSize(1);
            h.clock.advance(BACKOFF);
            ScriptedPeer next = h.peer(1);
            // The turn's thread is held now: the attempt resumes it before the new connection is used.
            JsonNode resume = next.take("thread/resume");
            assertThat(resume.path("params").path("threadId").asText()).isEqualTo("t-idle");
            assertThat(next.has("turn/start")).isFalse();
            assertThat(started).isNotDone();

            next.respond(resume, threadResult("t-idle", "idle"));

            next.respond(next.take("turn/start"), turnResult("u-1"));
            assertThat(started.get(1, TimeUnit.SECONDS).id()).isEqualTo("u-1");
            // Resumed once: by the restart, not again by the turn's own check.
            assertThat(next.methods()).containsExactly("initialize", "initialized", "thread/resume", "turn/start");
        }
    }

    @Test
    void aTurnStartedWhileTheConnectionIsDownFailsWithinTheRequestTimeoutWhenNoNewConnectionIsReady()
            throws Exception {
        try (SessionHarness h = new SessionHarness(true)) {
            ThreadLink idle = h.startThread("t-idle");
            // The next server never finishes its handshake: the restart stays under way.
            h.serversAnswerInitialize = false;
            h.peer(0).exit(137);

            CompletableFuture<TurnState> started = idle.startTurn(turnParams("t-idle")).async();
            h.clock.advance(BACKOFF);
            assertThat(h.peers).hasSize(2);
            assertThat(started).isNotDone();

            h.clock.advance(REQUEST_TIMEOUT);

            assertThat(started).isCompletedExceptionally();
            assertThatFailure(started).isInstanceOf(CodexTimeoutException.class)
                    .hasMessageContaining("waiting for the connection to be restarted");
            assertThat(h.peer(1).methods()).doesNotContain("turn/start");
        }
    }

    @Test
    void aThreadTakenHoldOfDuringAResumeRoundIsResumedInTheNextRoundBeforeTheConnectionIsUsed() throws Exception {
        try (SessionHarness h = new SessionHarness(true)) {
            ThreadLink busy = h.startThread("t-busy");
            TurnState running = h.startTurn(busy, "u-busy");
            ThreadLink other = h.startThread("t-other");
            h.peer(0).exit(137);
            h.clock.advance(BACKOFF);
            ScriptedPeer next = h.peer(1);
            JsonNode first = next.take("thread/resume");
            assertThat(first.path("params").path("threadId").asText()).isEqualTo("t-busy");

            // While the first round is out, a turn starts on a thread nobody held at the loss.
            CompletableFuture<TurnState> started = other.startTurn(turnParams("t-other")).async();
            assertThat(next.has("thread/resume")).isFalse();
            next.respond(first, threadResult("t-busy", "active", turn("u-busy", "inProgress")));

            // The second round: the thread taken hold of meanwhile, before any turn/start.
            JsonNode second = next.take("thread/resume");
            assertThat(second.path("params").path("threadId").asText()).isEqualTo("t-other");
            assertThat(next.has("turn/start")).isFalse();
            next.respond(second, threadResult("t-other", "idle"));

            next.respond(next.take("turn/start"), turnResult("u-other"));
            assertThat(started.get(1, TimeUnit.SECONDS).id()).isEqualTo("u-other");
            assertThat(next.methods()).containsExactly("initialize", "initialized", "thread/resume",
                    "thread/resume", "turn/start");
            // The turn the server still runs went on: its events on the new connection reach it.
            next.notify("item/agentMessage/delta", delta("t-busy", "u-busy", "still here"));
            next.notify("turn/completed", completed("t-busy", "u-busy"));
            TurnState.End result = running.end().future().get(1, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(result.finalText()).isEqualTo("still here");
        }
    }

    @Test
    void aConnectionLostDuringAResumeRoundFailsTheAttemptAndTheNextOneResumesAgain() throws Exception {
        try (SessionHarness h = new SessionHarness(true)) {
            ThreadLink busy = h.startThread("t-busy");
            TurnState running = h.startTurn(busy, "u-busy");
            h.peer(0).exit(137);
            h.clock.advance(BACKOFF);
            h.peer(1).take("thread/resume");

            // The new server dies before it answers the round.
            h.peer(1).exit(137);
            assertThat(running.isDone()).isFalse();
            assertThat(h.peers).hasSize(2);

            h.clock.advance(BACKOFF);
            ScriptedPeer third = h.peer(2);
            JsonNode again = third.take("thread/resume");
            assertThat(again.path("params").path("threadId").asText()).isEqualTo("t-busy");
            third.respond(again, threadResult("t-busy", "active", turn("u-busy", "inProgress")));

            third.notify("turn/completed", completed("t-busy", "u-busy"));
            assertThat(running.end().future().get(1, TimeUnit.SECONDS).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(h.runtime.isClosed()).isFalse();
        }
    }

    @Test
    void aTurnTheNewServerDoesNotRunFailsAsLostWithItsThreadAndTurn() throws Exception {
        try (SessionHarness h = new SessionHarness(true)) {
            ThreadLink busy = h.startThread("t-busy");
            TurnState running = h.startTurn(busy, "u-busy");
            h.peer(0).exit(137);
            h.clock.advance(BACKOFF);
            // A server started afresh: the thread is stored, the turn was never finished.
            h.peer(1).respond(h.peer(1).take("thread/resume"), threadResult("t-busy", "idle",
                    turn("u-busy", "interrupted")));

            assertThatFailure(running.end().future())
                    .isInstanceOf(dev.codexclient.errors.CodexServerRestartedException.class)
                    .hasMessageContaining("t-busy").hasMessageContaining("u-busy");
        }
    }

    private static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertThatFailure(
            CompletableFuture<?> future) {
        try {
            future.get(1, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return assertThat(e.getCause());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("completed normally: " + future.join());
    }

    @SuppressWarnings("unused")
    private static final List<Duration> UNUSED = List.of();
}

package dev.codexclient.internal.session;

import static dev.codexclient.internal.session.SessionHarness.completed;
import static dev.codexclient.internal.session.SessionHarness.delta;
import static dev.codexclient.internal.session.SessionHarness.started;
import static dev.codexclient.internal.session.SessionHarness.turnParams;
import static dev.codexclient.internal.session.SessionHarness.turnResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.TurnStatus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A turn's life in the runtime ({@link TurnState}, with its thread's {@link ThreadState} routing to it and
 * {@link Waits} guarding its waits), on a scripted connection and a manual clock: what it accumulates and replays,
 * its events that race the start response, its interrupt, grace and deadline, and the waits that could never end.
 */
class TurnLifeTest {
    private static final String T = "t-1";

    @Test
    void aTurnAccumulatesItsResultAndALateListenerGetsWhatItMissedFirst() throws Exception {
        try (SessionHarness h = new SessionHarness(false)) {
            TurnState turn = h.startTurn(h.startThread(T), "u-1");
            h.peer(0).notify("item/agentMessage/delta", delta(T, "u-1", "Hello, "));
            h.peer(0).notify("item/agentMessage/delta", delta(T, "u-1", "world"));

            List<String> seen = new CopyOnWriteArrayList<>();
            turn.subscribe(n -> seen.add("replayed " + n.method()), n -> seen.add("live " + n.method()));
            h.peer(0).notify("turn/completed", completed(T, "u-1"));

            TurnState.End result = turn.end().future().get(1, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(result.finalText()).isEqualTo("Hello, world");
            assertThat(seen).containsExactly("replayed item/agentMessage/delta", "replayed item/agentMessage/delta",
                    "live turn/completed");
        }
    }

    @Test
    void eventsThatRaceTheStartResponseAreHeldForTheTurnAndComeFirst() throws Exception {
        try (SessionHarness h = new SessionHarness(false)) {
            ThreadLink thread = h.startThread(T);
            CompletableFuture<TurnState> started = thread.startTurn(turnParams(T)).async();
            JsonNode request = h.peer(0).take("turn/start");
            // codex can stream a turn's first events before its answer to turn/start is read.
            h.peer(0).notify("turn/started", started(T, "u-1"));
            h.peer(0).notify("item/agentMessage/delta", delta(T, "u-1", "early "));
            h.peer(0).respond(request, turnResult("u-1"));
            h.peer(0).notify("item/agentMessage/delta", delta(T, "u-1", "late"));
            TurnState turn = started.get(1, TimeUnit.SECONDS);

            List<String> seen = new CopyOnWriteArrayList<>();
            turn.subscribe(n -> seen.add(n.method()), n -> seen.add(n.method()));
            h.peer(0).notify("turn/completed", completed(T, "u-1"));

            assertThat(turn.end().future().get(1, TimeUnit.SECONDS).finalText()).isEqualTo("early late");
            assertThat(seen).containsExactly("turn/started", "item/agentMessage/delta", "item/agentMessage/delta",
                    "turn/completed");
        }
    }

    @Test
    void anInterruptWaitsBoundedlyForTheTurnsFirstEventThenTheGraceCompletesAnUnsettledTurnAsStalled()
            throws Exception {
        try (SessionHarness h = new SessionHarness(false)) {
            TurnState turn = h.startTurn(h.startThread(T), "u-1");

            CompletableFuture<TurnState.End> interrupted = turn.interrupting().future();
            // codex refuses an interrupt before the turn runs: none is sent until an event or 2 s.
            assertThat(h.peer(0).has("turn/interrupt")).isFalse();
            h.clock.advance(Duration.ofSeconds(2));
            JsonNode interrupt = h.peer(0).take("turn/interrupt");
            assertThat(interrupt.path("params").path("turnId").asText()).isEqualTo("u-1");
            h.peer(0).respond(interrupt, ScriptedPeer.JSON.createObjectNode());
            assertThat(interrupted).isNotDone();

            // The grace period (5 s here) runs from the interrupt; the server never settles the turn.
            h.clock.advance(Duration.ofSeconds(3));
            TurnState.End result = interrupted.get(1, TimeUnit.SECONDS);
            assertThat(result.stalled()).isTrue();
            assertThat(result.status()).isEqualTo(TurnStatus.INTERRUPTED);
        }
    }

    @Test
    void aTurnPastItsDeadlineIsInterruptedAtOnceOnceItRunsAndReportsIt() throws Exception {
        try (SessionHarness h = new SessionHarness(false)) {
            TurnState turn = h.startTurn(h.startThread(T), "u-1");
            h.peer(0).notify("turn/started", started(T, "u-1"));
            turn.deadline(Duration.ofSeconds(30));

            h.clock.advance(Duration.ofSeconds(29));
            assertThat(h.peer(0).has("turn/interrupt")).isFalse();
            h.clock.advance(Duration.ofSeconds(1));
            h.peer(0).respond(h.peer(0).take("turn/interrupt"), ScriptedPeer.JSON.createObjectNode());
            ObjectNodes.interrupted(h.peer(0), T, "u-1");

            TurnState.End result = turn.end().future().get(1, TimeUnit.SECONDS);
            assertThat(result.deadlineExceeded()).isTrue();
            assertThat(result.status()).isEqualTo(TurnStatus.INTERRUPTED);
        }
    }

    @Test
    void aThreadTheServerClosesFailsItsRunningTurnAndIsLetGo() throws Exception {
        try (SessionHarness h = new SessionHarness(false)) {
            TurnState turn = h.startTurn(h.startThread(T), "u-1");
            assertThat(h.runtime.diagnostics().heldThreads()).isEqualTo(1);

            h.peer(0).notify("thread/closed", ScriptedPeer.JSON.createObjectNode().put("threadId", T));

            assertThatThrownBy(() -> turn.end().future().get(1, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(CodexException.class)
                    .hasMessageContaining("was closed by the server");
            assertThat(h.runtime.diagnostics().heldThreads()).isZero();
        }
    }

    @Test
    void waitingForATurnOnItsOwnLaneFailsAtOnce() throws Exception {
        try (SessionHarness h = new SessionHarness(false)) {
            TurnState turn = h.startTurn(h.startThread(T), "u-1");
            AtomicReference<Throwable> awaitOnLane = new AtomicReference<>();
            // A task of the thread's lane, run on a thread that does not read the connection: the lane that would
            // deliver the turn's end is the one waiting.
            Thread other = new Thread(() -> turn.onLane(() ->
                    awaitOnLane.set(catching(() -> turn.end().await(Duration.ofMinutes(1))))));
            other.start();
            other.join(TimeUnit.SECONDS.toMillis(5));

            assertThat(awaitOnLane.get()).isInstanceOf(CodexDeadlockException.class)
                    .hasMessageContaining("thread " + T);
            assertThat(turn.isDone()).isFalse();
        }
    }

    @Test
    void blockingOnTheThreadThatReadsTheConnectionFailsAtOnce() throws Exception {
        try (SessionHarness h = new SessionHarness(false)) {
            ThreadLink thread = h.startThread(T);
            TurnState turn = h.startTurn(thread, "u-1");
            AtomicReference<Throwable> blockOnReader = new AtomicReference<>();
            turn.subscribe(n -> { }, n -> {
                if (n instanceof ServerNotification.ItemAgentMessageDelta) {
                    // An executor that runs tasks where they are handed over runs this on the reader thread.
                    blockOnReader.set(catching(() -> thread.read().join()));
                }
            });

            h.peer(0).notify("item/agentMessage/delta", delta(T, "u-1", "x"));

            assertThat(blockOnReader.get()).isInstanceOf(CodexDeadlockException.class)
                    .hasMessageContaining("reads the connection");
        }
    }

    private static Throwable catching(Runnable r) {
        try {
            r.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /** Notifications that end a turn as codex ends an interrupted one. */
    private static final class ObjectNodes {
        static void interrupted(ScriptedPeer peer, String threadId, String turnId) {
            var params = ScriptedPeer.JSON.createObjectNode().put("threadId", threadId);
            params.set("turn", SessionHarness.turn(turnId, "interrupted"));
            peer.notify("turn/completed", params);
        }
    }
}

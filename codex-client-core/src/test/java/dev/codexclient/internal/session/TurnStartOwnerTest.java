package dev.codexclient.internal.session;

import static dev.codexclient.internal.session.SessionHarness.completed;
import static dev.codexclient.internal.session.SessionHarness.delta;
import static dev.codexclient.internal.session.SessionHarness.started;
import static dev.codexclient.internal.session.SessionHarness.turnParams;
import static dev.codexclient.internal.session.SessionHarness.turnResult;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.protocol.ServerNotification;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A turn's start has one owner, its thread's delivery lane: the {@code turn/start} response is handed over there in
 * its place in the wire order, binds the turn, and only then completes the caller's future. Driven step by step on
 * a scripted connection: the test plays the reader thread (each message it injects is read at once) and runs the
 * lanes' tasks when it chooses, so every interleaving of the response with the turn's first events is reached
 * deterministically.
 */
class TurnStartOwnerTest {
    private static final String T = "t-1";
    private static final String U = "u-1";
    /** What the server sends for the turn besides the response, in wire order. */
    private static final List<String> EVENTS = List.of("turn/started", "early", "late", "turn/completed");

    /**
     * The response read before the turn's first events (0), between them (1, 2), or after all of them but the end
     * (3); the lanes run after each message, or only once everything was read.
     */
    static Stream<Arguments> interleavings() {
        List<Arguments> all = new ArrayList<>();
        for (int at = 0; at <= 3; at++) {
            all.add(Arguments.of(at, true));
            all.add(Arguments.of(at, false));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "response after {0} events, lanes run after each message: {1}")
    @MethodSource("interleavings")
    void whereverTheResponseFallsTheTurnGetsEveryEventInWireOrderAndTheCallerABoundTurn(int at, boolean eachStep)
            throws Exception {
        SessionHarness.SteppedExecutor lanes = new SessionHarness.SteppedExecutor();
        try (SessionHarness h = new SessionHarness(false, lanes)) {
            ThreadLink thread = h.startThread(T);
            lanes.step();
            List<String> boundWhenCompleted = new CopyOnWriteArrayList<>();
            CompletableFuture<TurnState> start = thread.startTurn(turnParams(T)).async()
                    .thenApply(turn -> {
                        boundWhenCompleted.add(String.valueOf(turn.id()));
                        return turn;
                    });
            // The turn's registration with its thread's state is queued on the lane before the request left: every
            // event read from now on is taken after it, whether or not the lane has run it yet.
            assertThat(lanes.waiting()).isPositive();
            JsonNode request = h.peer(0).take("turn/start");

            for (int i = 0; i <= EVENTS.size(); i++) {
                if (i == at) {
                    h.peer(0).respond(request, turnResult(U));
                    // Read on the reader thread, the response completes nothing there: it waits for its lane.
                    assertThat(start).isNotDone();
                    if (eachStep) {
                        lanes.runQueued();
                        assertThat(start).isDone();
                    }
                }
                if (i < EVENTS.size() && i != EVENTS.size() - 1) {
                    send(h.peer(0), EVENTS.get(i));
                    if (eachStep) {
                        lanes.runQueued();
                    }
                }
            }
            lanes.runQueued();
            TurnState turn = start.get(1, TimeUnit.SECONDS);
            assertThat(boundWhenCompleted).containsExactly(U);

            List<String> seen = new CopyOnWriteArrayList<>();
            turn.subscribe(n -> seen.add(name(n)), n -> seen.add(name(n)));
            send(h.peer(0), "turn/completed");
            lanes.runQueued();

            assertThat(seen).containsExactlyElementsOf(EVENTS);
            TurnState.End result = turn.end().future().get(1, TimeUnit.SECONDS);
            assertThat(result.finalText()).isEqualTo("early late");
        }
    }

    @Test
    void aBurstReadTogetherWithTheResponseBeforeTheStarterLooksReachesTheTurnWhole() throws Exception {
        // The bound of what a thread holds for a turn whose start is not answered yet is the replay bytes (1 MiB
        // here); codex streams right after its answer, read in the same instant, before the starter has even
        // learnt that its request went out.
        int burst = 2_000;
        String chunk = "x".repeat(1_000);
        try (SessionHarness h = new SessionHarness(false)) {
            ThreadLink thread = h.startThread(T);
            h.peer(0).onArrival("turn/start", request -> {
                h.peer(0).respond(request, turnResult(U));
                for (int i = 0; i < burst; i++) {
                    h.peer(0).notify("item/agentMessage/delta", delta(T, U, chunk));
                }
                h.peer(0).notify("turn/completed", completed(T, U));
            });

            TurnState turn = thread.startTurn(turnParams(T)).async().get(1, TimeUnit.SECONDS);

            TurnState.End result = turn.end().future().get(1, TimeUnit.SECONDS);
            assertThat(result.finalText()).hasSize(burst * chunk.length());
        }
    }

    @Test
    void aBlockingStartInsideAListenerOfItsOwnThreadBindsTheTurnItselfAndTheEventsFollowInOrder() throws Exception {
        SessionHarness.SteppedExecutor lanes = new SessionHarness.SteppedExecutor();
        try (SessionHarness h = new SessionHarness(false, lanes)) {
            ThreadLink thread = h.startThread(T);
            AtomicReference<TurnState> next = new AtomicReference<>();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            List<String> seenByTheThread = new CopyOnWriteArrayList<>();
            thread.subscribe(n -> {
                seenByTheThread.add(name(n));
                if (n instanceof ServerNotification.TurnCompleted c && c.params().turn().id().equals("u-0")) {
                    try {
                        // The README's idiom: start the next turn from the listener that sees the last one end.
                        next.set(thread.startTurn(turnParams(T)).join());
                    } catch (Throwable t) {
                        failed.set(t);
                    }
                }
            });
            lanes.step();
            h.peer(0).notify("turn/completed", completed(T, "u-0"));
            // The lane runs on a thread of its own, as the callback executor's would; the test is the reader.
            Thread lane = new Thread(lanes::runQueued, "lane of " + T);
            lane.start();
            h.peer(0).awaitRequest("turn/start", Duration.ofSeconds(10));
            // Read while the listener still waits: queued behind it on its lane.
            send(h.peer(0), "turn/started");
            send(h.peer(0), "early");
            h.peer(0).respond(h.peer(0).take("turn/start"), turnResult(U));
            lane.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(lane.isAlive()).as("the listener's start returned").isFalse();
            assertThat(failed.get()).isNull();

            TurnState turn = next.get();
            assertThat(turn.id()).isEqualTo(U);
            List<String> seen = new CopyOnWriteArrayList<>();
            turn.subscribe(n -> seen.add(name(n)), n -> seen.add(name(n)));
            send(h.peer(0), "turn/completed");
            lanes.runQueued();

            assertThat(seen).containsExactly("turn/started", "early", "turn/completed");
            assertThat(turn.end().future().get(1, TimeUnit.SECONDS).finalText()).isEqualTo("early");
            assertThat(seenByTheThread).containsExactly("turn/completed", "turn/started", "early", "turn/completed");
        }
    }

    @Test
    void aRejectedStartFailsTheTurnDropsWhatWasHeldForItAndLetsGoOfTheThread() throws Exception {
        try (SessionHarness h = new SessionHarness(false)) {
            ThreadLink thread = h.startThread(T);
            CompletableFuture<TurnState> start = thread.startTurn(turnParams(T)).async();
            send(h.peer(0), "turn/started");
            assertThat(h.runtime.diagnostics().heldThreads()).isEqualTo(1);
            h.peer(0).fail(h.peer(0).take("turn/start"), -32600, "no");

            assertThat(start).isCompletedExceptionally();
            assertThatFailure(start).hasMessageContaining("no");
            assertThat(h.runtime.diagnostics().heldThreads()).isZero();

            // What was held for the rejected turn is gone, even for a start whose answer names the same id.
            TurnState turn = h.startTurn(thread, U);
            List<String> seen = new CopyOnWriteArrayList<>();
            turn.subscribe(n -> seen.add(name(n)), n -> seen.add(name(n)));
            assertThat(seen).isEmpty();
        }
    }

    private static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertThatFailure(
            CompletableFuture<?> f) {
        try {
            f.get(1, TimeUnit.SECONDS);
            throw new AssertionError("not failed");
        } catch (ExecutionException e) {
            return assertThat(e.getCause());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void send(ScriptedPeer peer, String what) {
        switch (what) {
            case "turn/started" -> peer.notify("turn/started", started(T, U));
            case "turn/completed" -> peer.notify("turn/completed", completed(T, U));
            default -> peer.notify("item/agentMessage/delta", delta(T, U, what.equals("late") ? " late" : what));
        }
    }

    private static String name(ServerNotification n) {
        if (n instanceof ServerNotification.ItemAgentMessageDelta d) {
            return d.params().delta().trim();
        }
        return n.method();
    }
}

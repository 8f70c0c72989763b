package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.WAIT;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.Subscription;
import dev.codexclient.TurnEventStream;
import dev.codexclient.ClientProbe;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Once {@link Subscription#close()} returns, its listener receives nothing more: not the events still queued for
 * it, not the replay it was about to get, not the event another listener is being handed right now.
 */
@Timeout(60)
class SubscriptionTest {
    private static final int DELTAS = 10;

    /** Every way to subscribe to events. */
    enum Kind {
        TURN_EVENTS, TURN_TYPED, THREAD_EVENTS, CLIENT_NOTIFICATIONS;

        /** Subscribes {@code onDelta} to the agent-message deltas of {@code turn} (or of its thread / client). */
        Subscription subscribe(CodexClient client, CodexThread thread, CodexTurn turn, Consumer<String> onDelta) {
            Consumer<ServerNotification> onEvent = n -> {
                if (n instanceof ServerNotification.ItemAgentMessageDelta d) {
                    onDelta.accept(d.params().delta());
                }
            };
            return switch (this) {
                case TURN_EVENTS -> turn.onEvent(onEvent);
                case TURN_TYPED -> turn.onAgentMessageDelta(d -> onDelta.accept(d.delta()));
                case THREAD_EVENTS -> thread.onEvent(onEvent);
                case CLIENT_NOTIFICATIONS -> client.onNotification(onEvent);
            };
        }
    }

    private static String[] deltas() {
        String[] d = new String[DELTAS];
        for (int i = 0; i < DELTAS; i++) {
            d[i] = Integer.toString(i);
        }
        return d;
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aSubscriptionClosedRightAwayReceivesNothing(Kind kind) throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas(deltas()).completed());
            try (CodexClient client = inMemory(fake).build()) {
                CodexThread thread = client.startThread();
                CodexTurn turn = thread.startTurn("go");
                List<String> received = new CopyOnWriteArrayList<>();
                // Hold the lane so that whatever the subscription would get is still queued when it closes.
                Runnable release = holdLane(thread);

                kind.subscribe(client, thread, turn, received::add).close();

                release.run();
                turn.await(WAIT);
                drainLane(turn);
                assertThat(received).isEmpty();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"TURN_EVENTS", "TURN_TYPED"})
    void aTurnSubscriptionClosedBeforeItsReplayRanGetsNoneOfIt(Kind kind) throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas(deltas()).completed());
            try (CodexClient client = inMemory(fake).build()) {
                CodexThread thread = client.startThread();
                CodexTurn turn = thread.startTurn("go");
                turn.await(WAIT);
                // Every delta is in the replay buffer now. The lane is held while subscribing, so the replay
                // runs after this close().
                Runnable release = holdLane(thread);
                List<String> received = new CopyOnWriteArrayList<>();
                List<String> control = new CopyOnWriteArrayList<>();
                kind.subscribe(client, thread, turn, received::add).close();
                kind.subscribe(client, thread, turn, control::add);
                release.run();
                drainLane(turn);
                assertThat(control).hasSize(DELTAS);
                assertThat(received).isEmpty();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aSubscriptionClosedByAnEarlierListenerOfTheSameEventDoesNotGetThatEvent(Kind kind) throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas(deltas()).completed());
            try (CodexClient client = inMemory(fake).build()) {
                CodexThread thread = client.startThread();
                Subscription[] second = new Subscription[1];
                List<String> secondGot = new CopyOnWriteArrayList<>();
                CompletableFuture<Void> subscribed = new CompletableFuture<>();
                // Thread and client listeners must be in place before the turn starts; turn listeners replay.
                CodexTurn[] turn = new CodexTurn[1];
                Runnable subscribe = () -> {
                    kind.subscribe(client, thread, turn[0], d -> {
                        subscribed.join();
                        if (d.equals("3")) {
                            second[0].close();
                        }
                    });
                    second[0] = kind.subscribe(client, thread, turn[0], secondGot::add);
                    subscribed.complete(null);
                };
                if (kind == Kind.THREAD_EVENTS || kind == Kind.CLIENT_NOTIFICATIONS) {
                    subscribe.run();
                    turn[0] = thread.startTurn("go");
                } else {
                    turn[0] = thread.startTurn("go");
                    subscribe.run();
                }
                turn[0].await(WAIT);
                drainLane(turn[0]);
                assertThat(secondGot).as("what the closed listener got").allSatisfy(d ->
                        assertThat(Integer.parseInt(d)).isLessThan(3));
            }
        }
    }

    @Test
    void aSubscriptionClosedWhileItsLaneIsBusyGetsNoneOfTheQueuedEvents() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas(deltas()).completed());
            try (CodexClient client = inMemory(fake).build()) {
                CodexThread thread = client.startThread();
                CompletableFuture<Void> blocked = new CompletableFuture<>();
                CompletableFuture<Void> release = new CompletableFuture<>();
                List<String> got = new CopyOnWriteArrayList<>();
                Subscription holder = thread.onEvent(n -> {
                    if (n instanceof ServerNotification.ItemAgentMessageDelta d && d.params().delta().equals("0")) {
                        blocked.complete(null);
                        release.join();
                    }
                });
                Subscription late = thread.onEvent(n -> {
                    if (n instanceof ServerNotification.ItemAgentMessageDelta d) {
                        got.add(d.params().delta());
                    }
                });
                CodexTurn turn = thread.startTurn("go");
                blocked.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                late.close();
                release.complete(null);
                turn.await(WAIT);
                drainLane(turn);
                assertThat(got).isEmpty();
                holder.close();
            }
        }
    }

    @Test
    void anEventStreamClosedRightAwayEndsAndHoldsNothing() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas(deltas()).completed());
            try (CodexClient client = inMemory(fake).build()) {
                CodexTurn turn = client.startThread().startTurn("go");
                TurnEventStream events = turn.events();
                events.close();
                assertThat(events.iterator().hasNext()).isFalse();
                turn.await(WAIT);
                drainLane(turn);
                assertThat(ClientProbe.turnListeners(turn)).isZero();
            }
        }
    }

    @Test
    void anEventStreamAbandonedMidwayLetsGoOfItsSubscriptionWhenTheTurnEnds() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas("first").pause(java.time.Duration.ofSeconds(30))
                    .interrupted());
            try (CodexClient client = inMemory(fake).build()) {
                CodexTurn turn = client.startThread().startTurn("go");
                Iterator<ServerNotification> it = turn.events().iterator();
                assertThat(it.hasNext()).isTrue();
                it.next();
                // Abandoned here, unclosed. While the turn runs, the stream is subscribed ...
                drainLane(turn);
                assertThat(ClientProbe.turnListeners(turn)).isEqualTo(1);
                // ... and once it ends, nothing holds it any more.
                turn.interruptAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                drainLane(turn);
                assertThat(ClientProbe.turnListeners(turn)).isZero();
            }
        }
    }

    @Test
    void closingAStreamWakesTheThreadWaitingInHasNext() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.pause(java.time.Duration.ofSeconds(30)).interrupted());
            try (CodexClient client = inMemory(fake).build()) {
                CodexTurn turn = client.startThread().startTurn("go");
                TurnEventStream events = turn.events();
                List<String> methods = new ArrayList<>();
                CompletableFuture<Boolean> ended = CompletableFuture.supplyAsync(() -> {
                    for (ServerNotification n : events) {
                        methods.add(n.method());
                    }
                    return true;
                });
                ClientTestSupport.awaitCondition("turn/started was read", () -> methods.contains("turn/started"));
                events.close();
                assertThat(ended.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
                turn.interruptAsync();
            }
        }
    }

    /** Blocks the thread's delivery lane until the returned action runs. */
    static Runnable holdLane(CodexThread thread) throws Exception {
        CompletableFuture<Void> held = new CompletableFuture<>();
        CompletableFuture<Void> release = new CompletableFuture<>();
        ClientProbe.onLane(thread, () -> {
            held.complete(null);
            release.join();
        });
        held.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        return () -> release.complete(null);
    }

    /** Returns once every task already queued on the turn's lane has run. */
    static void drainLane(CodexTurn turn) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        ClientProbe.onLane(turn.thread(), () -> done.complete(null));
        done.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
}

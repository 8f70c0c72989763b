package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.WAIT;
import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.Subscription;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexBackpressureException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.ClientProbe;
import dev.codexclient.protocol.CodexErrorInfo;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.Fault;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Flow publishers against the fake app-server: backpressure (what is requested is what comes; a subscriber that
 * stops requesting ends with a typed overflow while everything else goes on), cancellation, the ends of each
 * stream, and calling the client from inside the signals.
 */
@Timeout(60)
class FlowPublishersTest {
    private static final int DELTAS = 30;
    /** The fake's turns: turn/started, the user message's item/started and item/completed, turn/completed. */
    private static final int TURN_FRAME = 4;

    private static String[] deltas(int n) {
        String[] d = new String[n];
        for (int i = 0; i < n; i++) {
            d[i] = "d" + i + " ";
        }
        return d;
    }

    @Test
    void aSubscriberRequestingOneAtATimeGetsExactlyOneAtATime() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas(deltas(DELTAS)).completed());
            try (CodexClient client = inMemory(fake).build()) {
                CodexTurn turn = client.startThread().startTurn("go");
                RecordingSubscriber<ServerNotification> sub = new RecordingSubscriber<>(0);
                turn.publisher().subscribe(sub);
                List<ServerNotification> all = new CopyOnWriteArrayList<>();
                turn.onEvent(all::add);
                turn.await(WAIT);
                int expected = TURN_FRAME + DELTAS + 2;
                awaitCondition("the listener has the whole turn", () -> all.size() == expected);

                for (int i = 1; i <= expected; i++) {
                    sub.request(1);
                    assertThat(sub.next()).isSameAs(all.get(i - 1));
                    if (i < expected) {
                        assertThat(sub.end).as("no end while events wait for demand").isNotDone();
                    }
                }
                sub.awaitCompletion();
                assertThat(sub.items).hasSize(expected);
                assertThat(sub.items.get(expected - 1)).isInstanceOf(ServerNotification.TurnCompleted.class);
                assertThat(sub.violations).isEmpty();
            }
        }
    }

    @Test
    void aSubscriberThatNeverRequestsOverflowsWhileOtherListenersAndThreadsGoOn() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas(deltas(DELTAS)).completed());
            try (CodexClient client = inMemory(fake).publisherBufferSize(8).build()) {
                CompletableFuture<String> announced = new CompletableFuture<>();
                Subscription announcements = client.onNotification(n -> {
                    if (n instanceof ServerNotification.ThreadStarted t) {
                        announced.complete(t.params().thread().id());
                    }
                });
                CodexThread thread = client.startThread();
                // thread/started follows the thread/start answer: delivered before the subscriptions below, or it
                // would reach the subscriber that came first and not the listener that came last.
                assertThat(announced.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(thread.id());
                announcements.close();
                CompletableFuture<Void> delivered = new CompletableFuture<>();
                ClientProbe.onLane(thread, () -> delivered.complete(null));
                delivered.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                CodexThread other = client.startThread();
                RecordingSubscriber<ServerNotification> stalled = new RecordingSubscriber<>(0);
                RecordingSubscriber<ServerNotification> eager = new RecordingSubscriber<>(Long.MAX_VALUE);
                thread.publisher().subscribe(stalled);
                thread.publisher().subscribe(eager);
                RecordingSubscriber<ServerNotification> stalledOnAll = new RecordingSubscriber<>(0);
                client.publisher().subscribe(stalledOnAll);
                List<ServerNotification> listened = new CopyOnWriteArrayList<>();
                thread.onEvent(listened::add);
                stalled.subscription();
                eager.subscription();

                TurnResult result = thread.startTurn("go").await(WAIT);
                TurnResult otherResult = other.startTurn("go too").await(WAIT);

                assertThat(stalled.error()).isInstanceOf(CodexBackpressureException.class)
                        .hasMessageContaining("thread " + thread.id());
                assertThat(((CodexBackpressureException) stalled.error()).bufferSize()).isEqualTo(8);
                assertThat(stalled.items).isEmpty();
                assertThat(stalledOnAll.error()).isInstanceOf(CodexBackpressureException.class);
                assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
                assertThat(result.finalText()).isEqualTo(String.join("", deltas(DELTAS)));
                assertThat(otherResult.status()).isEqualTo(TurnStatus.COMPLETED);
                awaitCondition("the eager subscriber has the turn's end",
                        () -> eager.items.stream().anyMatch(ServerNotification.TurnCompleted.class::isInstance));
                awaitCondition("the listener has the turn's end",
                        () -> listened.stream().anyMatch(ServerNotification.TurnCompleted.class::isInstance));
                assertThat(eager.items).containsExactlyElementsOf(listened);
                assertThat(eager.end).isNotDone();
                assertThat(stalled.violations).isEmpty();
                assertThat(eager.violations).isEmpty();
                // The overflowed subscriptions let go of what they held: only the listener still holds the thread.
                assertThat(ClientProbe.notificationListeners(client)).isZero();
                eager.subscription().cancel();
            }
        }
    }

    @Test
    void replayedEventsDoNotCountAgainstTheBuffer() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas(deltas(DELTAS)).completed());
            try (CodexClient client = inMemory(fake).publisherBufferSize(2).build()) {
                CodexTurn turn = client.startThread().startTurn("go");
                turn.await(WAIT);
                RecordingSubscriber<ServerNotification> late = new RecordingSubscriber<>(0);
                turn.publisher().subscribe(late);
                for (int i = 0; i < TURN_FRAME + DELTAS + 2; i++) {
                    late.request(1);
                    late.next();
                }
                late.awaitCompletion();
                assertThat(late.violations).isEmpty();
            }
        }
    }

    @Test
    void aSubscriberThatCancelsInOnNextReceivesNothingMoreAndIsLetGoOf() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas(deltas(DELTAS)).neverComplete());
            try (CodexClient client = inMemory(fake).build()) {
                CodexThread thread = client.startThread();
                RecordingSubscriber<ServerNotification> cancelling = new RecordingSubscriber<>(Long.MAX_VALUE) {
                    @Override
                    void onItem(ServerNotification item) {
                        if (items.size() == 3) {
                            subscription().cancel();
                        }
                    }
                };
                RecordingSubscriber<ServerNotification> onThread = new RecordingSubscriber<>(Long.MAX_VALUE) {
                    @Override
                    void onItem(ServerNotification item) {
                        if (items.size() == 3) {
                            subscription().cancel();
                        }
                    }
                };
                RecordingSubscriber<ServerNotification> onAll = new RecordingSubscriber<>(Long.MAX_VALUE) {
                    @Override
                    void onItem(ServerNotification item) {
                        if (items.size() == 3) {
                            subscription().cancel();
                        }
                    }
                };
                // The hot streams before the turn starts, so that they see its events; the turn's replays.
                thread.publisher().subscribe(onThread);
                client.publisher().subscribe(onAll);
                onThread.subscription();
                onAll.subscription();
                CodexTurn turn = thread.startTurn("go");
                int listenersBefore = ClientProbe.turnListeners(turn);
                turn.publisher().subscribe(cancelling);
                List<ServerNotification> control = new CopyOnWriteArrayList<>();
                turn.onEvent(control::add);

                // No turn/completed: the turn runs on; the agent message is started, streamed and completed.
                int expected = TURN_FRAME - 1 + DELTAS + 2;
                awaitCondition("every delta reached the turn", () -> control.size() == expected);
                awaitCondition("the cancelled subscriptions let go of their listeners",
                        () -> ClientProbe.turnListeners(turn) == listenersBefore + 1
                                && ClientProbe.notificationListeners(client) == 0);
                fake.notify("test/afterwards", java.util.Map.of());
                awaitCondition("the lanes ran dry", () -> ClientProbe.lanes(client) == 0);
                for (RecordingSubscriber<ServerNotification> s : List.of(cancelling, onThread, onAll)) {
                    assertThat(s.items).hasSize(3);
                    assertThat(s.end).isNotDone();
                    assertThat(s.violations).isEmpty();
                }
            }
        }
    }

    @Test
    void theNextTurnStartsFromOnCompleteAndTheClientAnswersFromOnNext() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("ok").completed());
            try (CodexClient client = inMemory(fake).build()) {
                CodexThread thread = client.startThread();
                int turns = 5;
                List<TurnResult> results = new CopyOnWriteArrayList<>();
                CompletableFuture<Void> done = new CompletableFuture<>();
                class Chain extends RecordingSubscriber<ServerNotification> {
                    Chain() {
                        super(Long.MAX_VALUE);
                    }

                    @Override
                    void onItem(ServerNotification item) {
                        if (item instanceof ServerNotification.TurnStarted) {
                            // Blocking calls on the subscription's lane: the thread's own lane is free.
                            thread.read();
                        }
                    }

                    @Override
                    public void onComplete() {
                        super.onComplete();
                        try {
                            if (results.size() == turns) {
                                done.complete(null);
                                return;
                            }
                            CodexTurn next = thread.startTurn("turn " + results.size());
                            results.add(next.await(WAIT));
                            next.publisher().subscribe(new Chain());
                        } catch (RuntimeException e) {
                            done.completeExceptionally(e);
                        }
                    }
                }
                CodexTurn first = thread.startTurn("first");
                results.add(first.await(WAIT));
                first.publisher().subscribe(new Chain());
                ClientTestSupport.get(done);
                assertThat(results).hasSize(turns).allMatch(r -> r.status() == TurnStatus.COMPLETED);
                assertThat(thread.read().turns()).hasSize(turns);
            }
        }
    }

    @Test
    void aFailedTurnEndsWithItsTypedErrorAfterItsLastEvent() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("trying").failed("usage limit", "usageLimitExceeded"));
            try (CodexClient client = inMemory(fake).build()) {
                CodexTurn turn = client.startThread().startTurn("go");
                RecordingSubscriber<ServerNotification> sub = new RecordingSubscriber<>(Long.MAX_VALUE);
                turn.publisher().subscribe(sub);
                Throwable error = sub.error();
                assertThat(error).isInstanceOf(CodexTurnFailedException.class);
                assertThat(((CodexTurnFailedException) error).codexErrorInfo())
                        .contains(CodexErrorInfo.Simple.USAGE_LIMIT_EXCEEDED);
                assertThat(sub.items.get(sub.items.size() - 1)).isInstanceOf(ServerNotification.TurnCompleted.class);
                assertThat(sub.violations).isEmpty();
            }
        }
    }

    @Test
    void aLostConnectionFailsEveryStreamWithTheTransportError() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("working").neverComplete());
            try (CodexClient client = inMemory(fake).build()) {
                CodexThread thread = client.startThread();
                RecordingSubscriber<ServerNotification> onThread = new RecordingSubscriber<>(Long.MAX_VALUE);
                RecordingSubscriber<ServerNotification> onAll = new RecordingSubscriber<>(Long.MAX_VALUE);
                thread.publisher().subscribe(onThread);
                client.publisher().subscribe(onAll);
                CodexTurn turn = thread.startTurn("go");
                RecordingSubscriber<ServerNotification> onTurn = new RecordingSubscriber<>(Long.MAX_VALUE);
                turn.publisher().subscribe(onTurn);
                onTurn.next();

                fake.apply(Fault.exit(7));

                for (RecordingSubscriber<ServerNotification> s : List.of(onTurn, onThread, onAll)) {
                    assertThat(s.error()).isInstanceOf(CodexTransportException.class);
                    assertThat(((CodexTransportException) s.error()).exitCode()).hasValue(7);
                    assertThat(s.violations).isEmpty();
                }
                // A subscriber that comes after the end is told at once.
                RecordingSubscriber<ServerNotification> late = new RecordingSubscriber<>(0);
                client.publisher().subscribe(late);
                assertThat(late.error()).isInstanceOf(CodexTransportException.class);
            }
        }
    }

    @Test
    void closingTheClientCompletesTheHotStreamsAndFailsTheRunningTurn() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("working").neverComplete());
            CodexClient client = inMemory(fake).build();
            CodexThread thread = client.startThread();
            RecordingSubscriber<ServerNotification> onThread = new RecordingSubscriber<>(Long.MAX_VALUE);
            RecordingSubscriber<ServerNotification> onAll = new RecordingSubscriber<>(Long.MAX_VALUE);
            RecordingSubscriber<ServerNotification> onAllByFormerName = new RecordingSubscriber<>(Long.MAX_VALUE);
            thread.publisher().subscribe(onThread);
            client.publisher().subscribe(onAll);
            @SuppressWarnings("removal")
            Flow.Publisher<ServerNotification> former = client.notifications();
            former.subscribe(onAllByFormerName);
            CodexTurn turn = thread.startTurn("go");
            RecordingSubscriber<ServerNotification> onTurn = new RecordingSubscriber<>(Long.MAX_VALUE);
            turn.publisher().subscribe(onTurn);
            onTurn.next();

            client.close();

            assertThat(onTurn.error()).isInstanceOf(CodexTransportException.class)
                    .hasMessageContaining("the client was closed");
            onThread.awaitCompletion();
            onAll.awaitCompletion();
            assertThat(onAll.items).containsAll(onTurn.items);
            onAllByFormerName.awaitCompletion();
            assertThat(onAllByFormerName.items).isEqualTo(onAll.items);
        }
    }

    @Test
    void aThreadClosedByTheServerCompletesItsStreamAndLetsGoOfTheThread() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("ok").completed());
            try (CodexClient client = inMemory(fake).build()) {
                CodexThread thread = client.startThread();
                RecordingSubscriber<ServerNotification> sub = new RecordingSubscriber<>(Long.MAX_VALUE);
                thread.publisher().subscribe(sub);
                sub.subscription();
                thread.startTurn("go").await(WAIT);

                fake.notify("thread/closed", java.util.Map.of("threadId", thread.id()));

                sub.awaitCompletion();
                assertThat(sub.items.get(sub.items.size() - 1)).isInstanceOf(ServerNotification.ThreadClosed.class);
                assertThat(sub.items).anyMatch(ServerNotification.TurnCompleted.class::isInstance);
                assertThat(sub.violations).isEmpty();
                awaitCondition("the client lets go of the thread", () -> ClientProbe.heldThreads(client) == 0);
            }
        }
    }
}

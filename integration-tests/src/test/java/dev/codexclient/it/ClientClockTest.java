package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.WAIT;
import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static dev.codexclient.it.ClientTestSupport.withClock;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.TurnEventStream;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every wait of the client API runs on the client's clock: a test moves it by hand and nothing sleeps. */
@Timeout(60)
class ClientClockTest {
    private final ManualScheduler clock = new ManualScheduler();

    private CodexTurn heldTurn(CodexClient client) throws Exception {
        CodexTurn turn = client.startThread().startTurn("hold");
        CompletableFuture<Void> running = new CompletableFuture<>();
        turn.onEvent(n -> running.complete(null));
        running.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        return turn;
    }

    @Test
    void awaitGivesUpExactlyWhenItsTimeoutPassesAndTheTurnKeepsRunning() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.pause(Duration.ofSeconds(30)).interrupted());
            try (CodexClient client = withClock(inMemory(fake), clock).build()) {
                CodexTurn turn = heldTurn(client);
                int before = clock.pendingTasks();
                CompletableFuture<TurnResult> waiting = CompletableFuture.supplyAsync(
                        () -> turn.await(Duration.ofSeconds(10)));
                awaitCondition("await() is waiting", () -> clock.pendingTasks() > before);
                clock.advance(Duration.ofMillis(9_999));
                assertThat(waiting).isNotDone();
                clock.advance(Duration.ofMillis(1));
                assertThat(ClientTestSupport.failureOf(waiting, WAIT))
                        .isInstanceOfSatisfying(CodexTimeoutException.class, e -> {
                            assertThat(e.timeout()).isEqualTo(Duration.ofSeconds(10));
                            assertThat(e.getMessage()).contains(turn.threadId());
                        });
                assertThat(turn.isDone()).isFalse();
                turn.interruptAsync();
            }
        }
    }

    @Test
    void anEventStreamWithATimeoutGivesUpOnASilentTurnAndStaysUsable() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.pause(Duration.ofSeconds(30)).interrupted());
            try (CodexClient client = withClock(inMemory(fake), clock).build()) {
                CodexTurn turn = heldTurn(client);
                try (TurnEventStream events = turn.events(Duration.ofSeconds(5))) {
                    Iterator<ServerNotification> it = events.iterator();
                    // The events so far are there at once.
                    assertThat(it.next()).isInstanceOf(ServerNotification.TurnStarted.class);
                    while (it.next() instanceof ServerNotification.ItemCompleted == false) {
                        // up to the user message's item/completed
                    }
                    int before = clock.pendingTasks();
                    CompletableFuture<Boolean> next = CompletableFuture.supplyAsync(it::hasNext);
                    awaitCondition("hasNext() is waiting", () -> clock.pendingTasks() > before);
                    clock.advance(Duration.ofMillis(4_999));
                    assertThat(next).isNotDone();
                    clock.advance(Duration.ofMillis(1));
                    assertThat(ClientTestSupport.failureOf(next, WAIT)).isInstanceOf(CodexTimeoutException.class);

                    // Still usable: the interrupt's events arrive, then the end.
                    turn.interruptAsync();
                    int count = 0;
                    while (it.hasNext()) {
                        it.next();
                        count++;
                    }
                    assertThat(count).isPositive();
                }
            }
        }
    }

    @Test
    void aDeadlineInterruptsTheTurnExactlyWhenItPasses() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.pause(Duration.ofSeconds(30)).interrupted());
            try (CodexClient client = withClock(inMemory(fake), clock).build()) {
                CodexTurn turn = heldTurn(client).deadline(Duration.ofSeconds(5));
                clock.advance(Duration.ofMillis(4_999));
                assertThat(fake.requests()).noneMatch(r -> r.method().equals("turn/interrupt"));
                clock.advance(Duration.ofMillis(1));
                fake.takeRequest("turn/interrupt", WAIT);
                TurnResult r = turn.result().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(r.deadlineExceeded()).isTrue();
                assertThat(r.stalled()).isFalse();
            }
        }
    }
}

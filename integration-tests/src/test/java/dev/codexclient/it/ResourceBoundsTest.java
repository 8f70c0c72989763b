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
import dev.codexclient.errors.CodexException;
import dev.codexclient.ClientProbe;
import dev.codexclient.protocol.ChatgptAuthTokensRefreshResponse;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that lives for weeks holds resources only for the threads that are busy: lanes and thread state are
 * let go of when a thread is idle, unsubscribed, archived or closed by the server; buffers are bounded.
 */
@Timeout(120)
class ResourceBoundsTest {

    private static void awaitBaseline(CodexClient client) {
        awaitCondition("the client holds no thread, lane or request", () -> ClientProbe.heldThreads(client) == 0
                && ClientProbe.lanes(client) == 0 && ClientProbe.pendingRequests(client) == 0);
    }

    @Test
    void tenThousandThreadsStartedAndFinishedLeaveNothingBehind() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("done").completed());
            try (CodexClient client = inMemory(fake).build()) {
                awaitBaseline(client);
                int threads = 10_000;
                int inFlight = 64;
                List<CompletableFuture<TurnResult>> batch = new ArrayList<>();
                int completed = 0;
                for (int i = 0; i < threads; i++) {
                    batch.add(client.startThreadAsync()
                            .thenCompose(t -> t.startTurnAsync("work"))
                            .thenCompose(CodexTurn::result));
                    if (batch.size() == inFlight || i == threads - 1) {
                        for (CompletableFuture<TurnResult> r : batch) {
                            assertThat(r.get(WAIT.toSeconds(), TimeUnit.SECONDS).status())
                                    .isEqualTo(TurnStatus.COMPLETED);
                            completed++;
                        }
                        batch.clear();
                    }
                }
                assertThat(completed).isEqualTo(threads);
                awaitBaseline(client);
            }
        }
    }

    @Test
    void eventsOfThreadsTheClientNeverHeldLeaveNoLaneBehind() {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            try (CodexClient client = inMemory(fake).build()) {
                List<ServerNotification> seen = new CopyOnWriteArrayList<>();
                client.onNotification(seen::add);
                for (int i = 0; i < 10_000; i++) {
                    fake.notify("thread/status/changed", Map.of("threadId", "foreign-" + i,
                            "status", Map.of("type", "idle")));
                }
                awaitCondition("every event delivered", () -> seen.size() == 10_000);
                awaitBaseline(client);
            }
        }
    }

    @Test
    void aThreadIsHeldWhileATurnRunsOrAListenerIsOpenAndLetGoOfAfterwards() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas("a", "b").pause(Duration.ofSeconds(30)).interrupted());
            try (CodexClient client = inMemory(fake).build()) {
                CodexThread thread = client.startThread();
                assertThat(client.thread(thread.id())).isEmpty();

                CodexTurn turn = thread.startTurn("go");
                assertThat(client.thread(thread.id())).containsSame(thread);
                turn.interruptAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                awaitBaseline(client);
                assertThat(client.thread(thread.id())).isEmpty();

                Subscription listening = thread.onEvent(n -> { });
                assertThat(ClientProbe.heldThreads(client)).isEqualTo(1);
                listening.close();
                awaitBaseline(client);

                // A handle the client let go of works as before: it takes hold again for its next turn.
                TurnResult again = thread.startTurn("again").interruptAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(again.status()).isEqualTo(TurnStatus.INTERRUPTED);
                awaitBaseline(client);
            }
        }
    }

    @Test
    void aThreadClosedByTheServerIsLetGoOfAndItsRunningTurnFails() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas("a").pause(Duration.ofSeconds(30)).interrupted());
            try (CodexClient client = inMemory(fake).build()) {
                CodexThread thread = client.startThread();
                List<ServerNotification> threadEvents = new CopyOnWriteArrayList<>();
                Subscription listener = thread.onEvent(threadEvents::add);
                CodexTurn turn = thread.startTurn("go");

                fake.notify("thread/closed", Map.of("threadId", thread.id()));

                Throwable failure = ClientTestSupport.failureOf(turn.result(), WAIT);
                assertThat(failure).isInstanceOf(CodexException.class).hasMessageContaining(thread.id())
                        .hasMessageContaining("closed by the server");
                awaitBaseline(client);
                // The listener saw thread/closed, and nothing after it: its subscription was closed.
                assertThat(threadEvents).last().isInstanceOf(ServerNotification.ThreadClosed.class);
                fake.notify("thread/name/updated", Map.of("threadId", thread.id(), "threadName", "late"));
                thread.readAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                SubscriptionTest.drainLane(turn);
                assertThat(threadEvents).last().isInstanceOf(ServerNotification.ThreadClosed.class);
                listener.close();
            }
        }
    }

    @Test
    void unsubscribingOrArchivingLetsGoOfTheThread() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            try (CodexClient client = inMemory(fake).build()) {
                CodexThread a = client.startThread();
                CodexThread b = client.startThread();
                a.onEvent(n -> { });
                b.onEvent(n -> { });
                assertThat(ClientProbe.heldThreads(client)).isEqualTo(2);
                a.unsubscribe();
                b.archiveAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                awaitBaseline(client);
            }
        }
    }

    @Test
    void theReplayBufferIsBoundedInBytes() throws Exception {
        String kib = "x".repeat(1024);
        String[] deltas = new String[500];
        java.util.Arrays.fill(deltas, kib);
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas(deltas).completed());
            try (CodexClient client = inMemory(fake).turnReplayBytes(64 * 1024).build()) {
                CodexTurn turn = client.startThread().startTurn("flood");
                TurnResult r = turn.await(WAIT);
                assertThat(r.finalText()).hasSize(500 * 1024);
                List<ServerNotification> replayed = new ArrayList<>();
                CompletableFuture<Void> done = new CompletableFuture<>();
                turn.onEvent(replayed::add);
                ClientProbe.onLane(turn.thread(), () -> done.complete(null));
                done.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                // Each delta's line is a little over 1 KiB: at most 64 of them fit, and they are the newest. The
                // newest event always stays, however large (turn/completed carries the whole 500 KiB message).
                assertThat(replayed).hasSizeBetween(1, 64);
                assertThat(replayed).last().isInstanceOf(ServerNotification.TurnCompleted.class);
            }
        }
    }

    @Test
    void refreshedTokensAreMaskedPerClientAndKeptOnlyUpToABound() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            int[] n = {0};
            // The fake sends its requests to the newest connection: the refreshing client connects last.
            try (CodexClient other = inMemory(fake).build();
                 CodexClient client = inMemory(fake).secret("sk-test-key-0123456789abcdef")
                    .chatgptTokenRefresh(p -> CompletableFuture.completedFuture(ChatgptAuthTokensRefreshResponse
                            .builder().accessToken("access-token-" + (n[0]++)).chatgptAccountId("acct").build()))
                    .build()) {
                int before = ClientProbe.registeredSecrets(client);
                for (int i = 0; i < 100; i++) {
                    fake.requestChatgptTokenRefresh().awaitResponse(WAIT);
                }
                assertThat(n[0]).isEqualTo(100);
                assertThat(ClientProbe.registeredSecrets(client) - before).isEqualTo(8);
                // The other client masks none of them: secrets stay with the client that learned them.
                assertThat(ClientProbe.registeredSecrets(other)).isZero();
            }
        }
    }

    @Test
    void everyClientsTimersShareOneThread() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("done").completed());
            java.util.Set<String> before = ClientTestSupport.codexThreads();
            try (CodexClient client = inMemory(fake).build(); CodexClient second = inMemory(fake).build()) {
                // Request deadlines, a turn deadline, a watchdog and a timed wait: every kind of timer, in two clients.
                for (CodexClient c : List.of(client, second)) {
                    CodexTurn turn = c.startThread().startTurn("go").deadline(Duration.ofMinutes(5))
                            .watchdog(Duration.ofMinutes(5));
                    turn.await(WAIT);
                }
                java.util.Set<String> started = new java.util.HashSet<>(ClientTestSupport.codexThreads());
                started.removeAll(before);
                assertThat(started).noneMatch(name -> name.contains("scheduler") || name.contains("timer"));
                assertThat(Thread.getAllStackTraces().keySet()).filteredOn(t -> t.getName().contains("timer"))
                        .extracting(Thread::getName).containsExactly("codex-shared-timer");
            }
            // A closed client's timers are gone; the next client's still run.
            try (CodexClient third = inMemory(fake).build()) {
                assertThat(third.startThread().startTurn("go").deadline(Duration.ofMinutes(5)).await(WAIT).status())
                        .isEqualTo(TurnStatus.COMPLETED);
            }
        }
    }
}

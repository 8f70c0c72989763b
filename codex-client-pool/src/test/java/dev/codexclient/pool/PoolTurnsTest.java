package dev.codexclient.pool;

import static dev.codexclient.pool.PoolTestSupport.WAIT;
import static dev.codexclient.pool.PoolTestSupport.awaitCondition;
import static dev.codexclient.pool.PoolTestSupport.failureOf;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.Inputs;
import dev.codexclient.StructuredTurn;
import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.RecordedRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pooled thread's turns as a user starts them: the overloads a {@code CodexThread} has (inputs, structured output),
 * a wait for a place bounded by the pool's queue timeout (on a manual clock), a waiting turn given up by its caller,
 * and a blocking start refused where its wait could never end.
 */
@Timeout(60)
class PoolTurnsTest {
    record Verdict(boolean safe, List<String> risks) {
    }

    private final FakeCodexAppServer fake = new FakeCodexAppServer();

    @AfterEach
    void closeFake() {
        fake.close();
    }

    private CodexClient client() {
        return CodexClient.builder().transportFactory(fake::connectInMemory)
                .requestTimeout(Duration.ofSeconds(10)).initializeTimeout(Duration.ofSeconds(10)).build();
    }

    private MemberStats stats(CodexPool pool) {
        return pool.stats().get(0);
    }

    private long turnStarts() {
        return fake.requests().stream().map(RecordedRequest::method).filter("turn/start"::equals).count();
    }

    @Test
    void aPooledThreadTakesInputsAndStructuredOutputAsACodexThreadDoes() throws Exception {
        fake.onTurnStart(t -> t.agentMessageDeltas("{\"safe\":false,", "\"risks\":[\"deletes data\"]}"));
        try (CodexPool pool = CodexPool.builder().member("only", this::client).build()) {
            PooledThread thread = pool.startThread();

            StructuredTurn<Verdict> blocking = thread.startTurn("Is this diff safe?", Verdict.class);
            assertThat(blocking.await(WAIT)).isEqualTo(new Verdict(false, List.of("deletes data")));
            JsonNode schema = fake.takeRequest("turn/start", WAIT).params().path("outputSchema");
            assertThat(schema.path("properties").path("safe").path("type").asText()).isEqualTo("boolean");

            StructuredTurn<Verdict> async = thread.startTurnAsync(
                    thread.turnParams().input(List.of(Inputs.text("And this one?"))), Verdict.class)
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(async.await(WAIT).risks()).containsExactly("deletes data");
            assertThat(fake.takeRequest("turn/start", WAIT).params().path("outputSchema").path("type").asText())
                    .isEqualTo("object");

            CodexTurn inputs = thread.startTurn(List.of(Inputs.text("first"), Inputs.text("second")));
            assertThat(inputs.await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            JsonNode input = fake.takeRequest("turn/start", WAIT).params().path("input");
            assertThat(input).extracting(n -> n.path("text").asText()).containsExactly("first", "second");
            assertThat(thread.startTurnAsync(List.of(Inputs.text("third"))).get(WAIT.toSeconds(), TimeUnit.SECONDS)
                    .await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);

            // Each turn gave its place back.
            assertThat(pool.drain(WAIT)).isTrue();
            assertThat(stats(pool).runningTurns()).isZero();
        }
    }

    @Test
    void aTurnThatFindsNoPlaceWithinTheQueueTimeoutFailsTypedAndLeavesTheQueue() throws Exception {
        ManualTimer clock = new ManualTimer();
        fake.onTurnStart(t -> t.pause(Duration.ofSeconds(30)).interrupted());
        try (CodexPool pool = PoolProbe.useTimer(CodexPool.builder(), clock).member("only", this::client)
                .healthCheckEvery(Duration.ZERO, Duration.ofSeconds(5)).maxTurnsPerMember(1)
                .queueTimeout(Duration.ofMinutes(1)).build()) {
            PooledThread first = pool.startThread();
            PooledThread second = pool.startThread();
            CodexTurn running = first.startTurnAsync("long").get(WAIT.toSeconds(), TimeUnit.SECONDS);
            CompletableFuture<CodexTurn> waiting = second.startTurnAsync("waits");

            clock.advance(Duration.ofSeconds(59));
            assertThat(waiting).isNotDone();
            assertThat(stats(pool).queuedTurns()).isEqualTo(1);

            clock.advance(Duration.ofSeconds(1));
            assertThat(failureOf(waiting, WAIT)).isInstanceOf(CodexTimeoutException.class)
                    .hasMessageContaining("a place on pool member only");
            assertThat(stats(pool).queuedTurns()).isZero();

            // The timed-out turn never starts; the place goes to the next one that asks.
            running.interruptAsync();
            running.await(WAIT);
            awaitCondition("the place is free", () -> stats(pool).runningTurns() == 0);
            assertThat(turnStarts()).isEqualTo(1);
            fake.onTurnStart(t -> t.agentMessage("done"));
            assertThat(second.startTurn("again").await(WAIT).finalText()).isEqualTo("done");
            assertThat(turnStarts()).isEqualTo(2);
        }
    }

    @Test
    void aWaitingTurnItsCallerCancelledNeverStarts() throws Exception {
        fake.onTurnStart(t -> t.pause(Duration.ofSeconds(30)).interrupted());
        try (CodexPool pool = CodexPool.builder().member("only", this::client).maxTurnsPerMember(1).build()) {
            PooledThread first = pool.startThread();
            PooledThread second = pool.startThread();
            CodexTurn running = first.startTurnAsync("long").get(WAIT.toSeconds(), TimeUnit.SECONDS);
            CompletableFuture<CodexTurn> waiting = second.startTurnAsync("given up");
            assertThat(waiting.cancel(true)).isTrue();

            running.interruptAsync();
            running.await(WAIT);
            assertThat(pool.drain(WAIT)).isTrue();
            assertThat(stats(pool).runningTurns()).isZero();
            assertThat(stats(pool).queuedTurns()).isZero();
            assertThat(turnStarts()).isEqualTo(1);
        }
    }

    @Test
    void aBlockingStartFromAListenerOfTheThreadHoldingTheOnlyPlaceIsRefusedNotHung() throws Exception {
        fake.onTurnStart(t -> t.agentMessage("working").pause(Duration.ofSeconds(30)).interrupted());
        try (CodexPool pool = CodexPool.builder().member("only", this::client).maxTurnsPerMember(1).build()) {
            PooledThread thread = pool.startThread();
            CompletableFuture<Throwable> fromListener = new CompletableFuture<>();
            thread.memberThread().onEvent(n -> {
                if (n.method().equals("item/completed") && !fromListener.isDone()) {
                    try {
                        thread.startTurn("the next one, now");
                        fromListener.complete(null);
                    } catch (RuntimeException e) {
                        fromListener.complete(e);
                    }
                }
            });
            CodexTurn running = thread.startTurn("first");
            assertThat(fromListener.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .isInstanceOf(CodexDeadlockException.class).hasMessageContaining("startTurnAsync");
            assertThat(stats(pool).queuedTurns()).isZero();

            // The same call where a place is free is no deadlock: it waits for turn/start and returns the turn.
            running.interruptAsync();
            running.await(WAIT);
            fake.onTurnStart(t -> t.agentMessage("done"));
            assertThat(thread.startTurn("then").await(WAIT).finalText()).isEqualTo("done");
        }
    }
}

package dev.codexclient.pool;

import static dev.codexclient.pool.PoolTestSupport.WAIT;
import static dev.codexclient.pool.PoolTestSupport.awaitCondition;
import static dev.codexclient.pool.PoolTestSupport.failureOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.Fault;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A warm spare on fake app-servers, its starts on the thread that builds the pool or checks it: one spare waits
 * beside the members, a member whose client gave up takes it instead of starting a client, the next spare starts,
 * and the member's thread is resumed on what was the spare; close closes the spare too.
 */
@Timeout(60)
class PoolWarmSpareTest {
    private final FakeCodexAppServer memberServer = new FakeCodexAppServer();
    private final FakeCodexAppServer spareServer = new FakeCodexAppServer();
    private final List<CodexClient> members = new CopyOnWriteArrayList<>();
    private final List<CodexClient> spares = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeFakes() {
        memberServer.close();
        spareServer.close();
    }

    private static CodexClient client(FakeCodexAppServer fake, List<CodexClient> built) {
        CodexClient c = CodexClient.builder().transportFactory(fake::connectInMemory)
                .requestTimeout(Duration.ofSeconds(10)).initializeTimeout(Duration.ofSeconds(10)).build();
        built.add(c);
        return c;
    }

    private static MemberStats stats(CodexPool pool) {
        return pool.stats().get(0);
    }

    @Test
    void aMemberWhoseClientGaveUpTakesTheSpareAndTheNextSpareStarts() {
        CodexPool pool = PoolProbe.useTimer(CodexPool.builder(), new ManualTimer())
                .member("a", () -> client(memberServer, members))
                .warmSpare(() -> client(spareServer, spares))
                .healthCheckEvery(Duration.ZERO, Duration.ofSeconds(5))
                .build();
        try {
            assertThat(members).hasSize(1);
            assertThat(spares).hasSize(1);
            assertThat(pool.warmSpareReady()).isTrue();
            CodexClient spare = spares.get(0);
            PooledThread thread = pool.startThread();
            assertThat(thread.startTurn("before").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);

            memberServer.apply(Fault.exit(137));
            awaitCondition("the member's client sees its end", () -> members.get(0).isClosed());
            assertThat(pool.checkHealth()).isEqualTo(1);

            // The member runs on the client that was waiting; no member client was started for it.
            assertThat(pool.memberClient("a")).containsSame(spare);
            assertThat(members).hasSize(1);
            assertThat(stats(pool).replacements()).isEqualTo(1);
            // The next spare started on the pool's thread.
            assertThat(spares).hasSize(2);
            assertThat(pool.warmSpareReady()).isTrue();

            assertThat(thread.startTurn("after").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(spareServer.takeRequest("thread/resume", WAIT).params().path("threadId").asText())
                    .isEqualTo(thread.id());
            assertThat(thread.client()).isSameAs(spare);
        } finally {
            pool.close();
        }
        assertThat(spares).allMatch(CodexClient::isClosed);
        assertThat(members).allMatch(CodexClient::isClosed);
    }

    @Test
    void withoutAReadySpareTheMemberStartsItsOwnClientAsBefore() {
        CodexPool pool = PoolProbe.useTimer(CodexPool.builder(), new ManualTimer())
                .member("a", () -> client(memberServer, members))
                .warmSpare(() -> {
                    throw new IllegalStateException("no spare today");
                })
                .healthCheckEvery(Duration.ZERO, Duration.ofSeconds(5))
                .build();
        try {
            assertThat(pool.warmSpareReady()).isFalse();
            PooledThread thread = pool.startThread();
            memberServer.apply(Fault.exit(137));
            awaitCondition("the member's client sees its end", () -> members.get(0).isClosed());
            assertThat(pool.checkHealth()).isEqualTo(1);
            assertThat(members).hasSize(2);
            assertThat(pool.memberClient("a")).containsSame(members.get(1));
            assertThat(thread.startTurn("after").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
        } finally {
            pool.close();
        }
    }

    @Test
    void aResumeRefusedWhileTheLostServersWriterStillHoldsTheThreadIsSentAgainAfterGrowingPauses() throws Exception {
        ManualTimer clock = new ManualTimer();
        CodexPool pool = PoolProbe.useTimer(CodexPool.builder(), clock)
                .member("a", () -> client(memberServer, members))
                .warmSpare(() -> client(spareServer, spares))
                .healthCheckEvery(Duration.ZERO, Duration.ofSeconds(5))
                .build();
        try {
            PooledThread thread = pool.startThread();
            assertThat(thread.startTurn("before").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            spareServer.on("thread/resume").times(2)
                    .respondError(-32600, "thread " + thread.id() + " already has an active writer");
            memberServer.apply(Fault.exit(137));
            awaitCondition("the member's client sees its end", () -> members.get(0).isClosed());
            pool.checkHealth();

            CompletableFuture<CodexTurn> after = thread.startTurnAsync("after");
            awaitCondition("the first pause is on the clock", () -> clock.nextDelay().isPresent());
            assertThat(clock.nextDelay()).contains(Duration.ofMillis(100));
            assertThat(after).isNotDone();
            clock.advance(Duration.ofMillis(100));
            awaitCondition("the second pause is on the clock", () -> clock.nextDelay().isPresent());
            assertThat(clock.nextDelay()).contains(Duration.ofMillis(200));
            clock.advance(Duration.ofMillis(200));
            assertThat(after.get(WAIT.toSeconds(), TimeUnit.SECONDS).await(WAIT).status())
                    .isEqualTo(TurnStatus.COMPLETED);
            assertThat(spareServer.requests().stream().filter(r -> r.method().equals("thread/resume"))).hasSize(3);
        } finally {
            pool.close();
        }
    }

    @Test
    void aResumeAnotherLiveServerKeepsWritingFailsTypedAfterItsBoundedAttempts() throws Exception {
        ManualTimer clock = new ManualTimer();
        CodexPool pool = PoolProbe.useTimer(CodexPool.builder(), clock)
                .member("a", () -> client(memberServer, members))
                .warmSpare(() -> client(spareServer, spares))
                .healthCheckEvery(Duration.ZERO, Duration.ofSeconds(5))
                .build();
        try {
            PooledThread thread = pool.startThread();
            assertThat(thread.startTurn("before").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            spareServer.on("thread/resume").always()
                    .respondError(-32600, "thread " + thread.id() + " already has an active writer");
            memberServer.apply(Fault.exit(137));
            awaitCondition("the member's client sees its end", () -> members.get(0).isClosed());
            pool.checkHealth();

            CompletableFuture<CodexTurn> after = thread.startTurnAsync("after");
            for (int pause = 1; pause < 8; pause++) {
                awaitCondition("a pause is on the clock", () -> clock.nextDelay().isPresent());
                clock.advance(clock.nextDelay().orElseThrow());
            }
            assertThat(failureOf(after, WAIT)).isInstanceOf(CodexRpcException.class)
                    .hasMessageContaining("already has an active writer");
            assertThat(spareServer.requests().stream().filter(r -> r.method().equals("thread/resume"))).hasSize(8);
        } finally {
            pool.close();
        }
    }
}

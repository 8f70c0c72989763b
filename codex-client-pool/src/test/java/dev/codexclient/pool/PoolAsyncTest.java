package dev.codexclient.pool;

import static dev.codexclient.pool.PoolTestSupport.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pool's async methods never block: a thousand turns started from one thread while every place is held return
 * at once (queued), and a thread start while the member's new client is still starting returns at once too; no
 * thread is held per waiting call. A blocking call on the pool's own thread is refused, not hung.
 */
@Timeout(120)
class PoolAsyncTest {
    private final FakeCodexAppServer fake = new FakeCodexAppServer();

    @AfterEach
    void closeFake() {
        fake.close();
    }

    /** A client whose approvals wait for {@code gate}: each turn of the fake holds its place until it opens. */
    private CodexClient client(CompletableFuture<Void> gate) {
        return CodexClient.builder().transportFactory(fake::connectInMemory)
                .requestTimeout(Duration.ofSeconds(30)).initializeTimeout(Duration.ofSeconds(10))
                .approvals(request -> gate.thenApply(v -> ApprovalDecision.ACCEPT))
                .build();
    }

    @Test
    void aThousandTurnsStartedFromOneThreadWhileEveryPlaceIsHeldAllReturnAtOnce() throws Exception {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        fake.onTurnStart(t -> t.commandApproval("make", reply -> { }).agentMessage("done"));
        int turns = 1000;
        try (CodexPool pool = CodexPool.builder().member("only", () -> client(gate))
                .maxTurnsPerMember(8).maxQueuedTurnsPerMember(turns).build()) {
            List<CompletableFuture<CodexThread>> starting = new ArrayList<>();
            for (int i = 0; i < turns; i++) {
                starting.add(pool.startThreadAsync());
            }
            List<CodexThread> threads = new ArrayList<>();
            for (CompletableFuture<CodexThread> s : starting) {
                threads.add(s.get(WAIT.toSeconds(), TimeUnit.SECONDS));
            }
            int javaThreadsBefore = Thread.activeCount();

            // One thread asks for every turn; each call returns while every place is held by a turn that waits for
            // the gate: a call that waited for its place would never return, and the test would time out.
            List<CompletableFuture<TurnResult>> results = new ArrayList<>();
            for (CodexThread t : threads) {
                results.add(t.startTurnAsync("go").thenCompose(CodexTurn::result));
            }
            PoolTestSupport.awaitCondition("the cap's turns are running",
                    () -> pool.stats().get(0).runningTurns() == 8);
            MemberStats held = pool.stats().get(0);
            assertThat(held.queuedTurns()).isEqualTo(turns - 8);
            assertThat(results).noneMatch(CompletableFuture::isDone);
            assertThat(Thread.activeCount() - javaThreadsBefore).as("threads held by waiting calls").isLessThan(50);

            gate.complete(null);
            for (CompletableFuture<TurnResult> r : results) {
                assertThat(r.get(60, TimeUnit.SECONDS).status()).isEqualTo(TurnStatus.COMPLETED);
            }
            assertThat(pool.drain(WAIT)).isTrue();
        }
    }

    @Test
    void startsMadeAtOnceSpreadOverTheMembersBeforeAnyIsAnswered() throws Exception {
        CompletableFuture<Void> open = CompletableFuture.completedFuture(null);
        try (FakeCodexAppServer other = new FakeCodexAppServer();
             CodexPool pool = CodexPool.builder().member("a", () -> client(open))
                     .member("b", () -> CodexClient.builder().transportFactory(other::connectInMemory)
                             .requestTimeout(Duration.ofSeconds(30)).build())
                     .build()) {
            List<CompletableFuture<CodexThread>> starting = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                starting.add(pool.startThreadAsync());
            }
            List<String> members = new ArrayList<>();
            for (CompletableFuture<CodexThread> s : starting) {
                members.add(((PooledThread) s.get(WAIT.toSeconds(), TimeUnit.SECONDS)).memberName());
            }
            // A start counts on its member from the moment it is placed, not from the server's answer.
            assertThat(members).containsExactly("a", "b", "a", "b", "a", "b", "a", "b", "a", "b");
            assertThat(pool.stats()).extracting(MemberStats::threads).containsExactly(5, 5);
        }
    }

    @Test
    void aThreadStartWhileTheMembersNewClientStartsReturnsAtOnce() throws Exception {
        CountDownLatch replacementMayStart = new CountDownLatch(1);
        AtomicInteger built = new AtomicInteger();
        CompletableFuture<Void> open = CompletableFuture.completedFuture(null);
        try (CodexPool pool = CodexPool.builder().member("only", () -> {
            if (built.incrementAndGet() > 1) {
                try {
                    replacementMayStart.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return client(open);
        }).healthCheckEvery(Duration.ZERO, Duration.ofSeconds(5)).build()) {
            pool.memberClient("only").orElseThrow().close(); // it gave up: the next placement replaces it

            CompletableFuture<CodexThread> starting = pool.startThreadAsync();
            assertThat(starting).as("the start waits for the new client without holding the caller").isNotDone();

            replacementMayStart.countDown();
            CodexThread thread = starting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(built).hasValue(2);
            assertThat(((PooledThread) thread).client().isClosed()).isFalse();
        }
    }

    @Test
    void aBlockingCallOnThePoolsOwnThreadIsRefusedNotHung() throws Exception {
        AtomicReference<CodexPool> poolRef = new AtomicReference<>();
        AtomicReference<Throwable> fromFactory = new AtomicReference<>();
        AtomicInteger built = new AtomicInteger();
        CompletableFuture<Void> open = CompletableFuture.completedFuture(null);
        try (CodexPool pool = CodexPool.builder().member("only", () -> {
            if (built.incrementAndGet() > 1) {
                // A factory runs on the pool's thread when it replaces a client; a blocking call there is refused.
                try {
                    poolRef.get().startThread();
                } catch (RuntimeException e) {
                    fromFactory.set(e);
                }
            }
            return client(open);
        }).healthCheckEvery(Duration.ZERO, Duration.ofSeconds(5)).build()) {
            poolRef.set(pool);
            pool.memberClient("only").orElseThrow().close();
            CodexThread thread = pool.startThreadAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(thread.id()).isNotBlank();
            assertThat(fromFactory.get()).isInstanceOf(CodexDeadlockException.class)
                    .hasMessageContaining("the pool's own thread").hasMessageContaining("…Async");
        }
    }
}

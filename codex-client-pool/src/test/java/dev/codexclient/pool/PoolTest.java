package dev.codexclient.pool;

import static dev.codexclient.pool.PoolTestSupport.WAIT;
import static dev.codexclient.pool.PoolTestSupport.awaitCondition;
import static dev.codexclient.pool.PoolTestSupport.failureOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexPoolRejectedException;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.Fault;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A pool of fake app-servers: placement by load, the cap and bounded queue per member, replacement, drain. */
@Timeout(60)
class PoolTest {

    private static CodexClient client(FakeCodexAppServer fake) {
        return CodexClient.builder().transportFactory(fake::connectInMemory)
                .requestTimeout(Duration.ofSeconds(10)).initializeTimeout(Duration.ofSeconds(10)).build();
    }

    private static MemberStats stats(CodexPool pool, String member) {
        return pool.stats().stream().filter(s -> s.name().equals(member)).findFirst().orElseThrow();
    }

    @Test
    void newThreadsGoToTheLeastLoadedMember() {
        try (FakeCodexAppServer a = new FakeCodexAppServer(); FakeCodexAppServer b = new FakeCodexAppServer();
             CodexPool pool = CodexPool.builder().member("a", () -> client(a)).member("b", () -> client(b))
                     .build()) {
            List<PooledThread> threads = List.of(pool.startThread(), pool.startThread(), pool.startThread(),
                    pool.startThread());
            assertThat(threads).extracting(PooledThread::memberName).containsExactly("a", "b", "a", "b");
            assertThat(pool.stats()).extracting(MemberStats::threads).containsExactly(2, 2);
            assertThat(a.threadIds()).hasSize(2);
            assertThat(b.threadIds()).hasSize(2);
        }
    }

    @Test
    void aResumeGoesToTheMemberThatHasTheThreadAndAMemberAnotherWriterHoldsItFromLeavesItToTheOthers() {
        try (FakeCodexAppServer a = new FakeCodexAppServer(); FakeCodexAppServer b = new FakeCodexAppServer();
             CodexPool pool = CodexPool.builder().member("a", () -> client(a)).member("b", () -> client(b))
                     .build()) {
            pool.startThread();
            PooledThread onB = pool.startThread();
            pool.startThread();
            assertThat(onB.memberName()).isEqualTo("b");
            // a has fewer turns and as many threads: by load it would take the resume, but b has the thread.
            assertThat(pool.resumeThread(onB.id()).memberName()).isEqualTo("b");

            // A thread this pool never placed, which the server of a writes: b, chosen by load, refuses it.
            String elsewhere = "thread-written-by-a";
            b.on("thread/resume").always().respondError(-32600, "thread " + elsewhere + " already has an active"
                    + " writer");
            PooledThread resumed = pool.resumeThread(dev.codexclient.protocol.ThreadResumeParams.builder()
                    .threadId(elsewhere).build());
            assertThat(resumed.memberName()).isEqualTo("a");
        }
    }

    @Test
    void aMemberRunsAtMostItsCapQueuesBoundedlyAndRejectsTyped() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.pause(Duration.ofSeconds(30)).interrupted());
            try (CodexPool pool = CodexPool.builder().member("only", () -> client(fake)).maxTurnsPerMember(1)
                    .maxQueuedTurnsPerMember(1).build()) {
                PooledThread first = pool.startThread();
                PooledThread second = pool.startThread();
                PooledThread third = pool.startThread();
                CodexTurn running = first.startTurnAsync("one").get(WAIT.toSeconds(), TimeUnit.SECONDS);
                CompletableFuture<CodexTurn> queued = second.startTurnAsync("two");
                assertThat(queued).isNotDone();
                assertThat(failureOf(third.startTurnAsync("three"), WAIT)).isInstanceOf(CodexPoolRejectedException.class)
                        .hasMessageContaining("its cap");
                MemberStats s = stats(pool, "only");
                assertThat(s.runningTurns()).isEqualTo(1);
                assertThat(s.queuedTurns()).isEqualTo(1);
                assertThat(s.rejectedTurns()).isEqualTo(1);
                assertThat(fake.requests().stream().filter(r -> r.method().equals("turn/start"))).hasSize(1);

                // The running turn ends: the queued one takes its place.
                running.interruptAsync();
                assertThat(running.await(WAIT).status()).isEqualTo(TurnStatus.INTERRUPTED);
                CodexTurn next = queued.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(next.threadId()).isEqualTo(second.id());
                awaitCondition("the queue is empty", () -> stats(pool, "only").queuedTurns() == 0);
                next.interruptAsync();
                next.await(WAIT);

                assertThat(pool.drain(WAIT)).isTrue();
                assertThatThrownBy(pool::startThread).isInstanceOf(CodexPoolRejectedException.class)
                        .hasMessageContaining("draining");
                assertThat(failureOf(first.startTurnAsync("after the drain"), WAIT))
                        .isInstanceOf(CodexPoolRejectedException.class);
            }
        }
    }

    @Test
    void aMemberWhoseClientEndedIsReplacedAndItsThreadsAreResumedThere() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            try (CodexPool pool = CodexPool.builder().member("only", () -> client(fake)).build()) {
                PooledThread thread = pool.startThread();
                CodexClient first = pool.memberClient("only").orElseThrow();
                assertThat(thread.client()).isSameAs(first);
                assertThat(pool.memberClient("nobody")).isEmpty();
                fake.apply(Fault.exit(137));
                awaitCondition("the member's client sees its end", () -> !stats(pool, "only").healthy());
                assertThat(pool.checkHealth()).isEqualTo(1);
                assertThat(stats(pool, "only").replacements()).isEqualTo(1);

                TurnResult r = thread.startTurn("again").await(WAIT);
                assertThat(r.status()).isEqualTo(TurnStatus.COMPLETED);
                assertThat(fake.takeRequest("thread/resume", WAIT).params().path("threadId").asText())
                        .isEqualTo(thread.id());
                assertThat(fake.connectionCount()).isEqualTo(2);
                // The member's client of the moment: the replacement, which runs the resumed thread.
                assertThat(pool.memberClient("only")).containsSame(thread.client());
                assertThat(thread.client()).isNotSameAs(first);
                assertThat(thread.client().isClosed()).isFalse();
            }
        }
    }

    @Test
    void closeClosesEveryMember() {
        try (FakeCodexAppServer a = new FakeCodexAppServer(); FakeCodexAppServer b = new FakeCodexAppServer()) {
            CodexClient[] clients = new CodexClient[2];
            CodexPool pool = CodexPool.builder()
                    .member("a", () -> clients[0] = client(a)).member("b", () -> clients[1] = client(b)).build();
            pool.close();
            assertThat(clients[0].isClosed()).isTrue();
            assertThat(clients[1].isClosed()).isTrue();
            assertThatThrownBy(pool::startThread).isInstanceOf(CodexPoolRejectedException.class)
                    .hasMessageContaining("closed");
        }
    }
}

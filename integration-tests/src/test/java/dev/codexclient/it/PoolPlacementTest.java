package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.RestartPolicy;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.pool.CodexPool;
import dev.codexclient.pool.PooledThread;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.Fault;
import dev.codexclient.testkit.RecordedRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thread placed on a member whose server dies under the {@code thread/start}: the moment the pool cannot know of
 * yet, held in place by the fake, which ends the connection as its answer. The pool places the call again, on another
 * healthy member, or, with none, on the same one once its client has restarted the server; an answered error is not
 * placed again. {@code RealCodexPoolPlacementTest} runs the same race on the real codex, where timing decides whether
 * a round reaches it.
 */
@Timeout(60)
class PoolPlacementTest {

    private static CodexClient client(FakeCodexAppServer fake) {
        return CodexClient.builder().transportFactory(fake::connectInMemory)
                .requestTimeout(Duration.ofSeconds(10)).initializeTimeout(Duration.ofSeconds(10)).build();
    }

    private static long threadStarts(FakeCodexAppServer fake) {
        return fake.requests().stream().map(RecordedRequest::method).filter("thread/start"::equals).count();
    }

    @Test
    void aThreadStartLostWithItsServerIsPlacedOnAnotherHealthyMember() {
        try (FakeCodexAppServer a = new FakeCodexAppServer(); FakeCodexAppServer b = new FakeCodexAppServer()) {
            // a is the least loaded (both are empty, a comes first): its server exits instead of answering.
            a.on("thread/start").once().fault(Fault.exit(137));
            try (CodexPool pool = CodexPool.builder().member("a", () -> client(a)).member("b", () -> client(b))
                    .build()) {
                PooledThread thread = pool.startThread();

                assertThat(threadStarts(a)).as("the call reached a, which died under it").isEqualTo(1);
                assertThat(a.threadIds()).isEmpty();
                assertThat(thread.memberName()).isEqualTo("b");
                assertThat(b.threadIds()).containsExactly(thread.id());
                assertThat(thread.startTurn("hello").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            }
        }
    }

    @Test
    void withNoOtherMemberTheCallWaitsForTheSameMembersRestartedServer() {
        try (FakeCodexAppServer only = new FakeCodexAppServer()) {
            only.on("thread/start").once().fault(Fault.exit(137));
            try (CodexPool pool = CodexPool.builder()
                    .member("only", () -> CodexClient.builder().transportFactory(only::connectInMemory)
                            .requestTimeout(Duration.ofSeconds(10)).initializeTimeout(Duration.ofSeconds(10))
                            .restartPolicy(RestartPolicy.builder().backoff(Duration.ofMillis(10),
                                    Duration.ofMillis(50)).build())
                            .build())
                    .build()) {
                PooledThread thread = pool.startThread();

                assertThat(thread.memberName()).isEqualTo("only");
                assertThat(threadStarts(only)).as("sent again on the restarted server").isEqualTo(2);
                assertThat(only.connectionCount()).isEqualTo(2);
                assertThat(only.threadIds()).containsExactly(thread.id());
                assertThat(thread.startTurn("hello").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            }
        }
    }

    @Test
    void aServerThatAnsweredWithAnErrorIsNotAskedAgainNorIsAnotherMember() {
        try (FakeCodexAppServer a = new FakeCodexAppServer(); FakeCodexAppServer b = new FakeCodexAppServer()) {
            a.on("thread/start").once().respondError(-32602, "invalid params: no such model");
            try (CodexPool pool = CodexPool.builder().member("a", () -> client(a)).member("b", () -> client(b))
                    .build()) {
                assertThatThrownBy(pool::startThread).isInstanceOf(CodexRpcException.class)
                        .hasMessageContaining("no such model");

                assertThat(List.of(threadStarts(a), threadStarts(b))).containsExactly(1L, 0L);
            }
        }
    }
}

package dev.codexclient.pool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.RestartPolicy;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pool of two real app-servers: threads spread over both, turns run on each; one server SIGKILLed is restarted by
 * its member's restart policy and its thread goes on; close leaves no process behind.
 */
@Tag("real-codex")
@Timeout(180)
class RealCodexPoolTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();

    @Test
    void twoAppServersShareTheThreadsAndOneSurvivesASigkill() throws Exception {
        Set<String> threadsBefore = PoolTestSupport.codexThreads();
        codex.model.whenAlways(r -> r.lastUserText().startsWith("hello"), ModelStep.reply("hi"));
        CodexPool pool = CodexPool.builder()
                .spawned(2, () -> codex.clientBuilder().restartPolicy(RestartPolicy.builder()
                        .backoff(Duration.ofMillis(50), Duration.ofSeconds(1)).build()))
                .maxTurnsPerMember(1).maxQueuedTurnsPerMember(8)
                .build();
        try {
            List<PooledThread> threads = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                threads.add(pool.startThread(codex.threadParams().build()));
            }
            assertThat(threads).extracting(PooledThread::memberName)
                    .containsExactly("spawned-1", "spawned-2", "spawned-1", "spawned-2");
            List<Long> pids = pool.stats().stream().map(s -> s.serverPid().orElseThrow()).toList();
            assertThat(pids).doesNotHaveDuplicates();

            runEveryTurn(threads, "hello 1");

            // SIGKILL the first member's server: its client spawns a new one and resumes the thread.
            ProcessHandle first = ProcessHandle.of(pids.get(0)).orElseThrow();
            first.descendants().forEach(ProcessHandle::destroyForcibly);
            first.destroyForcibly();
            first.onExit().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            PoolTestSupport.awaitCondition("the first member runs a new server", WAIT, () -> pool.stats().get(0)
                    .serverPid().filter(pid -> !pid.equals(pids.get(0))).isPresent());
            runEveryTurn(threads, "hello 2");
            // A turn's place is given back when its result completes, which may be just after the test saw it.
            assertThat(pool.drain(WAIT)).isTrue();
            MemberStats restarted = pool.stats().get(0);
            assertThat(restarted.serverPid()).isPresent().get().isNotEqualTo(pids.get(0));
            assertThat(restarted.healthy()).isTrue();
            assertThat(restarted.runningTurns()).isZero();
            assertThat(restarted.queuedTurns()).isZero();
        } finally {
            pool.close();
        }
        PoolTestSupport.assertNoLeaks(threadsBefore);
    }

    /** Runs a turn on every thread at once, more than a member's cap: some wait in its queue. */
    private static void runEveryTurn(List<PooledThread> threads, String text) throws Exception {
        List<CompletableFuture<TurnResult>> results = new ArrayList<>();
        for (PooledThread t : threads) {
            results.add(t.startTurnAsync(text).thenCompose(turn -> turn.result()));
        }
        for (CompletableFuture<TurnResult> r : results) {
            assertThat(r.get(WAIT.toSeconds(), TimeUnit.SECONDS).status()).isEqualTo(TurnStatus.COMPLETED);
        }
    }
}

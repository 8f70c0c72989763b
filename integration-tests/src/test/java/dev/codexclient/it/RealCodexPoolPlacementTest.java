package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.RestartPolicy;
import dev.codexclient.TurnResult;
import dev.codexclient.pool.CodexPool;
import dev.codexclient.pool.MemberStats;
import dev.codexclient.pool.PooledThread;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.Comparator;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A thread started on a pool at once after the server of the member it would go to was SIGKILLed: the pool places it
 * on a healthy member (or on the victim once its client restored the server), it never hands the caller the lost
 * connection's failure. Whether a round's call reaches the dead server before the pool knows (and is placed again)
 * is up to timing here; {@link PoolPlacementTest} holds that moment in place with the fake and checks the retry.
 */
@Tag("real-codex")
@Timeout(300)
class RealCodexPoolPlacementTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int ROUNDS = 6;

    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();

    @Test
    void aThreadStartedRightAfterASigkillGoesToAServerThatServes() throws Exception {
        Set<String> threadsBefore = ClientTestSupport.codexThreads();
        codex.model.whenAlways(r -> r.lastUserText().startsWith("hello"), ModelStep.reply("hi"));
        CodexPool pool = CodexPool.builder()
                .spawned(2, () -> codex.clientBuilder().restartPolicy(RestartPolicy.builder()
                        .backoff(Duration.ofMillis(50), Duration.ofSeconds(1)).build()))
                .build();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                // The member a new thread goes to: the least loaded (no turn runs between rounds), then fewest threads.
                MemberStats victim = pool.stats().stream()
                        .min(Comparator.comparingInt(MemberStats::threads)).orElseThrow();
                CodexClient victimClient = pool.memberClient(victim.name()).orElseThrow();
                long victimPid = victim.serverPid().orElseThrow();

                // SIGKILL its whole process tree and start a thread at once, without waiting for the exit.
                victimClient.serverProcessTree().forEach(ProcessHandle::destroyForcibly);
                PooledThread thread = pool.startThread(codex.threadParams().build());

                TurnResult r = thread.startTurn("hello " + round).await(WAIT);
                assertThat(r.status()).isEqualTo(TurnStatus.COMPLETED);
                // The thread lives on a server that serves: another member's, or the victim's new one.
                ProcessHandle server = thread.client().serverProcess().orElseThrow();
                assertThat(server.pid()).as("round %d, on %s", round, thread.memberName()).isNotEqualTo(victimPid);
                assertThat(server.isAlive()).as("round %d: its server is alive", round).isTrue();

                ClientTestSupport.awaitCondition("the victim's client runs a new server", WAIT, () -> pool.stats()
                        .stream().filter(s -> s.name().equals(victim.name())).findFirst()
                        .flatMap(MemberStats::serverPid).filter(pid -> pid != victimPid).isPresent());
                ClientTestSupport.awaitCondition("every member is healthy again", WAIT,
                        () -> pool.checkHealth() == 2);
            }
        } finally {
            pool.close();
        }
        RealCodexKillTest.assertNoLeaks(threadsBefore);
    }
}

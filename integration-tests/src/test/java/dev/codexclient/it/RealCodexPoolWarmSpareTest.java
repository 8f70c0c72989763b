package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.RestartPolicy;
import dev.codexclient.pool.CodexPool;
import dev.codexclient.pool.MemberStats;
import dev.codexclient.pool.PooledThread;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pool of one real app-server with a warm spare on the same {@code CODEX_HOME}: the member's server SIGKILLed, the
 * spare's server, started before the kill, serves the member at once (its pid is the spare's), the member's thread
 * goes on there with its conversation, the next spare starts, and close leaves no process behind.
 */
@Tag("real-codex")
@Timeout(180)
class RealCodexPoolWarmSpareTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();

    @Test
    void aKilledMembersServerIsReplacedByTheSpareThatWasAlreadyRunning() throws Exception {
        Set<String> threadsBefore = ClientTestSupport.codexThreads();
        codex.model.whenAlways(r -> r.lastUserText().startsWith("Remember"), ModelStep.reply("Noted."));
        codex.model.whenAlways(r -> r.lastUserText().startsWith("What"), ModelStep.reply("A kestrel."));
        List<CodexClient> spares = new CopyOnWriteArrayList<>();
        CodexPool pool = CodexPool.builder()
                .member("a", () -> codex.clientBuilder().restartPolicy(RestartPolicy.builder()
                        .backoff(Duration.ofMillis(50), Duration.ofSeconds(1)).build()).build())
                .warmSpare(() -> {
                    CodexClient c = codex.clientBuilder().build();
                    spares.add(c);
                    return c;
                })
                .build();
        try {
            ClientTestSupport.awaitCondition("the spare is ready", WAIT, pool::warmSpareReady);
            long sparePid = spares.get(0).serverProcess().orElseThrow().pid();
            PooledThread thread = pool.startThread(codex.threadParams().build());
            assertThat(thread.startTurn("Remember the bird: kestrel.").await(WAIT).status())
                    .isEqualTo(TurnStatus.COMPLETED);

            CodexClient lost = pool.memberClient("a").orElseThrow();
            long lostPid = lost.serverProcess().orElseThrow().pid();
            lost.serverProcessTree().forEach(ProcessHandle::destroyForcibly);

            // The member now runs on the spare's server, which was started before the kill.
            ClientTestSupport.awaitCondition("the spare took the member's place", WAIT, () -> pool.stats().get(0)
                    .serverPid().filter(pid -> pid != lostPid).isPresent());
            MemberStats after = pool.stats().get(0);
            assertThat(after.serverPid()).contains(sparePid);
            assertThat(after.replacements()).isEqualTo(1);
            assertThat(pool.memberClient("a")).containsSame(spares.get(0));
            // The lost client is closed just after the swap, off the member's path.
            ClientTestSupport.awaitCondition("the lost client is closed", WAIT, lost::isClosed);

            assertThat(thread.startTurn("What bird did I name?").await(WAIT).finalText()).isEqualTo("A kestrel.");
            assertThat(codex.model.requests().stream().filter(r -> r.lastUserText().startsWith("What")).findFirst()
                    .orElseThrow().inputContains("Remember the bird: kestrel.")).isTrue();
            ClientTestSupport.awaitCondition("the next spare is ready", WAIT, pool::warmSpareReady);
            assertThat(spares).hasSize(2);
        } finally {
            pool.close();
        }
        assertThat(spares).allMatch(CodexClient::isClosed);
        RealCodexKillTest.assertNoLeaks(threadsBefore);
    }
}

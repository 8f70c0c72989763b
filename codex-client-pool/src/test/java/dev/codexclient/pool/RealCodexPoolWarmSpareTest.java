package dev.codexclient.pool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.RestartPolicy;
import dev.codexclient.errors.CodexException;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pool of one real app-server with a warm spare on the same {@code CODEX_HOME}: the member's server SIGKILLed, the
 * spare's server, started before the kill, serves the member at once (its pid is the spare's), the member's thread
 * goes on there with its conversation, the next spare starts, and close leaves no process behind. A turn running on
 * the lost server and one submitted in the moment of the kill end (typed, or completed on the spare), never hang,
 * while the lost client restores its server under its own policy and the pool closes it.
 */
@Tag("real-codex")
@Timeout(180)
class RealCodexPoolWarmSpareTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();

    @Test
    void aKilledMembersServerIsReplacedByTheSpareThatWasAlreadyRunning() throws Exception {
        Set<String> threadsBefore = PoolTestSupport.codexThreads();
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
            PoolTestSupport.awaitCondition("the spare is ready", WAIT, pool::warmSpareReady);
            long sparePid = spares.get(0).serverProcess().orElseThrow().pid();
            PooledThread thread = pool.startThread(codex.threadParams().build());
            assertThat(thread.startTurn("Remember the bird: kestrel.").await(WAIT).status())
                    .isEqualTo(TurnStatus.COMPLETED);

            CodexClient lost = pool.memberClient("a").orElseThrow();
            long lostPid = lost.serverProcess().orElseThrow().pid();
            lost.serverProcessTree().forEach(ProcessHandle::destroyForcibly);

            // The member now runs on the spare's server, which was started before the kill.
            PoolTestSupport.awaitCondition("the spare took the member's place", WAIT, () -> pool.stats().get(0)
                    .serverPid().filter(pid -> pid != lostPid).isPresent());
            MemberStats after = pool.stats().get(0);
            assertThat(after.serverPid()).contains(sparePid);
            assertThat(after.replacements()).isEqualTo(1);
            assertThat(pool.memberClient("a")).containsSame(spares.get(0));
            // The lost client is closed just after the swap, off the member's path.
            PoolTestSupport.awaitCondition("the lost client is closed", WAIT, lost::isClosed);

            assertThat(thread.startTurn("What bird did I name?").await(WAIT).finalText()).isEqualTo("A kestrel.");
            assertThat(codex.model.requests().stream().filter(r -> r.lastUserText().startsWith("What")).findFirst()
                    .orElseThrow().inputContains("Remember the bird: kestrel.")).isTrue();
            PoolTestSupport.awaitCondition("the next spare is ready", WAIT, pool::warmSpareReady);
            assertThat(spares).hasSize(2);
        } finally {
            pool.close();
        }
        assertThat(spares).allMatch(CodexClient::isClosed);
        PoolTestSupport.assertNoLeaks(threadsBefore);
    }

    /** How a turn ended: its status, or the type of its failure, which must be a {@code CodexException}. */
    private static String outcome(CompletableFuture<CodexTurn> started) throws Exception {
        try {
            return started.thenCompose(CodexTurn::result).get(WAIT.toSeconds(), TimeUnit.SECONDS).status().toString();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
            assertThat(cause).as("a turn that fails fails typed").isInstanceOf(CodexException.class);
            return "failed";
        } catch (TimeoutException e) {
            throw new AssertionError("a turn hung for " + WAIT, e);
        }
    }

    @Test
    void turnsRunningOrStartingOnTheLostServerEndWhenTheSpareTakesOver() throws Exception {
        Set<String> threadsBefore = PoolTestSupport.codexThreads();
        codex.model.whenAlways(r -> r.lastUserText().startsWith("slow"), ModelStep.stall(Duration.ofMinutes(5)));
        codex.model.whenAlways(r -> r.lastUserText().startsWith("hello"), ModelStep.reply("hi"));
        CodexPool pool = CodexPool.builder()
                .member("a", () -> codex.clientBuilder().restartPolicy(RestartPolicy.builder()
                        .backoff(Duration.ofMillis(50), Duration.ofSeconds(1)).build()).build())
                .warmSpare(() -> codex.clientBuilder().restartPolicy(RestartPolicy.builder()
                        .backoff(Duration.ofMillis(50), Duration.ofSeconds(1)).build()).build())
                .build();
        try {
            PoolTestSupport.awaitCondition("the spare is ready", WAIT, pool::warmSpareReady);
            PooledThread running = pool.startThread(codex.threadParams().build());
            PooledThread starting = pool.startThread(codex.threadParams().build());
            assertThat(starting.startTurn("hello first").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            CompletableFuture<CodexTurn> slow = CompletableFuture.completedFuture(running.startTurn("slow turn"));
            CodexClient lost = pool.memberClient("a").orElseThrow();
            long lostPid = lost.serverProcess().orElseThrow().pid();
            // The lost client restores its server under its policy while the pool swaps the spare in and closes it.
            lost.serverProcessTree().forEach(ProcessHandle::destroyForcibly);
            CompletableFuture<CodexTurn> submitted = starting.startTurnAsync("hello again");

            assertThat(outcome(slow)).isIn("failed", "INTERRUPTED", "FAILED");
            assertThat(outcome(submitted)).isIn("failed", "COMPLETED");
            PoolTestSupport.awaitCondition("the spare took the member's place", WAIT, () -> pool.stats().get(0)
                    .serverPid().filter(pid -> pid != lostPid).isPresent());
            assertThat(starting.startTurn("hello after").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
        } finally {
            pool.close();
        }
        PoolTestSupport.assertNoLeaks(threadsBefore);
    }
}

package dev.codexclient.pool;

import static dev.codexclient.pool.PoolTestSupport.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.TurnResult;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.IsolatedHome;
import dev.codexclient.testkit.ModelRequest;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real {@code codex app-server --listen} servers on one {@code CODEX_HOME}, in a pool told that its members share
 * their storage: a thread with turns on the first server goes on on the second after the first is SIGKILLed for good,
 * and its next turn carries the whole conversation to the model; a thread that never had a turn there is started
 * again on the second.
 */
@Tag("real-codex")
@Timeout(240)
class RealCodexPoolSharedStorageTest {
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path workspace;

    private final ScriptedModelServer model = ScriptedModelServer.start();
    private final IsolatedHome home = IsolatedHome.create();

    @AfterEach
    void stop() {
        model.close();
        home.close();
    }

    private ThreadStartParams params() {
        return ThreadStartParams.builder().cwd(workspace.toString()).approvalPolicy(AskForApproval.Simple.UNTRUSTED)
                .sandbox(SandboxMode.WORKSPACE_WRITE).build();
    }

    private static String state(CodexPool pool, String member) {
        return pool.stats().stream().filter(s -> s.name().equals(member)).findFirst()
                .map(s -> s.state().name()).orElse("ABSENT");
    }

    private static TurnResult turn(PooledThread thread, String text) {
        return thread.startTurn(text).await(WAIT);
    }

    @Test
    void aThreadOutlivesThePermanentLossOfItsMemberWithItsConversation() throws Exception {
        model.writeCodexHome(home.codexHome());
        model.whenAlways(r -> r.lastUserText().startsWith("Remember"), ModelStep.reply("Noted: heron."));
        model.whenAlways(r -> r.lastUserText().startsWith("Something else"), ModelStep.reply("Sure."));
        model.whenAlways(r -> r.lastUserText().startsWith("Which bird"), ModelStep.reply("The heron."));
        model.whenAlways(r -> r.lastUserText().startsWith("hello"), ModelStep.reply("hi"));
        try (ListeningCodex a = new ListeningCodex(home, workspace).start();
             ListeningCodex b = new ListeningCodex(home, workspace).start();
             CodexPool pool = CodexPool.builder()
                     .member("a", a.uri(), a::client).member("b", b.uri(), b::client)
                     .sharedStorage(true)
                     .healthCheckEvery(Duration.ofMillis(200), Duration.ofSeconds(2)).ejectAfter(2)
                     .readmitBackoff(Duration.ofMinutes(1), Duration.ofMinutes(2))
                     .build()) {
            PooledThread kept = pool.startThread(params());
            PooledThread other = pool.startThread(params());
            PooledThread fresh = pool.startThread(params());
            assertThat(List.of(kept.memberName(), other.memberName(), fresh.memberName()))
                    .containsExactly("a", "b", "a");
            String keptId = kept.id();
            String freshId = fresh.id();
            assertThat(turn(kept, "Remember the bird: heron.").finalText()).isEqualTo("Noted: heron.");
            assertThat(turn(kept, "Something else now.").finalText()).isEqualTo("Sure.");

            // a is gone for good: its checks fail until it is ejected.
            a.kill();
            awaitCondition("a is ejected", WAIT, () -> state(pool, "a").equals(MemberState.EJECTED.name()));

            TurnResult after = turn(kept, "Which bird did I name?");
            assertThat(after.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(after.finalText()).isEqualTo("The heron.");
            assertThat(kept.memberName()).isEqualTo("b");
            assertThat(kept.id()).isEqualTo(keptId);
            // What b's codex sent the model: the conversation held on a, read from the storage they share.
            ModelRequest asked = model.requests().stream()
                    .filter(r -> r.lastUserText().startsWith("Which bird")).findFirst().orElseThrow();
            assertThat(asked.inputContains("Remember the bird: heron.")).isTrue();
            assertThat(asked.inputContains("Noted: heron.")).isTrue();
            assertThat(asked.inputContains("Something else now.")).isTrue();
            assertThat(asked.inputContains("Sure.")).isTrue();

            // A thread that never had a turn was never stored: it starts again on b, with a new id.
            assertThat(turn(fresh, "hello").status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(fresh.memberName()).isEqualTo("b");
            assertThat(fresh.id()).isNotEqualTo(freshId);
            assertThat(turn(other, "hello").status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(pool.stats().stream().filter(s -> s.name().equals("b")).findFirst().orElseThrow().threads())
                    .isEqualTo(3);
        }
    }
}

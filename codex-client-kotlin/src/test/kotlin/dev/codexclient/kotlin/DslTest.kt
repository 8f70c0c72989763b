package dev.codexclient.kotlin

import dev.codexclient.ApprovalPolicy
import dev.codexclient.protocol.AskForApproval
import dev.codexclient.protocol.SandboxMode
import dev.codexclient.protocol.TurnStatus
import dev.codexclient.testkit.CodexTestExtension
import dev.codexclient.testkit.FakeCodexAppServer
import java.nio.file.Path
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.test.runTest
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith

/** The DSL of the client, the thread's params and the turn's inputs, as they reach the server; nullable results. */
@ExtendWith(CodexTestExtension::class)
class DslTest {
    @Test
    fun theClientDslConfiguresTheClient(fake: FakeCodexAppServer) = runTest {
        client(fake) {
            clientInfo("acme-bot", "Acme Bot", "1.4.0")
            requestTimeout = 5.seconds
            approvals(ApprovalPolicy.declineAll())
        }.use { codex ->
            assertThat(fake.clientInfo().get().path("name").asText()).isEqualTo("acme-bot")
            assertThat(codex.serverInfo().userAgent).isNotNull()
        }
    }

    @Test
    fun theThreadAndTurnDslsSendWhatTheySay(fake: FakeCodexAppServer) = runTest {
        fake.onTurnStart { turn -> turn.agentMessage("seen").tokenUsage(120, 30).completed() }
        client(fake).use { codex ->
            val thread = codex.startThreadAndAwait {
                cwd(Path.of("/work/repo"))
                sandbox(SandboxMode.WORKSPACE_WRITE)
                approvalPolicy(AskForApproval.Simple.UNTRUSTED)
            }
            val result = thread.startTurnAndAwait {
                text("What is on this screenshot?")
                localImage(Path.of("/tmp/screen.png"))
                params { effort("high") }
            }.await()

            val start = fake.requests().first { it.method() == "thread/start" }.params()
            assertThat(start.path("cwd").asText()).isEqualTo("/work/repo")
            assertThat(start.path("sandbox").asText()).isEqualTo("workspace-write")
            assertThat(start.path("approvalPolicy").asText()).isEqualTo("untrusted")
            val turn = fake.requests().first { it.method() == "turn/start" }.params()
            assertThat(turn.path("input").map { it.path("type").asText() }).containsExactly("text", "localImage")
            assertThat(turn.path("input").path(1).path("path").asText()).isEqualTo("/tmp/screen.png")
            assertThat(turn.path("effort").asText()).isEqualTo("high")

            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED)
            assertThat(result.usage?.last()?.outputTokens()).isEqualTo(30)
            assertThat(result.error).isNull()
            assertThat(result.turnId).isEqualTo(result.turnId().get())
            assertThat(result.lastDiff).isNull()
        }
    }

    @Test
    fun steeringAndReadingSuspend(fake: FakeCodexAppServer) = runTest {
        fake.onTurnStart { turn -> turn.agentMessage("working").pause(java.time.Duration.ofHours(1)).completed() }
        client(fake).use { codex ->
            val thread = codex.startThreadAndAwait()
            val turn = thread.startTurnAndAwait("start")
            assertThat(turn.steerAndAwait { text("also this") }.turnId()).isEqualTo(turn.id())
            assertThat(turn.interrupt().status()).isEqualTo(TurnStatus.INTERRUPTED)
            thread.setNameAndAwait("renamed")
            assertThat(thread.readAndAwait().name()).isEqualTo("renamed")
            val fork = thread.forkAndAwait()
            assertThat(fork.id()).isNotEqualTo(thread.id())
            val resumed = codex.resumeThreadAndAwait(thread.id())
            assertThat(resumed.id()).isEqualTo(thread.id())
        }
    }
}

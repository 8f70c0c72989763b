package dev.codexclient.kotlin

import dev.codexclient.ApprovalDecision
import dev.codexclient.CodexClient
import dev.codexclient.CodexTurn
import dev.codexclient.protocol.AskForApproval
import dev.codexclient.protocol.CommandExecutionStatus
import dev.codexclient.protocol.SandboxMode
import dev.codexclient.protocol.ServerNotification
import dev.codexclient.protocol.ThreadItem
import dev.codexclient.protocol.TurnStatus
import dev.codexclient.testkit.CodexBinary
import dev.codexclient.testkit.ModelStep
import dev.codexclient.testkit.ScriptedModelServer
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.TimeUnit
import kotlin.io.path.createTempDirectory
import kotlin.io.path.readText
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.flow.filterIsInstance
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.future.await
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Tag
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout

/**
 * The Kotlin API against the real codex app-server, driven offline by the testkit's scripted model: an approval
 * decided by a suspend lambda, a dynamic tool of data classes, structured output into a data class, and a cancelled
 * coroutine that interrupts codex's turn and stops the command it ran.
 */
@Tag("real-codex")
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RealCodexKotlinTest {
    private val model = ScriptedModelServer.start()
    private val workspace: Path = createTempDirectory("codex-kotlin-ws")

    @AfterEach
    fun close() {
        model.close()
        workspace.toFile().deleteRecursively()
    }

    private suspend fun codex(configure: CodexClientScope.() -> Unit = {}): CodexClient = CodexClient {
        codexBinary = CodexBinary.pinned()
        workingDirectory = workspace
        requestTimeout = 30.seconds
        interruptGracePeriod = 10.seconds
        builder.stdio(model::applyEnvironment)
        configure()
    }

    @Test
    fun aCommandApprovedBySuspendLambdaRuns(): Unit = runBlocking {
        model.enqueue(ModelStep.callTool("exec_command", mapOf("cmd" to "printf 'from-kotlin\\n' | tee out.txt",
            "login" to false)), ModelStep.reply("written"))
        val asked = CopyOnWriteArrayList<String>()
        codex {
            commandApprovals { command ->
                asked += command.params().command()
                withContext(Dispatchers.IO) { ApprovalDecision.ACCEPT }
            }
        }.use { codex ->
            val result = codex.startThreadAndAwait {
                cwd(workspace)
                approvalPolicy(AskForApproval.Simple.UNTRUSTED)
                sandbox(SandboxMode.WORKSPACE_WRITE)
            }.startTurnAndAwait("write a file").await()

            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED)
            assertThat(asked).singleElement().asString().contains("tee out.txt")
            assertThat(result.itemsOf(ThreadItem.CommandExecution::class.java).single().status())
                .isEqualTo(CommandExecutionStatus.COMPLETED)
            assertThat(workspace.resolve("out.txt").readText()).isEqualTo("from-kotlin\n")
        }
    }

    data class TicketQuery(val id: String)
    data class Ticket(val id: String, val status: String, val priority: Int)

    @Test
    fun aDynamicToolOfDataClassesAnswersTheModel(): Unit = runBlocking {
        model.enqueue(ModelStep.callTool("lookup_ticket", mapOf("id" to "ABC-123")), ModelStep.reply("It is open."))
        codex {
            experimentalApi = true
            tool("lookup_ticket", "Look up a ticket by id") { args: TicketQuery -> Ticket(args.id, "OPEN", 2) }
        }.use { codex ->
            val result = codex.startThreadAndAwait { cwd(workspace) }.startTurnAndAwait("check ABC-123").await()

            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED)
            assertThat(model.requests()[0].tools()).contains("lookup_ticket")
            val output = model.requests()[1].functionCallOutputs().values.single()
            assertThat(output).contains("""{"id":"ABC-123","status":"OPEN","priority":2}""")
        }
    }

    data class Verdict(val safe: Boolean, val risks: List<String>, val reviewer: String?)

    @Test
    fun structuredOutputParsesIntoADataClass(): Unit = runBlocking {
        model.enqueue(ModelStep.json(mapOf("safe" to false, "risks" to listOf("deletes files"), "reviewer" to null)))
        codex().use { codex ->
            val verdict = codex.startThreadAndAwait { cwd(workspace) }
                .startTurnAndAwait { text("Is it safe?"); outputType<Verdict>() }
                .awaitAs<Verdict>()

            assertThat(verdict).isEqualTo(Verdict(false, listOf("deletes files"), null))
            assertThat(model.requests()[0].textFormat().map { it.toString() }).hasValueSatisfying {
                assertThat(it).contains("risks").contains("reviewer")
            }
        }
    }

    /**
     * The model runs a command that writes its pid into a FIFO, then sleeps; reading the FIFO waits for the command,
     * with no polling. Cancelling the coroutine that owns the turn stops it: codex ends the turn interrupted, and the
     * command's process exits (an interrupt alone leaves it running as a background terminal; the stop ends it, with
     * the experimental API).
     */
    @Test
    fun cancellingTheCoroutineInterruptsCodexsTurnAndStopsItsCommand(): Unit = runBlocking {
        val fifo = workspace.resolve("started.fifo")
        assertThat(ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero()
        model.enqueue(ModelStep.callTool("exec_command", mapOf("cmd" to "echo $$ > started.fifo; exec sleep 120",
            "login" to false)), ModelStep.reply("slept"))
        codex { experimentalApi = true }.use { codex ->
            val thread = codex.startThreadAndAwait {
                cwd(workspace)
                approvalPolicy(AskForApproval.Simple.NEVER)
                sandbox(SandboxMode.DANGER_FULL_ACCESS)
            }
            val started = CompletableDeferred<CodexTurn>()
            val work = launch(Dispatchers.Default, CoroutineStart.UNDISPATCHED) {
                val turn = thread.startTurnAndAwait("sleep a while")
                started.complete(turn)
                turn.await()
            }
            val turn = started.await()
            val commandStarted = launch {
                turn.asFlow().filterIsInstance<ServerNotification.ItemStarted>()
                    .first { it.params().item() is ThreadItem.CommandExecution }
            }
            val pid = withContext(Dispatchers.IO) { Files.readString(fifo).trim().toLong() }
            val command = ProcessHandle.of(pid).orElseThrow()
            // The shell may not have exec'd sleep yet (its pid is already the command's): ask codex's process tree.
            assertThat(codex.serverProcessTree().map { it.pid() }).`as`("the processes codex started").contains(pid)
            commandStarted.join()

            work.cancelAndJoin()

            assertThat(turn.isDone).`as`("the turn ended before the cancelled coroutine did").isTrue()
            assertThat(turn.result().get(1, TimeUnit.SECONDS).status()).isEqualTo(TurnStatus.INTERRUPTED)
            // codex keeps an interrupted turn's command running as a background terminal; stopping the turn ended it.
            withTimeout(30.seconds) { command.onExit().await() }
            assertThat(command.isAlive).`as`("the command codex ran").isFalse()
        }
    }
}

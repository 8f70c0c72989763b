package dev.codexclient.kotlin

import dev.codexclient.ApprovalDecision
import dev.codexclient.CodexClient
import dev.codexclient.CodexTurn
import dev.codexclient.protocol.ThreadItem
import dev.codexclient.protocol.TurnStatus
import dev.codexclient.testkit.CodexTestExtension
import dev.codexclient.testkit.FakeCodexAppServer
import java.time.Duration
import java.util.concurrent.TimeUnit
import kotlin.time.Duration.Companion.hours
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.flow.filterIsInstance
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith

/**
 * Cancellation means something: cancelling the coroutine that awaits a turn interrupts it, so does withTimeout, a
 * cancelled scope interrupts the turns it started, and a scope that ends waits for them. Virtual time: withTimeout's
 * hour passes without a wait.
 */
@ExtendWith(CodexTestExtension::class)
class CancellationTest {
    /** A turn that runs until it is interrupted: the fake's pause ends early on turn/interrupt. */
    private fun FakeCodexAppServer.runsUntilInterrupted() =
        onTurnStart { turn -> turn.agentMessage("working").pause(Duration.ofHours(1)).completed() }

    /** The turn's result, which a test that passes has at once; a bounded wait, so that a failing one fails. */
    private fun endOf(turn: CodexTurn) = turn.result().get(10, TimeUnit.SECONDS)

    private fun FakeCodexAppServer.interruptsReceived(): Int =
        requests().count { it.method() == "turn/interrupt" }

    @Test
    fun cancellingTheCoroutineThatAwaitsATurnInterruptsIt(fake: FakeCodexAppServer) = runTest {
        fake.runsUntilInterrupted()
        client(fake).use { codex ->
            // Started by another scope: only the awaiter's cancellation can interrupt it.
            val turn = codex.startThread().startTurnAsync("work").join()
            val awaiter = launch(start = CoroutineStart.UNDISPATCHED) { turn.await() }
            awaiter.cancelAndJoin()

            assertThat(turn.isDone).`as`("the turn ended before the cancelled awaiter did").isTrue()
            assertThat(endOf(turn).status()).isEqualTo(TurnStatus.INTERRUPTED)
            assertThat(fake.takeRequest("turn/interrupt", Duration.ofSeconds(1)).params().path("turnId").asText())
                .isEqualTo(turn.id())
        }
    }

    @Test
    fun withTimeoutAroundAnAwaitInterruptsTheTurnInVirtualTime(fake: FakeCodexAppServer) = runTest {
        fake.runsUntilInterrupted()
        client(fake).use { codex ->
            val turn = codex.startThread().startTurnAsync("work").join()
            val started = System.nanoTime()

            val timedOut = runCatching { withTimeout(1.hours) { turn.await() } }.exceptionOrNull()

            assertThat(timedOut).isInstanceOf(TimeoutCancellationException::class.java)
            assertThat(testScheduler.currentTime).isEqualTo(1.hours.inWholeMilliseconds)
            assertThat(TimeUnit.NANOSECONDS.toMinutes(System.nanoTime() - started)).isLessThan(1)
            assertThat(turn.isDone).`as`("the turn ended before withTimeout threw").isTrue()
            assertThat(endOf(turn).status()).isEqualTo(TurnStatus.INTERRUPTED)
            assertThat(fake.interruptsReceived()).isEqualTo(1)
        }
    }

    @Test
    fun aCancelledScopeInterruptsTheTurnItStartedAndEndsAfterIt(fake: FakeCodexAppServer) = runTest {
        fake.runsUntilInterrupted()
        client(fake).use { codex ->
            val thread = codex.startThreadAndAwait()
            val turnStarted = CompletableDeferred<CodexTurn>()
            val owner = launch {
                turnStarted.complete(thread.startTurnAndAwait("work"))
                // Does not await it: the scope owns the turn all the same.
            }
            val turn = turnStarted.await()
            assertThat(owner.isActive).`as`("the scope waits for its turn").isTrue()

            owner.cancelAndJoin()

            assertThat(turn.isDone).isTrue()
            assertThat(endOf(turn).status()).isEqualTo(TurnStatus.INTERRUPTED)
            assertThat(fake.interruptsReceived()).isEqualTo(1)
        }
    }

    @Test
    fun aScopeThatEndsWaitsForItsTurnAndDoesNotInterruptIt(fake: FakeCodexAppServer) = runTest {
        val decide = CompletableDeferred<ApprovalDecision>()
        fake.onTurnStart { turn -> turn.commandApproval("make test") { }.agentMessage("tested").completed() }
        client(fake) { commandApprovals { decide.await() } }.use { codex ->
            val thread = codex.startThreadAndAwait()
            val bodyReturned = CompletableDeferred<CodexTurn>()
            val scope = launch {
                bodyReturned.complete(thread.startTurnAndAwait("test it"))
            }
            // The turn waits for the approval, which waits for the test.
            val turn = bodyReturned.await()
            assertThat(scope.isCompleted).`as`("the scope's body returned, its turn runs: the scope waits").isFalse()

            decide.complete(ApprovalDecision.ACCEPT)
            scope.join()

            assertThat(turn.isDone).isTrue()
            assertThat(endOf(turn).status()).isEqualTo(TurnStatus.COMPLETED)
            assertThat(fake.interruptsReceived()).isZero()
        }
    }

    @Test
    fun aTurnWhoseStartWasCancelledIsInterruptedOnceItExists(fake: FakeCodexAppServer) = runTest {
        fake.on("turn/start").once().delay(Duration.ofMillis(200)).respondDefault()
        fake.runsUntilInterrupted()
        client(fake).use { codex ->
            val thread = codex.startThreadAndAwait()
            val starting = launch(start = CoroutineStart.UNDISPATCHED) { thread.startTurnAndAwait("work") }
            fake.takeRequest("turn/start", Duration.ofSeconds(10))

            starting.cancelAndJoin()

            // The start was answered after the cancellation: nobody owns that turn, so it is interrupted.
            val interrupt = fake.takeRequest("turn/interrupt", Duration.ofSeconds(10))
            assertThat(interrupt.params().path("threadId").asText()).isEqualTo(thread.id())
        }
    }

    @Test
    fun cancellingAFlowsCollectionUnsubscribes(fake: FakeCodexAppServer) = runTest {
        fake.runsUntilInterrupted()
        client(fake).use { codex: CodexClient ->
            val thread = codex.startThreadAndAwait()
            val collecting = launch(start = CoroutineStart.UNDISPATCHED) { thread.asFlow().collect { } }
            assertThat(codex.threadOrNull(thread.id())).`as`("held while its flow is collected").isNotNull()

            collecting.cancelAndJoin()

            assertThat(codex.threadOrNull(thread.id())).`as`("let go of once the collection is cancelled").isNull()
        }
    }

    @Test
    fun cancellingWhileTheTurnIsDoneChangesNothing(fake: FakeCodexAppServer) = runTest {
        fake.onTurnStart { turn -> turn.agentMessage("done").completed() }
        client(fake).use { codex ->
            val turn = codex.startThreadAndAwait().startTurnAndAwait("quick")
            val result = turn.await()
            coroutineScope { launch { turn.await() }.cancelAndJoin() }
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED)
            assertThat(fake.interruptsReceived()).isZero()
        }
    }

    @Test
    fun aCancelledOwnerEndsTheCommandsItsTurnLeftRunningAndOnlyThose(fake: FakeCodexAppServer) = runTest {
        fake.onTurnStart { turn ->
            turn.commandExecution("npm run dev", "", 0).pause(Duration.ofHours(1)).completed()
        }
        // The thread's background terminals, as codex lists them: this turn's command and one of an earlier turn.
        fake.on("thread/backgroundTerminals/list").always().respondWith {
            mapOf("data" to listOf(
                mapOf("command" to "npm run dev", "cwd" to "/w", "itemId" to commandItemId, "processId" to 41),
                mapOf("command" to "make serve", "cwd" to "/w", "itemId" to "an-earlier-turns", "processId" to 7)),
                "nextCursor" to null)
        }
        fake.on("thread/backgroundTerminals/terminate").always().respond(mapOf("terminated" to true))
        client(fake) { experimentalApi = true }.use { codex ->
            val thread = codex.startThreadAndAwait()
            val turnStarted = CompletableDeferred<CodexTurn>()
            val owner = launch { turnStarted.complete(thread.startTurnAndAwait("serve")) }
            val turn = turnStarted.await()
            commandItemId = turn.completedItems().filterIsInstance<ThreadItem.CommandExecution>().first().id()

            owner.cancelAndJoin()

            assertThat(endOf(turn).status()).isEqualTo(TurnStatus.INTERRUPTED)
            val terminated = fake.takeRequest("thread/backgroundTerminals/terminate", Duration.ofSeconds(10))
            assertThat(terminated.params().path("processId").asInt()).isEqualTo(41)
            assertThat(fake.requests().count { it.method() == "thread/backgroundTerminals/terminate" }).isEqualTo(1)
        }
    }

    @Volatile
    private var commandItemId: String = ""
}

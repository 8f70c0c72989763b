package dev.codexclient.kotlin

import dev.codexclient.protocol.TurnStatus
import dev.codexclient.testkit.CodexTestExtension
import dev.codexclient.testkit.FakeCodexAppServer
import dev.codexclient.testkit.Recording
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.TimeUnit
import kotlin.time.Duration.Companion.minutes
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.test.StandardTestDispatcher
import kotlinx.coroutines.test.runTest
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension

/**
 * A thousand turns at once from one dispatcher thread: each starts a thread and a turn and awaits it, and each turn
 * calls a tool whose suspend handler waits until every one of the thousand calls has arrived. So no turn can end
 * before all thousand are in flight together: a call that held the dispatcher's thread, or a thread of any pool,
 * until its turn ended would leave the later turns unstarted and the gate shut, and the test would time out.
 */
class ConcurrentTurnsTest {
    @JvmField
    @RegisterExtension
    val extension: CodexTestExtension = CodexTestExtension.builder()
        .resource(FakeCodexAppServer::class.java) { FakeCodexAppServer.builder().recording(Recording.off()).build() }
        .build()

    data class Ping(val n: Int)

    @Test
    // A thread held by a blocking call would hang runTest's own thread, which runTest's timeout cannot end.
    @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    fun aThousandTurnsRunAtOnceOnOneDispatcherThread(fake: FakeCodexAppServer) = runTest(timeout = 3.minutes) {
        val turns = 1_000
        // The fake's turn waits for the tool's answer (not the default 10 s, after which it would go on without it).
        val answered = AtomicInteger()
        fake.serverRequestTimeout(java.time.Duration.ofMinutes(10))
        fake.onTurnStart { turn ->
            turn.toolCall("ping", mapOf("n" to 1)) { reply ->
                if (reply.result().path("contentItems").path(0).path("text").asText() == "pong") {
                    answered.incrementAndGet()
                }
            }.agentMessage("pong").completed()
        }
        val arrived = AtomicInteger()
        val allArrived = CompletableDeferred<Unit>()
        val threads = ConcurrentHashMap.newKeySet<Thread>()
        // The handlers run on the test's dispatcher too: one thread for everything the test's coroutines do.
        val dispatcher = StandardTestDispatcher(testScheduler)
        client(fake) {
            experimentalApi = true
            handlerContext = dispatcher
            tool("ping", "answers once every call has come") { _: Ping ->
                threads += Thread.currentThread()
                if (arrived.incrementAndGet() == turns) {
                    allArrived.complete(Unit)
                }
                allArrived.await()
                "pong"
            }
        }.use { codex ->
            val results = (1..turns).map {
                async {
                    val thread = codex.startThreadAndAwait()
                    val turn = thread.startTurnAndAwait("ping")
                    turn.await().also { threads += Thread.currentThread() }
                }
            }.awaitAll()

            assertThat(results).hasSize(turns).allSatisfy { assertThat(it.status()).isEqualTo(TurnStatus.COMPLETED) }
            assertThat(results.map { it.finalText() }.distinct()).containsExactly("pong")
            assertThat(arrived.get()).isEqualTo(turns)
            assertThat(answered.get()).`as`("tool calls the fake's turns had answered").isEqualTo(turns)
            assertThat(threads).containsExactly(Thread.currentThread())
        }
    }
}

package dev.codexclient.kotlin

import dev.codexclient.errors.CodexBackpressureException
import dev.codexclient.turnListeners
import dev.codexclient.errors.CodexTurnFailedException
import dev.codexclient.protocol.ServerNotification
import dev.codexclient.protocol.ThreadItem
import dev.codexclient.testkit.CodexTestExtension
import dev.codexclient.testkit.FakeCodexAppServer
import java.time.Duration
import java.util.concurrent.CancellationException
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.runTest
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith

/** The turn's, the thread's, the list's and the search's flows: order, ends, backpressure, cancellation. */
@ExtendWith(CodexTestExtension::class)
class FlowsTest {
    @Test
    fun aTurnsFlowHasItsEventsInOrderFromItsStartAndCompletesAfterTheLast(fake: FakeCodexAppServer) = runTest {
        fake.onTurnStart { turn -> turn.agentMessageDeltas("one ", "two ", "three").completed() }
        client(fake).use { codex ->
            val turn = codex.startThreadAndAwait().startTurnAndAwait("count")
            turn.await()
            // Collected after the end: the replay, then the end.
            val events = turn.asFlow().toList()
            assertThat(events.first()).isInstanceOf(ServerNotification.TurnStarted::class.java)
            assertThat(events.last()).isInstanceOf(ServerNotification.TurnCompleted::class.java)
            assertThat(turn.agentMessageDeltas().map { it.delta() }.toList()).containsExactly("one ", "two ", "three")
            assertThat(turn.completedItems().toList().filterIsInstance<ThreadItem.AgentMessage>().single().text())
                .isEqualTo("one two three")
        }
    }

    @Test
    fun aFailedTurnsFlowThrowsTheTurnsFailureAfterItsEvents(fake: FakeCodexAppServer) = runTest {
        fake.onTurnStart { turn -> turn.agentMessage("trying").failed("quota exceeded") }
        client(fake).use { codex ->
            val turn = codex.startThreadAndAwait().startTurnAndAwait("try")
            val seen = mutableListOf<ServerNotification>()
            val failure = runCatching { turn.asFlow().collect { seen += it } }.exceptionOrNull()
            assertThat(failure).isInstanceOf(CodexTurnFailedException::class.java).hasMessageContaining("quota exceeded")
            assertThat(seen.last()).isInstanceOf(ServerNotification.TurnCompleted::class.java)
        }
    }

    @Test
    fun aSlowCollectorGetsEveryEventAsTheFlowRequestsThem(fake: FakeCodexAppServer) = runTest {
        val deltas = (1..500).map { "d$it " }
        fake.onTurnStart { turn -> turn.agentMessageDeltas(*deltas.toTypedArray()).completed() }
        client(fake).use { codex ->
            val turn = codex.startThreadAndAwait().startTurnAndAwait("stream")
            // A second of (virtual) work per delta: the flow's demand, not the connection, paces the deliveries; what
            // arrives beyond it waits in the subscription's buffer (publisherBufferSize, 4096 by default).
            val got = turn.agentMessageDeltas().map { delay(1.seconds); it.delta() }.toList()
            assertThat(got).isEqualTo(deltas)
        }
    }

    @Test
    fun aCollectorThatStopsTakingOverflowsThePublishersBufferAndOnlyItFails(fake: FakeCodexAppServer) = runTest {
        val hold = CompletableDeferred<Unit>()
        fake.onTurnStart { turn -> turn.agentMessageDeltas(*Array(400) { "x" }).completed() }
        client(fake) { builder.publisherBufferSize(16) }.use { codex ->
            val thread = codex.startThreadAndAwait()
            val slow = async(start = CoroutineStart.UNDISPATCHED) {
                runCatching { thread.asFlow().collect { hold.await() } }.exceptionOrNull()
            }
            val turn = thread.startTurnAndAwait("flood")
            // The flow requests its channel's 64 and the subscription holds 16 more: 400 deltas overflow it, and the
            // turn goes on; the collector learns it when it takes the next event.
            assertThat(turn.await().finalText()).hasSize(400)
            hold.complete(Unit)
            assertThat(slow.await()).isInstanceOf(CodexBackpressureException::class.java)
        }
    }

    @Test
    fun theThreadListIsFetchedPageByPageAsTheCollectorNeedsIt(fake: FakeCodexAppServer) = runTest {
        client(fake).use { codex ->
            val ids = (1..7).map { codex.startThreadAndAwait().id() }
            val before = fake.requests().count { it.method() == "thread/list" }

            val all = codex.listThreadsFlow { limit(3) }.map { it.id() }.toList()
            val pages = fake.requests().count { it.method() == "thread/list" } - before
            val firstTwo = codex.listThreadsFlow { limit(3) }.take(2).map { it.id() }.toList()
            val pagesForTwo = fake.requests().count { it.method() == "thread/list" } - before - pages

            assertThat(all).containsExactlyInAnyOrderElementsOf(ids)
            assertThat(pages).isEqualTo(3)
            assertThat(firstTwo).isEqualTo(all.take(2))
            assertThat(pagesForTwo).isEqualTo(1)
        }
    }

    @Test
    fun aSearchsRowsAreAFlowAndItsPageIsAwaited(fake: FakeCodexAppServer) = runTest {
        client(fake) { experimentalApi = true }.use { codex ->
            val invoices = (1..3).map { codex.startThreadAndAwait().also { t -> t.setNameAndAwait("invoice $it") } }
            codex.startThreadAndAwait().setNameAndAwait("receipt")

            codex.searchThreads("invoice").use { search ->
                val rows = search.asFlow().map { it.thread().id() }.toList()
                val page = search.await()
                assertThat(rows).containsExactlyInAnyOrderElementsOf(invoices.map { it.id() })
                assertThat(page.data().map { it.thread().id() }).containsExactlyInAnyOrderElementsOf(rows)
            }
        }
    }

    @Test
    fun cancellingTheAwaitOfASearchCancelsTheSearch(fake: FakeCodexAppServer) = runTest {
        fake.holdThreadSearches(true)
        client(fake) { experimentalApi = true }.use { codex ->
            codex.startThreadAndAwait().setNameAndAwait("invoice")
            val search = codex.searchThreads("invoice")
            val awaiting = launch(start = CoroutineStart.UNDISPATCHED) { search.await() }
            awaiting.cancelAndJoin()

            assertThat(fake.takeRequest("thread/search/stream/cancel", Duration.ofSeconds(10))).isNotNull()
            assertThat(runCatching { search.result().join() }.exceptionOrNull())
                .isInstanceOf(CancellationException::class.java)
        }
    }

    @Test
    fun aThreadsFlowIsHotAndEndsWhenTheThreadIsArchived(fake: FakeCodexAppServer) = runTest {
        fake.onTurnStart { turn -> turn.agentMessage("hi").completed() }
        client(fake).use { codex ->
            val thread = codex.startThreadAndAwait()
            val events = async(start = CoroutineStart.UNDISPATCHED) { thread.asFlow().toList() }
            thread.startTurnAndAwait("hello").await()
            thread.archiveAndAwait()
            val seen = events.await()
            assertThat(seen.indexOfFirst { it is ServerNotification.TurnStarted })
                .isNotNegative().isLessThan(seen.indexOfFirst { it is ServerNotification.TurnCompleted })
        }
    }

    @Test
    fun firstStopsTheCollectionAndReleasesTheSubscription(fake: FakeCodexAppServer) = runTest {
        fake.onTurnStart { turn -> turn.agentMessageDeltas("a", "b", "c").pause(Duration.ofHours(1)).completed() }
        client(fake).use { codex ->
            val turn = codex.startThreadAndAwait().startTurnAndAwait("go")
            val before = turnListeners(turn)
            assertThat(turn.agentMessageDeltas().first().delta()).isEqualTo("a")
            assertThat(turnListeners(turn)).`as`("the subscription's listener, removed").isEqualTo(before)
            turn.interrupt()
        }
    }
}

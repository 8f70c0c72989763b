package dev.codexclient.kotlin

import dev.codexclient.CodexClient
import dev.codexclient.CodexExperimental
import dev.codexclient.CodexThread
import dev.codexclient.CodexTurn
import dev.codexclient.ThreadSearch
import dev.codexclient.protocol.AgentMessageDeltaNotification
import dev.codexclient.protocol.ServerNotification
import dev.codexclient.protocol.ThreadInfo
import dev.codexclient.protocol.ThreadItem
import dev.codexclient.protocol.ThreadListParams
import dev.codexclient.protocol.ThreadSearchResponse
import dev.codexclient.protocol.ThreadSearchResult
import kotlin.coroutines.cancellation.CancellationException
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.filterIsInstance
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.future.await
import kotlinx.coroutines.isActive
import kotlinx.coroutines.jdk9.asFlow
import kotlinx.coroutines.withContext

// Flows over the Java API's Flow.Publishers, through kotlinx-coroutines-jdk9: the collector's demand is the
// publisher's backpressure (the flow requests what its buffer holds, then as much as the collector took), and
// cancelling the collection cancels the subscription, which releases what the client held for it.

/**
 * The turn's events as a [Flow], from its start (replayed as far as the client's replay buffer reaches, then live),
 * as [CodexTurn.publisher] gives them: it completes after `turn/completed` when the turn completed or was
 * interrupted, and throws [dev.codexclient.errors.CodexTurnFailedException] after it when the turn failed, or the
 * exception [CodexTurn.result] fails with when the turn cannot end (the connection was lost).
 *
 * Each collection is a subscription of its own; cancelling the collection unsubscribes (it does not interrupt the
 * turn: cancelling the turn's owner or an awaiter does).
 */
public fun CodexTurn.asFlow(): Flow<ServerNotification> = publisher().asFlow()

/** The agent's text as it streams (`item/agentMessage/delta`), a [Flow] of the turn's events as [asFlow] gives. */
public fun CodexTurn.agentMessageDeltas(): Flow<AgentMessageDeltaNotification> =
    asFlow().filterIsInstance<ServerNotification.ItemAgentMessageDelta>().map { it.params() }

/** The items of the turn as they complete (`item/completed`), a [Flow] of the turn's events as [asFlow] gives. */
public fun CodexTurn.completedItems(): Flow<ThreadItem> =
    asFlow().filterIsInstance<ServerNotification.ItemCompleted>().map { it.params().item() }

/**
 * The thread's events (turn events included) as a hot [Flow]: each collection gets what arrives from its start on,
 * as [CodexThread.publisher] gives it. It completes when the thread's events stop (the server closed the thread, it
 * was archived or unsubscribed, or the client was closed) and throws
 * [dev.codexclient.errors.CodexTransportException] when the connection fails. The client holds the thread while a
 * collection runs; cancelling the collection lets go of it.
 */
public fun CodexThread.asFlow(): Flow<ServerNotification> = publisher().asFlow()

/**
 * Every notification of the connection as a hot [Flow], as [CodexClient.publisher] gives them: each collection gets
 * what arrives from its start on; it completes when the client is closed and throws
 * [dev.codexclient.errors.CodexTransportException] when the connection fails.
 */
public fun CodexClient.asFlow(): Flow<ServerNotification> = publisher().asFlow()

/**
 * The search's partial rows as a [Flow], from the first kept row on, as [ThreadSearch.publisher] gives them: it
 * completes once the search succeeded and throws its failure otherwise ([CancellationException] when cancelled).
 * Cancelling the collection does not cancel the search; closing it does (`search.use { ... }`).
 */
@CodexExperimental("thread/search/stream")
public fun ThreadSearch.asFlow(): Flow<ThreadSearchResult> = publisher().asFlow()

/**
 * Waits for the search's final page, like [ThreadSearch.await] without a timeout. Cancelling the calling coroutine
 * cancels the search (`thread/search/stream/cancel`), as cancelling an await of a turn interrupts it.
 *
 * @throws CancellationException when the search was cancelled
 */
@CodexExperimental("thread/search/stream")
public suspend fun ThreadSearch.await(): ThreadSearchResponse {
    try {
        return result().await()
    } catch (e: CancellationException) {
        if (!currentCoroutineContext().isActive && !isDone) {
            withContext(NonCancellable) { runCatching { cancel().await() } }
        }
        throw e
    }
}

/**
 * Every stored thread matching [params] as a cold [Flow]: one `thread/list` page is fetched when the collector needs
 * it, following `nextCursor`, so a collector that stops early (`take(10)`, `first { }`) fetches no more pages. Each
 * collection starts again from [params]' cursor (the first page when it has none). Like
 * [CodexClient.listThreads], without a thread waiting for a page.
 */
public fun CodexClient.listThreadsFlow(params: ThreadListParams = ThreadListParams.builder().build()): Flow<ThreadInfo> =
    flow {
        var cursor: String? = params.cursor()
        do {
            val page = rpc().threadList(params.toBuilder().cursor(cursor).build()).await()
            page.data()?.forEach { emit(it) }
            cursor = page.nextCursor()
        } while (!cursor.isNullOrEmpty())
    }

/** [listThreadsFlow] with the filter and page size [block] sets on the protocol's builder. */
public fun CodexClient.listThreadsFlow(block: ThreadListParams.Builder.() -> Unit): Flow<ThreadInfo> =
    listThreadsFlow(ThreadListParams.builder().apply(block).build())

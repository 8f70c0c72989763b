package dev.codexclient.kotlin

import dev.codexclient.Codex
import dev.codexclient.CodexClient
import dev.codexclient.CodexThread
import dev.codexclient.DynamicTool
import dev.codexclient.protocol.ThreadForkParams
import dev.codexclient.protocol.ThreadInfo
import dev.codexclient.protocol.ThreadResumeParams
import dev.codexclient.protocol.ThreadStartParams
import kotlinx.coroutines.future.await

// Threads from coroutines: the Java API's blocking calls, suspending on their async twins (no thread waits). The
// names end in AndAwait where the Java name is taken by the blocking form (as Spring's coroutine extensions do):
// a member wins over an extension of the same signature, so `thread.read()` in a coroutine would block.
// Cancelling a call returns at once; what the server was asked stays asked (a thread it starts is started).

/**
 * Starts a thread, like [Codex.startThread], suspending. On a pool, this is where the thread is placed.
 *
 * @param params the `thread/start` params (model, working directory, sandbox, ...); the server's defaults if left out
 * @param tools the thread's own tools (see [dynamicTool]); they need `experimentalApi = true`
 */
public suspend fun Codex.startThreadAndAwait(
    params: ThreadStartParams = ThreadStartParams.builder().build(),
    tools: List<DynamicTool> = emptyList(),
): CodexThread = startThreadAsync(params, tools).await()

/**
 * Starts a thread whose params are set by [block] on the protocol's builder, like [Codex.startThread], suspending.
 *
 * ```
 * val thread = codex.startThreadAndAwait {
 *     cwd(Path.of("/work/repo"))
 *     sandbox(SandboxMode.WORKSPACE_WRITE)
 * }
 * ```
 */
public suspend fun Codex.startThreadAndAwait(
    tools: List<DynamicTool> = emptyList(),
    block: ThreadStartParams.Builder.() -> Unit,
): CodexThread = startThreadAndAwait(ThreadStartParams.builder().apply(block).build(), tools)

/** Resumes a stored thread by id with its stored settings and turns, like [Codex.resumeThread], suspending. */
public suspend fun Codex.resumeThreadAndAwait(threadId: String): CodexThread = resumeThreadAsync(threadId).await()

/**
 * Resumes a stored thread by id to go on with it, leaving its turns out of the answer where the server can, like
 * [Codex.resumeThreadWithoutTurns], suspending.
 */
public suspend fun Codex.resumeThreadWithoutTurnsAndAwait(threadId: String): CodexThread =
    resumeThreadWithoutTurnsAsync(threadId).await()

/** Resumes a stored thread with overrides and its own tools, like [Codex.resumeThread], suspending. */
public suspend fun Codex.resumeThreadAndAwait(
    params: ThreadResumeParams,
    tools: List<DynamicTool> = emptyList(),
): CodexThread = resumeThreadAsync(params, tools).await()

/** Resumes the stored thread [threadId] with the overrides [block] sets, like [Codex.resumeThread], suspending. */
public suspend fun Codex.resumeThreadAndAwait(
    threadId: String,
    tools: List<DynamicTool> = emptyList(),
    block: ThreadResumeParams.Builder.() -> Unit,
): CodexThread = resumeThreadAndAwait(ThreadResumeParams.builder().threadId(threadId).apply(block).build(), tools)

/** Forks a thread by id, like [CodexClient.forkThread], suspending. */
public suspend fun CodexClient.forkThreadAndAwait(threadId: String): CodexThread = forkThreadAsync(threadId).await()

/** Forks a thread with overrides, like [CodexClient.forkThread], suspending. */
public suspend fun CodexClient.forkThreadAndAwait(params: ThreadForkParams): CodexThread =
    forkThreadAsync(params).await()

/** Reads the thread with its turns and refreshes [CodexThread.info], like [CodexThread.read], suspending. */
public suspend fun CodexThread.readAndAwait(): ThreadInfo = readAsync().await()

/** Sets the thread's name, like [CodexThread.setName], suspending. */
public suspend fun CodexThread.setNameAndAwait(name: String) {
    setNameAsync(name).await()
}

/** Archives the thread, like [CodexThread.archive], suspending. */
public suspend fun CodexThread.archiveAndAwait() {
    archiveAsync().await()
}

/** Brings an archived thread back, like [CodexThread.unarchive], suspending. */
public suspend fun CodexThread.unarchiveAndAwait() {
    unarchiveAsync().await()
}

/** Rolls the thread back to just before [turnId], like [CodexThread.revertTo], suspending. */
public suspend fun CodexThread.revertToAndAwait(turnId: String): ThreadInfo = revertToAsync(turnId).await()

/**
 * Compacts the thread's history and waits until codex has finished, like [CodexThread.compactAndAwait] without a
 * timeout (use `withTimeout`), suspending, so that the next turn can start at once. (`compactAsync().await()` returns
 * as soon as codex has started, as [CodexThread.compact] does.)
 */
public suspend fun CodexThread.compactAndAwait() {
    compactAndAwaitAsync().await()
}

/** Forks the thread into a new one with the same history, like [CodexThread.fork], suspending. */
public suspend fun CodexThread.forkAndAwait(): CodexThread = forkAsync().await()

/** Ends this connection's subscription to the thread, like [CodexThread.unsubscribe], suspending. */
public suspend fun CodexThread.unsubscribeAndAwait() {
    unsubscribeAsync().await()
}

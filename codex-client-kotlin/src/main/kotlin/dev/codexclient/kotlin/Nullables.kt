package dev.codexclient.kotlin

import com.fasterxml.jackson.databind.JsonNode
import dev.codexclient.CodexClient
import dev.codexclient.CodexThread
import dev.codexclient.CodexVersion
import dev.codexclient.ServerInfo
import dev.codexclient.ThreadSearch
import dev.codexclient.TurnResult
import dev.codexclient.errors.CodexRpcException
import dev.codexclient.errors.CodexTransportException
import dev.codexclient.errors.CodexTurnFailedException
import dev.codexclient.protocol.CodexErrorInfo
import dev.codexclient.protocol.RequestId
import dev.codexclient.protocol.ThreadItem
import dev.codexclient.protocol.ThreadTokenUsage
import dev.codexclient.protocol.Turn
import dev.codexclient.protocol.TurnError
import kotlin.jvm.optionals.getOrNull

// Nullable types where the Java API has Optional: each property has the name of the Java method it reads, so that
// `result.usage?.last()` reads as `result.usage()` would, with Kotlin's null safety in place of Optional's methods.

/** The turn's id; null only when the turn ended before the server named it. [TurnResult.turnId] */
public val TurnResult.turnId: String? get() = turnId().getOrNull()

/** The turn object of `turn/completed`; null when the server sent none. [TurnResult.turn] */
public val TurnResult.turn: Turn? get() = turn().getOrNull()

/** The thread's token usage as of the end of the turn; null when the server reported none. [TurnResult.usage] */
public val TurnResult.usage: ThreadTokenUsage? get() = usage().getOrNull()

/** The last aggregated diff the turn reported; null when none. [TurnResult.lastDiff] */
public val TurnResult.lastDiff: String? get() = lastDiff().getOrNull()

/** The error of a failed turn; null when the turn did not fail or failed without one. [TurnResult.error] */
public val TurnResult.error: TurnError? get() = error().getOrNull()

/** The completed item with this id; null when none of that id completed in the turn. [TurnResult.item] */
public fun TurnResult.itemOrNull(itemId: String): ThreadItem? = item(itemId).getOrNull()

/** The server's user agent; null when it reported none. [ServerInfo.userAgent] */
public val ServerInfo.userAgent: String? get() = userAgent().getOrNull()

/** The server's `CODEX_HOME`; null when it reported none. [ServerInfo.codexHome] */
public val ServerInfo.codexHome: String? get() = codexHome().getOrNull()

/** The server's platform family; null when it reported none. [ServerInfo.platformFamily] */
public val ServerInfo.platformFamily: String? get() = platformFamily().getOrNull()

/** The server's operating system; null when it reported none. [ServerInfo.platformOs] */
public val ServerInfo.platformOs: String? get() = platformOs().getOrNull()

/** The codex version read from the user agent; null when it names none. [ServerInfo.codexVersion] */
public val ServerInfo.codexVersion: CodexVersion? get() = codexVersion().getOrNull()

/** The handle of a thread this client holds right now; null when it holds none of that id. [CodexClient.thread] */
public fun CodexClient.threadOrNull(threadId: String): CodexThread? = thread(threadId).getOrNull()

/** The server process, when this client runs it as a child; null otherwise. [CodexClient.serverProcess] */
public val CodexClient.serverProcess: ProcessHandle? get() = serverProcess().getOrNull()

/** The id of the search's request; null while it waits for a connection or when refused unsent. */
public val ThreadSearch.requestId: RequestId? get() = requestId().getOrNull()

/** The method of the call the server rejected; null when not known. [CodexRpcException.method] */
public val CodexRpcException.method: String? get() = method().getOrNull()

/** The error's data; null when the server sent none. [CodexRpcException.data] */
public val CodexRpcException.data: JsonNode? get() = data().getOrNull()

/** The server's exit code; null when it did not exit (or the connection is not to a child). */
public val CodexTransportException.exitCode: Int? get() = exitCode().let { if (it.isPresent) it.asInt else null }

/** The id of the failed turn; null when the server never named it. [CodexTurnFailedException.turnId] */
public val CodexTurnFailedException.turnId: String? get() = turnId().getOrNull()

/** codex's typed error of the failed turn; null when it sent none. [CodexTurnFailedException.codexErrorInfo] */
public val CodexTurnFailedException.codexErrorInfo: CodexErrorInfo? get() = codexErrorInfo().getOrNull()

/** The failed turn's additional details; null when none. [CodexTurnFailedException.additionalDetails] */
public val CodexTurnFailedException.additionalDetails: String? get() = additionalDetails().getOrNull()

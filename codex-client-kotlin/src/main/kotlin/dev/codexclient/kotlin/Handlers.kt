package dev.codexclient.kotlin

import com.fasterxml.jackson.core.type.TypeReference
import com.fasterxml.jackson.module.kotlin.jacksonTypeRef
import dev.codexclient.ApprovalDecision
import dev.codexclient.ApprovalPolicy
import dev.codexclient.ApprovalRequest
import dev.codexclient.CodexExperimental
import dev.codexclient.DynamicTool
import dev.codexclient.ToolResult
import dev.codexclient.protocol.DynamicToolCallParams
import java.util.concurrent.CompletableFuture
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.reflect.KType
import kotlin.reflect.typeOf
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.future.future

// Handlers of the server's requests as suspend lambdas. The client calls a handler on its callback executor and
// waits for the stage it returns; here that stage is a coroutine's future, so a handler that suspends (asks a person,
// calls a service) holds no thread. When the server withdraws the request (the turn was interrupted), the client
// cancels the stage, which cancels the coroutine: its suspension points throw CancellationException, and nothing
// is sent.

/**
 * Where the handlers' coroutines run: a scope of their own (a failing handler fails its request, never the others),
 * on [Dispatchers.Default] unless a handler's context names another dispatcher. Cancelled only through each
 * handler's future, by the client.
 */
private val handlers = CoroutineScope(SupervisorJob() + Dispatchers.Default + CoroutineName("codex handler"))

@PublishedApi
internal fun <T> handle(context: CoroutineContext, block: suspend CoroutineScope.() -> T): CompletableFuture<T> =
    handlers.future(context, block = block)

/**
 * An [ApprovalPolicy] from a suspend function: the decision is a coroutine, cancelled when the server withdraws the
 * request. It may suspend as long as the decision takes (a person's answer, another service); to call blocking code,
 * use `withContext(Dispatchers.IO)`.
 *
 * ```
 * val policy = approvalPolicy<ApprovalRequest.Command> { command ->
 *     if (reviewers.allow(command.params().command())) ApprovalDecision.ACCEPT else ApprovalDecision.DECLINE
 * }
 * ```
 *
 * @param context added to the decision's coroutine: a dispatcher, a [CoroutineName], an MDC context
 */
public fun <R : ApprovalRequest> approvalPolicy(
    context: CoroutineContext = EmptyCoroutineContext,
    decide: suspend (R) -> ApprovalDecision,
): ApprovalPolicy<R> = ApprovalPolicy { request -> handle(context) { decide(request) } }

/** What a dynamic tool's call is about: the `item/tool/call` request, with its thread, turn and call ids. */
@CodexExperimental("dynamicTools")
public class ToolCall @PublishedApi internal constructor(
    /** The whole `item/tool/call` request: thread, turn and call ids, tool name, the raw arguments. */
    public val params: DynamicToolCallParams,
) {
    /** The id of the thread whose turn calls the tool. */
    public val threadId: String get() = params.threadId()

    /** The id of the turn that calls the tool. */
    public val turnId: String get() = params.turnId()

    /** The id of this call. */
    public val callId: String get() = params.callId()

    /** The tool's name and the thread, turn and call ids, for logs. */
    override fun toString(): String = "ToolCall[${params.tool()} $threadId/$turnId/$callId]"
}

/**
 * A dynamic tool implemented by a suspend function of its arguments, bound to [A] (a data class, typically): the
 * input schema is derived from [A] ([KotlinSchemas]), the arguments are bound with jackson-module-kotlin, and the
 * result is sent as it comes back: a [ToolResult] as it is, a [String] as text, [Unit] as empty text, anything else
 * (a data class, a list, a number) as its JSON. The function runs as a coroutine, cancelled when the server withdraws
 * the call; an exception it throws (arguments that do not bind included) tells the model the call failed, with the
 * exception's message. The [ToolCall] receiver has the call's thread, turn and call ids.
 *
 * ```
 * data class TicketQuery(val id: String)
 * data class Ticket(val id: String, val status: String, val priority: Int)
 *
 * val lookup = dynamicTool("lookup_ticket", "Look up a ticket by id") { args: TicketQuery ->
 *     tickets.find(args.id)          // a Ticket: the model reads its JSON
 * }
 * ```
 *
 * Register it on the client (`tool(...)` of the client DSL, or [dev.codexclient.CodexClientBuilder.tool]) or give it
 * to one thread ([startThreadAndAwait]'s `tools`); dynamic tools need `experimentalApi = true`.
 *
 * @param name the tool's name, 1 to 64 letters, digits, `_` or `-`
 * @param description what the tool does, for the model
 * @param context added to each call's coroutine: a dispatcher, a [CoroutineName], an MDC context
 * @throws IllegalArgumentException when the name is not a valid tool name, or [A] has no schema
 */
@CodexExperimental("dynamicTools")
public inline fun <reified A : Any, R> dynamicTool(
    name: String,
    description: String = "",
    context: CoroutineContext = EmptyCoroutineContext,
    noinline call: suspend ToolCall.(A) -> R,
): DynamicTool = dynamicTool(name, description, typeOf<A>(), jacksonTypeRef<A>(), context, call)

@PublishedApi
internal fun <A : Any, R> dynamicTool(
    name: String,
    description: String,
    type: KType,
    binding: TypeReference<A>,
    context: CoroutineContext,
    call: suspend ToolCall.(A) -> R,
): DynamicTool = DynamicTool.ofAsync(name, description, KotlinSchemas.schemaOf(type)) { arguments, request, mapper ->
    val json = CodexJson.kotlinAware(mapper)
    handle(context + CoroutineName("codex tool $name")) {
        val args: A = json.readerFor(binding).readValue(arguments)
        when (val result = ToolCall(request).call(args)) {
            is ToolResult -> result
            is String -> ToolResult.text(result)
            is Unit -> ToolResult.text("")
            else -> ToolResult.text(json.writeValueAsString(result))
        }
    }
}

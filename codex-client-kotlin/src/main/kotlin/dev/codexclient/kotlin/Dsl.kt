package dev.codexclient.kotlin

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import dev.codexclient.ApprovalDecision
import dev.codexclient.ApprovalPolicy
import dev.codexclient.ApprovalRequest
import dev.codexclient.CodexClient
import dev.codexclient.CodexClientBuilder
import dev.codexclient.CodexExperimental
import dev.codexclient.DynamicTool
import dev.codexclient.Inputs
import dev.codexclient.protocol.McpServerElicitationRequestParams
import dev.codexclient.protocol.McpServerElicitationRequestResponse
import dev.codexclient.protocol.MethodDescriptor
import dev.codexclient.protocol.ServerNotification
import dev.codexclient.protocol.ThreadStartParams
import dev.codexclient.protocol.ToolRequestUserInputParams
import dev.codexclient.protocol.ToolRequestUserInputResponse
import dev.codexclient.protocol.TurnStartParams
import dev.codexclient.protocol.UserInput
import dev.codexclient.transport.Transport
import java.nio.file.Path
import java.util.concurrent.CompletableFuture
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.coroutines.cancellation.CancellationException
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asExecutor
import kotlinx.coroutines.future.await

/** Marks the receivers of the codex DSL, so that an inner block does not reach an outer one by mistake. */
@DslMarker
public annotation class CodexDsl

/**
 * Builds a client with the [CodexClientScope] DSL and starts it: spawns `codex app-server` (or connects over the
 * transport given) and performs the handshake, suspending.
 *
 * ```
 * val codex = CodexClient {
 *     clientInfo("acme-bot", "Acme Bot", "1.4.0")
 *     approvals { request -> ApprovalDecision.DECLINE }
 * }
 * codex.use { ... }
 * ```
 *
 * The handshake is the one step with no async twin in the Java API: it runs on [Dispatchers.IO], once per client.
 * Cancelled before it is done, the call returns at once and the client, when it comes up, is closed.
 */
public suspend fun CodexClient(configure: CodexClientScope.() -> Unit): CodexClient =
    CodexClient.builder().configure(configure).buildAndAwait()

/** Configures this builder with the [CodexClientScope] DSL, for code that builds the client itself (a Spring bean). */
public fun CodexClientBuilder.configure(configure: CodexClientScope.() -> Unit): CodexClientBuilder =
    apply { CodexClientScope(this).configure() }

/**
 * Builds the client, like [CodexClientBuilder.build], suspending: the spawn and handshake run on [Dispatchers.IO].
 * Cancelled before it is done, it returns at once and the client, when it comes up, is closed.
 */
public suspend fun CodexClientBuilder.buildAndAwait(): CodexClient {
    val built = CompletableFuture.supplyAsync({ build() }, Dispatchers.IO.asExecutor())
    try {
        return built.copy().await()
    } catch (e: CancellationException) {
        built.thenAccept { it.close() }
        throw e
    }
}

/**
 * The client DSL: what reads better in Kotlin than the Java builder (durations, handlers as suspend lambdas, tools of
 * data classes), on top of the builder itself, [builder], for every other setting.
 *
 * The mapper of the user's types is [CodexJson.kotlinMapper] unless [objectMapper] sets another, so that structured
 * output and tools bind data classes.
 */
@CodexDsl
public class CodexClientScope internal constructor(
    /** The Java builder this scope configures, for the settings the DSL does not name. */
    public val builder: CodexClientBuilder,
) {
    init {
        builder.objectMapper(CodexJson.kotlinMapper)
    }

    /** How the client introduces itself in `initialize`. */
    public fun clientInfo(name: String, title: String, version: String) {
        builder.clientInfo(name, title, version)
    }

    /** Opts into the experimental API (dynamic tools, thread search), as [CodexClientBuilder.experimentalApi]. */
    public var experimentalApi: Boolean = false
        set(value) {
            field = value
            builder.experimentalApi(value)
        }

    /** The codex executable to spawn; `codex` on the `PATH` when not set. */
    public var codexBinary: Path? = null
        set(value) {
            field = value
            builder.codexBinary(requireNotNull(value) { "codexBinary" })
        }

    /** The `CODEX_HOME` of the spawned server. */
    public var codexHome: Path? = null
        set(value) {
            field = value
            builder.codexHome(requireNotNull(value) { "codexHome" })
        }

    /** The working directory of the spawned server. */
    public var workingDirectory: Path? = null
        set(value) {
            field = value
            builder.workingDirectory(requireNotNull(value) { "workingDirectory" })
        }

    /** The mapper of the user's types: structured output, tool arguments and results. */
    public var objectMapper: ObjectMapper = CodexJson.kotlinMapper
        set(value) {
            field = value
            builder.objectMapper(value)
        }

    /** How long each call waits for its response, as [CodexClientBuilder.requestTimeout]. */
    public var requestTimeout: Duration? = null
        set(value) {
            field = value
            builder.requestTimeout(requireNotNull(value) { "requestTimeout" }.toJavaDuration())
        }

    /** How long an interrupted turn may take to end before it is settled as stalled. */
    public var interruptGracePeriod: Duration? = null
        set(value) {
            field = value
            builder.interruptGracePeriod(requireNotNull(value) { "interruptGracePeriod" }.toJavaDuration())
        }

    /** The default silence after which a turn is checked, as [CodexClientBuilder.turnWatchdog]. */
    public var turnWatchdog: Duration? = null
        set(value) {
            field = value
            builder.turnWatchdog(requireNotNull(value) { "turnWatchdog" }.toJavaDuration())
        }

    /** How long closing waits for the server to end, as [CodexClientBuilder.closeTimeout]. */
    public var closeTimeout: Duration? = null
        set(value) {
            field = value
            builder.closeTimeout(requireNotNull(value) { "closeTimeout" }.toJavaDuration())
        }

    /**
     * The context the suspend handlers of this scope run in (a dispatcher, an MDC context), added to each handler's
     * own. Set it before the handlers it is for.
     */
    public var handlerContext: CoroutineContext = EmptyCoroutineContext

    /** Uses [transport] instead of spawning `codex app-server`. */
    public fun transport(transport: Transport) {
        builder.transport(transport)
    }

    /** Sets an environment variable of the spawned server. */
    public fun environment(name: String, value: String) {
        builder.environment(name, value)
    }

    /** Decides every kind of approval with [policy] (`ApprovalPolicy.acceptAll()`, ...). */
    public fun approvals(policy: ApprovalPolicy<ApprovalRequest>) {
        builder.approvals(policy)
    }

    /** Decides every kind of approval with a suspend function (see [approvalPolicy]). */
    public fun approvals(decide: suspend (ApprovalRequest) -> ApprovalDecision) {
        builder.approvals(approvalPolicy(handlerContext, decide))
    }

    /** Decides command approvals with [policy], in place of [approvals] for them. */
    public fun commandApprovals(policy: ApprovalPolicy<in ApprovalRequest.Command>) {
        builder.commandApprovals(policy)
    }

    /** Decides command approvals with a suspend function, in place of [approvals] for them. */
    public fun commandApprovals(decide: suspend (ApprovalRequest.Command) -> ApprovalDecision) {
        builder.commandApprovals(approvalPolicy(handlerContext, decide))
    }

    /** Decides file-change approvals with [policy], in place of [approvals] for them. */
    public fun fileChangeApprovals(policy: ApprovalPolicy<in ApprovalRequest.FileChange>) {
        builder.fileChangeApprovals(policy)
    }

    /** Decides file-change approvals with a suspend function, in place of [approvals] for them. */
    public fun fileChangeApprovals(decide: suspend (ApprovalRequest.FileChange) -> ApprovalDecision) {
        builder.fileChangeApprovals(approvalPolicy(handlerContext, decide))
    }

    /** Answers the model's questions to the user (`item/tool/requestUserInput`) with a suspend function. */
    public fun userInput(answer: suspend (ToolRequestUserInputParams) -> ToolRequestUserInputResponse) {
        val context = handlerContext
        builder.userInput { params -> handle(context) { answer(params) } }
    }

    /** Answers MCP elicitations (`mcpServer/elicitation/request`) with a suspend function. */
    public fun elicitations(answer: suspend (McpServerElicitationRequestParams) -> McpServerElicitationRequestResponse) {
        val context = handlerContext
        builder.elicitations { params -> handle(context) { answer(params) } }
    }

    /** Answers every request of [method] with a suspend function, as [CodexClientBuilder.serverRequest]. */
    public fun <P, R> serverRequest(method: MethodDescriptor<P, R>, answer: suspend (P) -> R) {
        val context = handlerContext
        builder.serverRequest(method) { params -> handle(context) { answer(params) } }
    }

    /** Declares [tool] on every thread of the client. */
    @CodexExperimental("dynamicTools")
    public fun tool(tool: DynamicTool) {
        builder.tool(tool)
    }

    /**
     * Declares a tool on every thread of the client, implemented by a suspend function of its arguments (see
     * [dynamicTool]): `tool("lookup_ticket", "Look up a ticket") { args: TicketQuery -> tickets.find(args.id) }`.
     */
    @CodexExperimental("dynamicTools")
    public inline fun <reified A : Any, R> tool(
        name: String,
        description: String = "",
        noinline call: suspend ToolCall.(A) -> R,
    ) {
        builder.tool(dynamicTool(name, description, handlerContext, call))
    }

    /** A listener of every notification, registered before the handshake so that none is missed. */
    public fun onNotification(listener: (ServerNotification) -> Unit) {
        builder.onNotification(listener)
    }
}

/**
 * The inputs of a turn or a steer, in order: text, images, skills, mentions (see [Inputs]).
 */
@CodexDsl
public open class InputScope internal constructor() {
    private val inputs = mutableListOf<UserInput>()

    /** Plain text. */
    public fun text(text: String) {
        inputs += Inputs.text(text)
    }

    /** An image by URL (`https:` or a `data:` URL). */
    public fun imageUrl(url: String) {
        inputs += Inputs.imageUrl(url)
    }

    /** An image file on the machine codex runs on. */
    public fun localImage(path: Path) {
        inputs += Inputs.localImage(path)
    }

    /** A skill, by name and the path of its `SKILL.md`. */
    public fun skill(name: String, path: Path) {
        inputs += Inputs.skill(name, path)
    }

    /** A mention of a file or resource, by display name and path. */
    public fun mention(name: String, path: String) {
        inputs += Inputs.mention(name, path)
    }

    /** Any input of the protocol. */
    public fun input(input: UserInput) {
        inputs += input
    }

    internal fun inputs(): List<UserInput> = inputs.toList()
}

/**
 * A turn's inputs ([InputScope]), the type of its output ([outputType]) and any other override of `turn/start`
 * ([params]: model, effort, sandbox policy, approval policy, ...).
 */
@CodexDsl
public class TurnScope internal constructor(private val builder: TurnStartParams.Builder) : InputScope() {
    /** Sets other overrides of `turn/start` on the protocol's builder: `params { effort("high") }`. */
    public fun params(block: TurnStartParams.Builder.() -> Unit) {
        builder.block()
    }

    /**
     * Asks for a final message that is JSON of [T]: the turn's `outputSchema` is the schema of [T] ([KotlinSchemas]).
     * Read it with [awaitAs].
     */
    public inline fun <reified T> outputType() {
        outputSchema(KotlinSchemas.schemaOf<T>())
    }

    /** Asks for a final message that matches [schema], a JSON schema. */
    public fun outputSchema(schema: JsonNode) {
        builder.outputSchema(schema)
    }

    internal fun build(): TurnStartParams {
        val inputs = inputs()
        if (inputs.isNotEmpty()) {
            builder.input(inputs)
        }
        return builder.build()
    }
}

/** The working directory of the thread, as a path. */
public fun ThreadStartParams.Builder.cwd(path: Path): ThreadStartParams.Builder = cwd(path.toString())

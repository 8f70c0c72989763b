package dev.codexclient.kotlin

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.module.kotlin.jacksonTypeRef
import dev.codexclient.CodexExperimental
import dev.codexclient.CodexThread
import dev.codexclient.CodexTurn
import dev.codexclient.Inputs
import dev.codexclient.StructuredTurn
import dev.codexclient.TurnResult
import dev.codexclient.errors.CodexOutputParseException
import dev.codexclient.protocol.TurnStartParams
import dev.codexclient.protocol.TurnSteerResponse
import dev.codexclient.protocol.UserInput
import java.util.concurrent.CompletableFuture
import kotlin.coroutines.cancellation.CancellationException
import kotlin.reflect.typeOf
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.future.await
import kotlinx.coroutines.isActive
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext

// Turns from coroutines. Every function here suspends where the Java API blocks, on the Java API's futures: no thread
// waits for a call.
//
// Who owns a turn: the coroutine that started it (startTurnAndAwait), as a child coroutine of it would be. Its scope
// ends only once the turn has ended; when the scope is cancelled (or fails, or its withTimeout runs out), the turn is
// stopped (CodexTurn.stopAsync: interrupted, and the commands it started ended) and the scope ends once codex has
// stopped it. Cancelling a coroutine that awaits a turn stops the turn too, and that coroutine also ends once the
// turn has.

/**
 * Starts a turn with one text input, and returns once the server has accepted it, like
 * [CodexThread.startTurn] but suspending.
 *
 * The calling coroutine owns the turn, as it owns a child coroutine: its scope does not end before the turn has
 * ended, and when the scope is cancelled (also by `withTimeout`) the turn is stopped ([stop]: interrupted, and the
 * commands it started ended), the scope ending once the turn has. A turn that must outlive the caller is started
 * from a longer-lived scope (`appScope.async { thread.startTurnAndAwait(text) }.await()`). Cancelled while the
 * server has not yet accepted the turn, it returns at once and the turn is stopped as soon as it exists.
 *
 * @return the running turn; its events may already be arriving
 */
public suspend fun CodexThread.startTurnAndAwait(text: String): CodexTurn =
    startTurnAndAwait(turnParams().input(listOf(Inputs.text(text))).build())

/** Starts a turn with [input] (see [Inputs]), as [startTurnAndAwait] with a text does. */
public suspend fun CodexThread.startTurnAndAwait(input: List<UserInput>): CodexTurn =
    startTurnAndAwait(turnParams().input(input.toList()).build())

/**
 * Starts a turn with every override of [params] (whose thread id must be this thread's; [CodexThread.turnParams]
 * sets it), as [startTurnAndAwait] with a text does.
 */
public suspend fun CodexThread.startTurnAndAwait(params: TurnStartParams): CodexTurn = owned(startTurnAsync(params))

/**
 * Starts a turn built with the [TurnScope] DSL: its inputs, its output type, its other overrides.
 *
 * ```
 * val turn = thread.startTurnAndAwait {
 *     text("What does this screenshot show?")
 *     localImage(Path.of("screen.png"))
 *     outputType<Answer>()
 * }
 * ```
 */
public suspend fun CodexThread.startTurnAndAwait(block: TurnScope.() -> Unit): CodexTurn =
    startTurnAndAwait(TurnScope(turnParams()).apply(block).build())

/**
 * Makes the calling coroutine the owner of the turn [start] brings: a child coroutine of it that ends with the turn
 * and interrupts it when cancelled.
 */
internal suspend fun owned(start: CompletableFuture<CodexTurn>): CodexTurn {
    val turn = try {
        // A copy: kotlinx's await cancels the future it waits for, and the start's own must stay, to reach its turn.
        start.copy().await()
    } catch (e: CancellationException) {
        if (!currentCoroutineContext().isActive) {
            // The server may accept the turn after all: nobody would own it, so it is stopped when it exists.
            start.thenAccept { it.stopAsync() }
        }
        throw e
    }
    val context = currentCoroutineContext()
    if (context[Job] != null) {
        // Unconfined: it only waits, and a dispatcher of the caller's (one thread, busy) must not delay the interrupt.
        CoroutineScope(context).launch(Dispatchers.Unconfined + CoroutineName("codex turn $turn"),
            CoroutineStart.UNDISPATCHED) {
            try {
                awaitOrInterrupt(turn)
            } catch (ignored: Throwable) {
                // The owner only waits for the end: how it ended is for those who await the turn, not for its scope.
            }
        }
    }
    return turn
}

/**
 * The turn's result; when the calling coroutine is cancelled first, stops the turn and waits, not cancellable, for it
 * to end (normally a moment, at most the client's interrupt grace period) before the cancellation goes on.
 */
private suspend fun awaitOrInterrupt(turn: CodexTurn): TurnResult {
    try {
        return turn.result().await()
    } catch (e: CancellationException) {
        if (!currentCoroutineContext().isActive && !turn.isDone) {
            withContext(NonCancellable) {
                // The turn's end, or why it cannot end (the connection went): either way it is over.
                runCatching { turn.stopAsync().await() }
            }
        }
        throw e
    }
}

/**
 * Waits for the turn to end and returns its result, whatever its status ([TurnResult.orThrow] makes a failure an
 * exception), like [CodexTurn.await] without a timeout: use `withTimeout`.
 *
 * Cancelling the calling coroutine (also by `withTimeout`) stops the turn ([stop]: it is interrupted, and the
 * commands it started are ended): the coroutine then waits, not cancellable, for the turn to end (normally a moment;
 * at most the client's interrupt grace period, after which the client settles the turn as stalled), so that when the
 * cancellation goes on, the turn is over. Several coroutines awaiting one turn: cancelling any of them stops it.
 *
 * @throws dev.codexclient.errors.CodexTransportException when the turn cannot end normally: the connection was lost
 *         or the client closed (also when the thread was let go of, with the exception [CodexTurn.result] fails with)
 */
public suspend fun CodexTurn.await(): TurnResult = awaitOrInterrupt(this)

/**
 * Waits for the turn, as [await] does, and parses its final message into [T], a data class typically (with
 * jackson-module-kotlin), a Java record, or any type Jackson binds, generic ones included (`List<Answer>`).
 * Give the turn the schema of [T] with [TurnScope.outputType], so that codex has the model answer with it.
 *
 * ```
 * val verdict = thread.startTurnAndAwait { text("Is this diff safe?"); outputType<Verdict>() }.awaitAs<Verdict>()
 * ```
 *
 * @param mapper the mapper that binds [T]; [CodexJson.kotlinMapper] by default (lenient: unknown properties are
 *        ignored), made Kotlin-aware when it is not
 * @throws dev.codexclient.errors.CodexTurnFailedException when the turn failed
 * @throws CodexOutputParseException when the final message does not parse as [T]
 */
public suspend inline fun <reified T> CodexTurn.awaitAs(mapper: ObjectMapper = CodexJson.kotlinMapper): T =
    parseAs(await().orThrow(), mapper)

/**
 * Parses a finished turn's final message into [T], as [awaitAs] does.
 *
 * @throws CodexOutputParseException when the final message does not parse as [T]
 */
public inline fun <reified T> parseAs(result: TurnResult, mapper: ObjectMapper = CodexJson.kotlinMapper): T {
    val text = result.finalText()
    return try {
        CodexJson.kotlinAware(mapper).readValue(text, jacksonTypeRef<T>())
    } catch (e: Exception) {
        throw CodexOutputParseException(typeOf<T>().toString(), text, e)
    }
}

/** Waits for a structured turn's output, as [StructuredTurn.await] does without a timeout; cancelling interrupts. */
public suspend fun <T> StructuredTurn<T>.await(): T = parse(turn().await())

/**
 * Interrupts the turn and waits for it to end, like [CodexTurn.interrupt] without a timeout (use `withTimeout`): the
 * turn normally ends `INTERRUPTED` once codex has stopped it, or as [TurnResult.stalled] after the client's grace
 * period. Interrupting a turn that has ended returns its result.
 */
public suspend fun CodexTurn.interrupt(): TurnResult = interruptAsync().copy().await()

/**
 * Stops the turn and what it started, like [CodexTurn.stopAsync], suspending: interrupts it and, once it has ended,
 * ends the commands it started that codex keeps running as background terminals (an interrupt leaves them running).
 * Ending them follows codex's experimental API: without `experimentalApi = true`, or before codex 0.140.0, they keep
 * running as after [interrupt]. This is what cancelling the turn's owner or an awaiter does.
 */
@CodexExperimental("thread/backgroundTerminals")
public suspend fun CodexTurn.stop(): TurnResult = stopAsync().copy().await()

/** Adds input to the running turn (`turn/steer`), like [CodexTurn.steer], suspending. */
public suspend fun CodexTurn.steerAndAwait(text: String): TurnSteerResponse = steerAsync(text).await()

/** Adds [input] to the running turn (`turn/steer`), like [CodexTurn.steer], suspending. */
public suspend fun CodexTurn.steerAndAwait(input: List<UserInput>): TurnSteerResponse = steerAsync(input).await()

/** Adds input built with the [InputScope] DSL to the running turn (`turn/steer`). */
public suspend fun CodexTurn.steerAndAwait(block: InputScope.() -> Unit): TurnSteerResponse =
    steerAsync(InputScope().apply(block).inputs()).await()

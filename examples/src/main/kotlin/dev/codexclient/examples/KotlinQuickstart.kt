package dev.codexclient.examples

import dev.codexclient.kotlin.agentMessageDeltas
import dev.codexclient.kotlin.await
import dev.codexclient.kotlin.buildAndAwait
import dev.codexclient.kotlin.completedItems
import dev.codexclient.kotlin.configure
import dev.codexclient.kotlin.error
import dev.codexclient.kotlin.startThreadAndAwait
import dev.codexclient.kotlin.startTurnAndAwait
import dev.codexclient.kotlin.usage
import dev.codexclient.kotlin.userAgent
import dev.codexclient.protocol.AskForApproval
import dev.codexclient.protocol.ThreadItem
import dev.codexclient.testkit.ModelStep
import kotlin.time.Duration.Companion.minutes
import kotlinx.coroutines.flow.filterIsInstance
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout

/**
 * The quickstart in Kotlin: a thread, a turn whose text streams live as a Flow while its commands are listed from
 * another, then the outcome and token usage; a coroutine suspends where the Java quickstart blocks, and a timeout
 * stops the turn.
 *
 * ```
 * mvn -B -q install -DskipTests && mvn -B -q -pl examples exec:java -Dexample=KotlinQuickstart
 * mvn -B -q -pl examples exec:java -Dexample=KotlinQuickstart -Dbackend=live -Dexec.args="Explain this repository"
 * ```
 */
object KotlinQuickstart {
    @JvmStatic
    fun main(args: Array<String>): Unit = runBlocking {
        Utf8Console.install()
        val prompt = if (args.isNotEmpty()) args.joinToString(" ") else "Look around and say hello."
        Backend.open(
            { model ->
                model.enqueue(
                    Backend.shell("printf 'src\\ntests\\nREADME.md\\n'"),
                    ModelStep.reply("Hello from Kotlin! This workspace has a src and a tests directory and a " +
                        "README. ¡hasta luego! 👋").withUsage(1_250, 64))
            },
            { fake ->
                fake.onTurnStart { turn ->
                    turn.commandExecution("ls", "src\ntests\nREADME.md\n", 0)
                        .agentMessageDeltas("Hello from Kotlin! ", "This workspace has a src and a tests directory ",
                            "and a README. 👋")
                        .tokenUsage(1_250, 64)
                        .completed()
                }
            }).use { backend ->
            backend.client().configure { approvals { _ -> dev.codexclient.ApprovalDecision.DECLINE } }
                .buildAndAwait().use { codex ->
                    println("backend: ${backend.name}")
                    println("server:  ${codex.serverInfo().userAgent ?: "(not reported)"}")

                    val thread = codex.startThreadAndAwait(backend.thread(AskForApproval.Simple.ON_REQUEST).build())
                    val turn = thread.startTurnAndAwait(prompt)
                    // Two collections of the same turn: each a subscription of its own, from the turn's start.
                    val commands = launch {
                        turn.completedItems().filterIsInstance<ThreadItem.CommandExecution>()
                            .collect { println("$ ${it.command()}  (exit ${it.exitCode()})") }
                    }
                    turn.agentMessageDeltas().collect { print(it.delta()); System.out.flush() }
                    commands.join()

                    val result = withTimeout(5.minutes) { turn.await() }
                    println()
                    println("status:  ${result.status()}")
                    result.usage?.last()?.let {
                        println("tokens:  ${it.totalTokens()} this turn (${it.inputTokens()} in, ${it.outputTokens()} out)")
                    }
                    result.error?.let { println("error:   ${it.message()}") }
                }
        }
    }
}

package dev.codexclient.kotlin

import com.fasterxml.jackson.databind.JsonNode
import dev.codexclient.ApprovalDecision
import dev.codexclient.ApprovalRequest
import dev.codexclient.CodexClient
import dev.codexclient.protocol.CommandExecutionStatus
import dev.codexclient.protocol.ThreadItem
import dev.codexclient.protocol.ToolRequestUserInputAnswer
import dev.codexclient.protocol.ToolRequestUserInputResponse
import dev.codexclient.testkit.ClientReply
import dev.codexclient.testkit.CodexTestExtension
import dev.codexclient.testkit.FakeCodexAppServer
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import kotlin.coroutines.cancellation.CancellationException
import kotlin.time.Duration.Companion.hours
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.test.StandardTestDispatcher
import kotlinx.coroutines.test.runTest
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith

/** Approvals and dynamic tools as suspend lambdas, tool arguments and results as data classes. */
@ExtendWith(CodexTestExtension::class)
class HandlersTest {
    data class TicketQuery(val id: String, val includeHistory: Boolean = false)
    data class Ticket(val id: String, val status: String, val priority: Int, val assignee: String?)

    @Test
    fun anApprovalDecidedBySuspendingAnHourOfVirtualTimeIsAnswered(fake: FakeCodexAppServer) = runTest {
        val replies = CopyOnWriteArrayList<ClientReply>()
        fake.onTurnStart { turn -> turn.commandApproval("make deploy") { replies += it }.agentMessage("ok").completed() }
        val seen = CopyOnWriteArrayList<String>()
        client(fake) {
            handlerContext = StandardTestDispatcher(testScheduler)
            commandApprovals { command ->
                seen += command.params().command()
                delay(1.hours)                      // a person thinking it over, in virtual time
                ApprovalDecision.ACCEPT
            }
        }.use { codex ->
            val result = codex.startThreadAndAwait().startTurnAndAwait("deploy").await()

            assertThat(seen).containsExactly("make deploy")
            assertThat(testScheduler.currentTime).isGreaterThanOrEqualTo(1.hours.inWholeMilliseconds)
            assertThat(replies.single().decision()).hasValue("accept")
            assertThat(result.itemsOf(ThreadItem.CommandExecution::class.java).single().status())
                .isEqualTo(CommandExecutionStatus.COMPLETED)
        }
    }

    @Test
    fun aWithdrawnApprovalCancelsTheDecidingCoroutineAndSendsNothing(fake: FakeCodexAppServer) = runTest {
        val deciding = CompletableDeferred<Unit>()
        val cancelled = CompletableDeferred<Throwable>()
        client(fake) {
            approvals { _: ApprovalRequest ->
                deciding.complete(Unit)
                try {
                    awaitCancellation()
                } catch (e: CancellationException) {
                    cancelled.complete(e)
                    throw e
                }
            }
        }.use { codex: CodexClient ->
            val thread = codex.startThreadAndAwait()
            val pending = fake.requestCommandApproval(thread.id(), "turn-x", "rm -rf build")
            deciding.await()

            pending.resolve()

            assertThat(cancelled.await()).isInstanceOf(CancellationException::class.java)
            assertThat(pending.response()).isEmpty()
        }
    }

    @Test
    fun aToolBindsItsArgumentsToADataClassAndAnswersWithTheJsonOfItsResult(fake: FakeCodexAppServer) = runTest {
        val replies = CopyOnWriteArrayList<ClientReply>()
        fake.onTurnStart { turn ->
            turn.toolCall("lookup_ticket", mapOf("id" to "ABC-123")) { replies += it }.agentMessage("found").completed()
        }
        val calls = CopyOnWriteArrayList<String>()
        client(fake) {
            experimentalApi = true
            tool("lookup_ticket", "Look up a ticket by id") { args: TicketQuery ->
                calls += "${args.id} ${args.includeHistory} $threadId"
                Ticket(args.id, "open", 2, assignee = null)
            }
        }.use { codex ->
            val thread = codex.startThreadAndAwait()
            thread.startTurnAndAwait("check ABC-123").await()

            assertThat(calls).containsExactly("ABC-123 false ${thread.id()}")
            val reply = replies.single().result()
            assertThat(reply.path("success").asBoolean()).isTrue()
            val text = reply.path("contentItems").path(0).path("text").asText()
            assertThat(CodexJson.kotlinMapper.readValue(text, Ticket::class.java))
                .isEqualTo(Ticket("ABC-123", "open", 2, null))
            val declared = fake.requests().first { it.method() == "thread/start" }.params().path("dynamicTools")
            assertThat(declared.path(0).path("name").asText()).isEqualTo("lookup_ticket")
            assertThat(declared.path(0).path("inputSchema").path("required").map(JsonNode::asText))
                .containsExactly("id", "includeHistory")
        }
    }

    @Test
    fun aToolThatThrowsTellsTheModelTheCallFailed(fake: FakeCodexAppServer) = runTest {
        val replies = CopyOnWriteArrayList<ClientReply>()
        fake.onTurnStart { turn ->
            turn.toolCall("lookup_ticket", mapOf("id" to "NOPE-1")) { replies += it }
                .toolCall("lookup_ticket", mapOf("wrong" to 1)) { replies += it }
                .agentMessage("sorry").completed()
        }
        val lookup = dynamicTool("lookup_ticket") { args: TicketQuery ->
            throw IllegalStateException("no ticket ${args.id}")
        }
        client(fake) { experimentalApi = true }.use { codex ->
            codex.startThreadAndAwait(tools = listOf(lookup)).startTurnAndAwait("look").await()
            assertThat(replies.map { it.result().path("success").asBoolean() }).containsExactly(false, false)
            assertThat(replies[0].result().path("contentItems").path(0).path("text").asText())
                .contains("no ticket NOPE-1")
        }
    }

    @Test
    fun questionsToTheUserAreAnsweredBySuspendFunctions(fake: FakeCodexAppServer) = runTest {
        val replies = CopyOnWriteArrayList<ClientReply>()
        fake.onTurnStart { turn ->
            turn.userInput("q1", "Which environment?") { replies += it }.agentMessage("thanks").completed()
        }
        client(fake) {
            userInput { params ->
                val question = params.questions().single()
                ToolRequestUserInputResponse(mapOf(question.id() to ToolRequestUserInputAnswer(listOf("staging"))))
            }
        }.use { codex ->
            codex.startThreadAndAwait().startTurnAndAwait("ask me").await()
            assertThat(replies.single().result().path("answers").path("q1").path("answers").path(0).asText())
                .isEqualTo("staging")
        }
    }

    @Test
    fun theSameToolRunsOnAClientBuiltFromJava(fake: FakeCodexAppServer) = runTest {
        val replies = CopyOnWriteArrayList<ClientReply>()
        fake.onTurnStart { turn ->
            turn.toolCall("lookup_ticket", mapOf("id" to "J-1")) { replies += it }.completed()
        }
        // The client's mapper has no Kotlin module: the tool binds with a Kotlin-aware copy of it.
        CodexClient.builder().transport(fake.connectInMemory()).experimentalApi(true)
            .tool(dynamicTool("lookup_ticket") { args: TicketQuery -> Ticket(args.id, "closed", 1, "ana") })
            .buildAndAwait().use { codex ->
                codex.startThreadAndAwait().startTurnAndAwait("look").await()
                assertThat(replies.single().result().path("contentItems").path(0).path("text").asText())
                    .isEqualTo("""{"id":"J-1","status":"closed","priority":1,"assignee":"ana"}""")
            }
    }
}

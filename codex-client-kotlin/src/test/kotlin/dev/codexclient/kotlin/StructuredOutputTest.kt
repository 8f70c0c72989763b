package dev.codexclient.kotlin

import com.fasterxml.jackson.annotation.JsonProperty
import com.fasterxml.jackson.annotation.JsonPropertyDescription
import com.fasterxml.jackson.databind.JsonNode
import dev.codexclient.errors.CodexOutputParseException
import dev.codexclient.errors.CodexTurnFailedException
import dev.codexclient.testkit.CodexTestExtension
import dev.codexclient.testkit.FakeCodexAppServer
import kotlinx.coroutines.test.runTest
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith

/** Structured output into data classes: the schema sent with the turn, the final message parsed by awaitAs. */
@ExtendWith(CodexTestExtension::class)
class StructuredOutputTest {
    enum class Severity { LOW, HIGH }
    data class Risk(val what: String, val severity: Severity)
    data class Verdict(val safe: Boolean, val risks: List<Risk>, val note: String?)

    @Test
    fun theOutputTypesSchemaGoesWithTheTurnAndTheAnswerParsesIntoIt(fake: FakeCodexAppServer) = runTest {
        fake.onTurnStart { turn ->
            turn.agentMessage("""{"safe":false,"risks":[{"what":"drops a table","severity":"HIGH"}],"note":null}""")
                .completed()
        }
        client(fake).use { codex ->
            val verdict: Verdict = codex.startThreadAndAwait()
                .startTurnAndAwait { text("Is this migration safe?"); outputType<Verdict>() }
                .awaitAs()

            assertThat(verdict).isEqualTo(Verdict(false, listOf(Risk("drops a table", Severity.HIGH)), null))
            val schema = fake.requests().first { it.method() == "turn/start" }.params().path("outputSchema")
            assertThat(schema).isEqualTo(KotlinSchemas.schemaOf<Verdict>())
            assertThat(schema.path("properties").path("note").path("anyOf").path(1).path("type").asText())
                .isEqualTo("null")
        }
    }

    @Test
    fun anAnswerThatDoesNotParseIsATypedErrorWithTheRawText(fake: FakeCodexAppServer) = runTest {
        fake.onTurnStart { turn -> turn.agentMessage("I think it is safe.").completed() }
        client(fake).use { codex ->
            val turn = codex.startThreadAndAwait().startTurnAndAwait { text("Safe?"); outputType<Verdict>() }
            val failure = runCatching { turn.awaitAs<Verdict>() }.exceptionOrNull()
            assertThat(failure).isInstanceOfSatisfying(CodexOutputParseException::class.java) {
                assertThat(it.rawOutput()).isEqualTo("I think it is safe.")
                assertThat(it.targetType()).contains("Verdict")
            }
        }
    }

    @Test
    fun aFailedTurnThrowsItsFailureNotAParseError(fake: FakeCodexAppServer) = runTest {
        fake.onTurnStart { turn -> turn.failed("context window exceeded") }
        client(fake).use { codex ->
            val turn = codex.startThreadAndAwait().startTurnAndAwait("Safe?")
            assertThat(runCatching { turn.awaitAs<Verdict>() }.exceptionOrNull())
                .isInstanceOf(CodexTurnFailedException::class.java)
        }
    }

    @Test
    fun genericTypesParseToo(fake: FakeCodexAppServer) = runTest {
        fake.onTurnStart { turn -> turn.agentMessage("""[{"what":"a","severity":"LOW"}]""").completed() }
        client(fake).use { codex ->
            val risks = codex.startThreadAndAwait().startTurnAndAwait("risks?").awaitAs<List<Risk>>()
            assertThat(risks).containsExactly(Risk("a", Severity.LOW))
        }
    }

    data class Named(
        @JsonProperty("ticket_id") @JsonPropertyDescription("the ticket's id, e.g. ABC-123") val id: String,
        val counts: Map<String, Int>,
        val tags: Set<String>,
        val scores: DoubleArray,
        val extra: JsonNode,
    )

    data class Page<T>(val items: List<T>, val next: String?)
    data class Node(val name: String, val children: List<Node>)
    data class Unsupported(val x: Any)

    @Test
    fun schemasFollowTheKotlinTypes() {
        val named = KotlinSchemas.schemaOf<Named>()
        assertThat(named.path("required").map(JsonNode::asText)).containsExactly("ticket_id", "counts", "tags", "scores",
            "extra")
        assertThat(named.path("additionalProperties").asBoolean(true)).isFalse()
        val props = named.path("properties")
        assertThat(props.path("ticket_id").path("description").asText()).isEqualTo("the ticket's id, e.g. ABC-123")
        assertThat(props.path("counts").path("additionalProperties").path("type").asText()).isEqualTo("integer")
        assertThat(props.path("tags").path("items").path("type").asText()).isEqualTo("string")
        assertThat(props.path("scores").path("items").path("type").asText()).isEqualTo("number")
        assertThat(props.path("extra").isEmpty).isTrue()

        val page = KotlinSchemas.schemaOf<Page<Risk>>()
        assertThat(page.path("properties").path("items").path("items").path("properties").path("severity")
            .path("enum").map(JsonNode::asText)).containsExactly("LOW", "HIGH")
        assertThat(page.path("properties").path("next").path("anyOf").size()).isEqualTo(2)

        assertThatThrownBy { KotlinSchemas.schemaOf<Node>() }.isInstanceOf(IllegalArgumentException::class.java)
            .hasMessageContaining("recursive")
        assertThatThrownBy { KotlinSchemas.schemaOf<Unsupported>() }.isInstanceOf(IllegalArgumentException::class.java)
            .hasMessageContaining("Unsupported.x")
    }

    @JvmRecord
    data class JavaShaped(val id: String)

    @Test
    fun aRecordIsDescribedAsTheCoreDescribesIt() {
        assertThat(KotlinSchemas.schemaOf<JavaShaped>().path("required").map(JsonNode::asText)).containsExactly("id")
    }
}

package com.example.codexclient.consumer.kotlin

import dev.codexclient.kotlin.CodexJson
import dev.codexclient.testkit.ClientReply
import dev.codexclient.testkit.FakeCodexAppServer
import java.util.concurrent.CopyOnWriteArrayList
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

class TicketTriageTest {
    @Test
    fun aToolOfDataClassesAndADataClassAnswer(): Unit = runBlocking {
        val replies = CopyOnWriteArrayList<ClientReply>()
        FakeCodexAppServer().use { fake ->
            fake.onTurnStart { turn ->
                turn.toolCall("lookup_ticket", mapOf("id" to "T-1")) { replies += it }
                    .agentMessage("""{"ticket":"T-1","severity":"high","owner":null}""")
                    .completed()
            }
            val app = TicketTriage(mapOf("T-1" to Ticket("T-1", "checkout fails")))
            app.connect(fake.connectInMemory()).use { codex ->
                assertEquals(Triage("T-1", "high", null), app.triage(codex, "T-1"))
            }
            val text = replies.single().result().path("contentItems").path(0).path("text").asText()
            assertEquals(Ticket("T-1", "checkout fails"), CodexJson.kotlinMapper.readValue(text, Ticket::class.java))
            val schema = fake.requests().first { it.method() == "turn/start" }.params().path("outputSchema")
            assertEquals(listOf("ticket", "severity", "owner"), schema.path("required").map { it.asText() })
        }
        val named = java.lang.Boolean.getBoolean("consumer.namedModule")
        assertEquals(named, TicketTriage::class.java.module.isNamed, "the consumer's module")
        assertEquals(named, CodexJson::class.java.module.isNamed, "codex-client-kotlin's module")
    }
}

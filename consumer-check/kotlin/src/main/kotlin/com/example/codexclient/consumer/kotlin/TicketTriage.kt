package com.example.codexclient.consumer.kotlin

import dev.codexclient.CodexClient
import dev.codexclient.kotlin.CodexClient
import dev.codexclient.kotlin.awaitAs
import dev.codexclient.kotlin.startThreadAndAwait
import dev.codexclient.kotlin.startTurnAndAwait
import dev.codexclient.transport.Transport

data class TicketQuery(val id: String)
data class Ticket(val id: String, val title: String)
data class Triage(val ticket: String, val severity: String, val owner: String?)

/** An application's use of codex from Kotlin: a tool of data classes, a turn whose answer is a data class. */
class TicketTriage(private val tickets: Map<String, Ticket>) {
    suspend fun connect(transport: Transport): CodexClient = CodexClient {
        clientInfo("ticket-triage", "Ticket triage", "1.0.0")
        experimentalApi = true
        transport(transport)
        tool("lookup_ticket", "Look up a ticket by id") { args: TicketQuery ->
            tickets[args.id] ?: throw IllegalArgumentException("no ticket ${args.id}")
        }
    }

    suspend fun triage(codex: CodexClient, ticketId: String): Triage =
        codex.startThreadAndAwait()
            .startTurnAndAwait { text("Triage ticket $ticketId"); outputType<Triage>() }
            .awaitAs()
}

package com.example.codexclient.consumer.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codexclient.CodexClient;
import dev.codexclient.spring.ai.CodexChatModel;
import dev.codexclient.testkit.ClientReply;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TicketDeskTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void aConversationIsOneThreadAndTheToolRunsForCodex() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer();
             CodexClient codex = CodexClient.builder().transport(fake.connectInMemory()).experimentalApi(true)
                     .requestTimeout(WAIT).build()) {
            fake.onTurnStart(t -> t.agentMessage("T-9 is open.").completed());
            TicketDesk desk = new TicketDesk(codex);

            assertEquals("T-9 is open.", desk.ask("support-1", "Is T-9 open?"));
            assertEquals("T-9 is open.", desk.ask("support-1", "Sure?"));

            assertEquals(1, fake.threadIds().size(), "one codex thread for the conversation");
            assertEquals("lookupTicket", fake.takeRequest("thread/start", WAIT).params().path("dynamicTools").path(0)
                    .path("name").asText());
            ClientReply reply = fake.requestToolCall(fake.threadIds().get(0), "turn-1", "lookupTicket",
                    Map.of("id", "T-9")).awaitResponse(WAIT);
            assertTrue(reply.result().path("success").asBoolean(), reply.result().toString());
            // Spring AI's default converter writes the method's result as JSON: a string in quotes.
            assertEquals("\"T-9 is OPEN\"", reply.result().path("contentItems").path(0).path("text").asText());
        }
        boolean named = Boolean.getBoolean("consumer.namedModule");
        assertEquals(named, TicketDesk.class.getModule().isNamed(), "the application's module");
        assertEquals(named, CodexChatModel.class.getModule().isNamed(), "codex-client-spring-ai's module");
    }
}

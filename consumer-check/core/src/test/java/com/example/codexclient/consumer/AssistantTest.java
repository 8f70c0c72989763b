package com.example.codexclient.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(CodexTestExtension.class)
class AssistantTest {

    @Test
    void asksCodexAndReturnsTheAnswer(FakeCodexAppServer fake) throws Exception {
        fake.onTurnStart(turn -> turn.agentMessageDeltas("Hello, ", "wörld 👋").completed());

        String answer = new Assistant(fake.connectInMemory()).ask("Say hello");

        assertEquals("Hello, wörld 👋", answer);
        assertTrue(fake.takeRequest("turn/start", Duration.ofSeconds(5)).params().toString().contains("Say hello"));
        // The module-path build runs the consumer's code as a named module, the class-path build in the unnamed one.
        assertEquals(Boolean.getBoolean("consumer.namedModule"), Assistant.class.getModule().isNamed(),
                "module of the consumer's code: " + Assistant.class.getModule());
        assertEquals(Boolean.getBoolean("consumer.namedModule"),
                dev.codexclient.CodexClient.class.getModule().isNamed(), "codex-client-core's module");
    }
}

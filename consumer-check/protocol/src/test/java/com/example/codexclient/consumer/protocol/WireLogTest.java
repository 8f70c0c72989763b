package com.example.codexclient.consumer.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.protocol.ServerNotification;
import org.junit.jupiter.api.Test;

class WireLogTest {
    private static final ObjectMapper PLAIN = new ObjectMapper();

    @Test
    void readsTypedAndWritesBackWhatANewerServerAdded() throws Exception {
        String line = "{\"method\":\"item/agentMessage/delta\",\"params\":{\"delta\":\"Hé 👋\",\"itemId\":\"m1\","
                + "\"threadId\":\"t1\",\"turnId\":\"u1\",\"phase\":\"final\"},\"emittedAtMs\":1700000000000}";

        ServerNotification n = WireLog.read(line);

        ServerNotification.ItemAgentMessageDelta delta = assertInstanceOf(ServerNotification.ItemAgentMessageDelta.class, n);
        assertEquals("Hé 👋", delta.params().delta());
        assertEquals(PLAIN.readTree(line), PLAIN.readTree(WireLog.write(n)), "written back unchanged");

        String unknown = "{\"method\":\"thread/teleported\",\"params\":{\"threadId\":\"t1\",\"to\":\"mars\"}}";
        assertInstanceOf(ServerNotification.Unrecognized.class, WireLog.read(unknown));
        assertEquals(PLAIN.readTree(unknown), PLAIN.readTree(WireLog.write(WireLog.read(unknown))));

        boolean named = Boolean.getBoolean("consumer.namedModule");
        assertEquals(named, WireLog.class.getModule().isNamed(), "the consumer's module");
        assertEquals(named, ServerNotification.class.getModule().isNamed(), "codex-client-protocol's module");
    }
}

package com.example.codexclient.consumer.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;

/** What a reader of recorded traffic does with the protocol alone: reads a notification, writes it back. */
public final class WireLog {
    private WireLog() {
    }

    /** One line of the wire as a typed notification. */
    public static ServerNotification read(String line) throws JsonProcessingException {
        return ProtocolJson.mapper().readValue(line, ServerNotification.class);
    }

    /** The notification as a line of the wire again. */
    public static String write(ServerNotification notification) throws JsonProcessingException {
        return ProtocolJson.mapper().writeValueAsString(notification);
    }
}

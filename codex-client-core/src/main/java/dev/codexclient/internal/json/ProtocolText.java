package dev.codexclient.internal.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.codexclient.protocol.ProtocolJson;

/** Compact JSON of protocol values, for messages and logs. */
public final class ProtocolText {
    private ProtocolText() {
    }

    public static String compact(Object value) {
        try {
            return ProtocolJson.mapper().writeValueAsString(value);
        } catch (JsonProcessingException e) {
            return String.valueOf(value);
        }
    }
}

package dev.codexclient.internal.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.codexclient.protocol.ProtocolJson;

/** Compact JSON of protocol values, for messages and logs. */
final class ProtocolText {
    private ProtocolText() {
    }

    static String compact(Object value) {
        try {
            return ProtocolJson.mapper().writeValueAsString(value);
        } catch (JsonProcessingException e) {
            return String.valueOf(value);
        }
    }
}

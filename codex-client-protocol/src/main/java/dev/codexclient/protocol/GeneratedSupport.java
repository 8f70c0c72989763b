package dev.codexclient.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;

/** Small helpers the generated union deserializers call; kept out of the generated files to keep them short. */
final class GeneratedSupport {
    private GeneratedSupport() {
    }

    /** True when {@code n} is a string equal to one of {@code values}. */
    static boolean textIn(JsonNode n, String... values) {
        if (n == null || !n.isTextual()) {
            return false;
        }
        String t = n.textValue();
        for (String v : values) {
            if (v.equals(t)) {
                return true;
            }
        }
        return false;
    }

    /** True when {@code n} is an object whose member {@code key} is a string. */
    static boolean hasText(JsonNode n, String key) {
        return n != null && n.isObject() && n.path(key).isTextual();
    }

    /** True when {@code n} is an object with no member outside {@code keys} (schema {@code additionalProperties: false}). */
    static boolean onlyKeys(JsonNode n, String... keys) {
        if (n == null || !n.isObject()) {
            return false;
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            boolean known = false;
            for (String key : keys) {
                if (key.equals(k)) {
                    known = true;
                    break;
                }
            }
            if (!known) {
                return false;
            }
        }
        return true;
    }

    /** The request id in {@code n}, or null when it is missing or neither a string nor an integer. */
    static RequestId requestId(JsonNode n) {
        if (n == null) {
            return null;
        }
        if (n.isTextual()) {
            return RequestId.of(n.textValue());
        }
        if (n.isIntegralNumber() && n.canConvertToLong()) {
            return RequestId.of(n.longValue());
        }
        return null;
    }

    /** The integral value of {@code n}, or null. */
    static Long longOrNull(JsonNode n) {
        return n != null && n.isIntegralNumber() && n.canConvertToLong() ? n.longValue() : null;
    }
}

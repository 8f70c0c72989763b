package dev.codexclient.protocol;

import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.io.IOException;
import java.util.Objects;

/**
 * A JSON-RPC request id: a string or an integer. Replies must echo the id with the same JSON type, so the two
 * kinds stay distinct: {@code RequestId.of(7)} and {@code RequestId.of("7")} are not equal.
 */
@JsonDeserialize(using = RequestId.Deserializer.class)
public sealed interface RequestId permits RequestId.Text, RequestId.Number {

    static RequestId of(String value) { return new Text(value); }

    static RequestId of(long value) { return new Number(value); }

    /** A string id. */
    record Text(@JsonValue String value) implements RequestId {
        public Text {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String toString() { return '"' + value + '"'; }
    }

    /** An integer id. */
    record Number(@JsonValue long value) implements RequestId {
        @Override
        public String toString() { return Long.toString(value); }
    }

    /** Reads a string or an integral number; anything else is a mapping error. */
    final class Deserializer extends JsonDeserializer<RequestId> {
        @Override
        public RequestId deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            JsonToken t = p.currentToken();
            if (t == JsonToken.VALUE_STRING) {
                return new Text(p.getText());
            }
            if (t == JsonToken.VALUE_NUMBER_INT) {
                return new Number(p.getLongValue());
            }
            return (RequestId) ctxt.handleUnexpectedToken(RequestId.class, p);
        }
    }
}

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
 *
 * <p>Both variants spell out {@code equals} and {@code hashCode}: the ones a record gets by default link through an
 * {@code invokedynamic} bootstrap on first use, which costs tens of milliseconds in a fresh JVM, and the first
 * request of every client hashes its id.
 */
@JsonDeserialize(using = RequestId.Deserializer.class)
public sealed interface RequestId permits RequestId.Text, RequestId.Number {

    /**
     * {@return a string id, written as a JSON string}
     *
     * @param value the id's text
     */
    static RequestId of(String value) { return new Text(value); }

    /**
     * {@return an integer id, written as a JSON number}
     *
     * @param value the id's number
     */
    static RequestId of(long value) { return new Number(value); }

    /**
     * A string id.
     *
     * @param value the id's text
     */
    record Text(@JsonValue String value) implements RequestId {
        /**
         * Checks the value is present.
         *
         * @param value the id's text
         */
        public Text {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public boolean equals(Object o) { return o instanceof Text t && value.equals(t.value); }

        @Override
        public int hashCode() { return value.hashCode(); }

        @Override
        public String toString() { return '"' + value + '"'; }
    }

    /**
     * An integer id.
     *
     * @param value the id's number
     */
    record Number(@JsonValue long value) implements RequestId {
        @Override
        public boolean equals(Object o) { return o instanceof Number n && value == n.value; }

        @Override
        public int hashCode() { return Long.hashCode(value); }

        @Override
        public String toString() { return Long.toString(value); }
    }

    /** Reads a string or an integral number; anything else is a mapping error. */
    final class Deserializer extends JsonDeserializer<RequestId> {
        @Override
        public RequestId deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            return read(p, ctxt);
        }

        /** The generated binders call this directly: looking the deserializer up again for every id costs more. */
        static RequestId read(JsonParser p, DeserializationContext ctxt) throws IOException {
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

package dev.codexclient.testkit.internal.fake;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The fake's one {@link ObjectMapper}: lenient on read, so typed views of messages tolerate new fields. */
public final class Json {
    public static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private Json() {
    }

    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** Any value (a record, a map, a {@link JsonNode}) as a tree. */
    public static JsonNode tree(Object value) {
        if (value == null) {
            return JsonNodeFactory.instance.nullNode();
        }
        if (value instanceof JsonNode node) {
            return node.deepCopy();
        }
        return MAPPER.valueToTree(value);
    }

    /** Maps {@code node} to {@code type}; absent or null JSON is an error rather than a null result. */
    public static <T> T convert(JsonNode node, Class<T> type) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            throw new IllegalArgumentException("there is no value to read as " + type.getName());
        }
        try {
            return MAPPER.treeToValue(node, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot read " + abbreviate(node) + " as " + type.getName()
                    + ": " + e.getOriginalMessage(), e);
        }
    }

    public static byte[] bytes(JsonNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot serialise message", e);
        }
    }

    /** Parses a line; throws {@link IOException} subclasses for anything that is not one JSON value. */
    public static JsonNode parse(byte[] line) throws IOException {
        return MAPPER.readTree(line);
    }

    public static JsonNode parseUnchecked(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String abbreviate(JsonNode node) {
        String text = String.valueOf(node);
        return text.length() > 300 ? text.substring(0, 300) + "…" : text;
    }
}

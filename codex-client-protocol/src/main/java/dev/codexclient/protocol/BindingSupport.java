package dev.codexclient.protocol;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.base.ParserBase;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the generated binders ({@code *Json} classes) call for scalars, trees and unknown members. Kept out of the
 * generated files so that they stay short; every method is static, so each call site has one target.
 *
 * <p>Scalars take the usual token straight off the parser and leave every other token to Jackson's own
 * deserializer for the type, so coercions (a number where a string is declared, a string holding a number) and
 * their errors are Jackson's.
 */
final class BindingSupport {
    private BindingSupport() {
    }

    // ---- reading scalars: the parser is at the value

    static String string(JsonParser p, DeserializationContext c) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        return t == JsonToken.VALUE_NULL ? null : c.readValue(p, String.class);
    }

    // ---- values a stream repeats: the last one of its kind when the config keeps them (RepeatedValues)

    /** A thread's id: {@link #string}, or the same string as the last thread id read when the characters match. */
    static String threadId(JsonParser p, DeserializationContext c) throws IOException {
        return repeated(p, c, RepeatedValues.THREAD);
    }

    /** A turn's id, as {@link #threadId}. */
    static String turnId(JsonParser p, DeserializationContext c) throws IOException {
        return repeated(p, c, RepeatedValues.TURN);
    }

    /** An item's id, as {@link #threadId}. */
    static String itemId(JsonParser p, DeserializationContext c) throws IOException {
        return repeated(p, c, RepeatedValues.ITEM);
    }

    /**
     * A timestamp in milliseconds: {@link #longOrNull}, or the same {@code Long} as the last one read when the value
     * is equal (a stream emits many messages within a millisecond).
     */
    static Long millis(JsonParser p, DeserializationContext c) throws IOException {
        RepeatedValues repeated;
        if (p.currentToken() == JsonToken.VALUE_NUMBER_INT && (repeated = repeatedValues(c)) != null) {
            return repeated.millis(p.getLongValue());
        }
        return longOrNull(p, c);
    }

    private static String repeated(JsonParser p, DeserializationContext c, int kind) throws IOException {
        RepeatedValues repeated;
        if (p.currentToken() == JsonToken.VALUE_STRING && (repeated = repeatedValues(p, c)) != null
                && repeated.keeps(kind)) {
            return repeated.string(kind, p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
        }
        return string(p, c);
    }

    /** The cache of the config {@code c} reads with, when it has one and it belongs to this thread; else null. */
    private static RepeatedValues repeatedValues(DeserializationContext c) {
        return c.getConfig().getAttributes() instanceof RepeatedValues r && r.isOwner() ? r : null;
    }

    /**
     * {@link #repeatedValues(DeserializationContext)} for a string: only for a parser over bytes or text, which
     * keeps a string's characters in a buffer of its own ({@link ParserBase}: no copy for a short string); a parser
     * over a tree takes the plain path.
     */
    private static RepeatedValues repeatedValues(JsonParser p, DeserializationContext c) {
        return p instanceof ParserBase ? repeatedValues(c) : null;
    }

    static long longValue(JsonParser p, DeserializationContext c) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT) {
            return p.getLongValue();
        }
        return t == JsonToken.VALUE_NULL ? 0L : c.readValue(p, Long.TYPE);
    }

    static Long longOrNull(JsonParser p, DeserializationContext c) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT) {
            return p.getLongValue();
        }
        return t == JsonToken.VALUE_NULL ? null : c.readValue(p, Long.class);
    }

    static int intValue(JsonParser p, DeserializationContext c) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT) {
            return p.getIntValue();
        }
        return t == JsonToken.VALUE_NULL ? 0 : c.readValue(p, Integer.TYPE);
    }

    static Integer intOrNull(JsonParser p, DeserializationContext c) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT) {
            return p.getIntValue();
        }
        return t == JsonToken.VALUE_NULL ? null : c.readValue(p, Integer.class);
    }

    static double doubleValue(JsonParser p, DeserializationContext c) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_FLOAT || t == JsonToken.VALUE_NUMBER_INT) {
            return p.getDoubleValue();
        }
        return t == JsonToken.VALUE_NULL ? 0.0 : c.readValue(p, Double.TYPE);
    }

    static Double doubleOrNull(JsonParser p, DeserializationContext c) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_FLOAT || t == JsonToken.VALUE_NUMBER_INT) {
            return p.getDoubleValue();
        }
        return t == JsonToken.VALUE_NULL ? null : c.readValue(p, Double.class);
    }

    static boolean bool(JsonParser p, DeserializationContext c) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_FALSE) {
            return t == JsonToken.VALUE_TRUE;
        }
        return t != JsonToken.VALUE_NULL && c.readValue(p, Boolean.TYPE);
    }

    static Boolean boolOrNull(JsonParser p, DeserializationContext c) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_FALSE) {
            return t == JsonToken.VALUE_TRUE;
        }
        return t == JsonToken.VALUE_NULL ? null : c.readValue(p, Boolean.class);
    }

    /** Any JSON value as a tree; JSON {@code null} is a {@code NullNode}. */
    static JsonNode tree(JsonParser p, DeserializationContext c) throws IOException {
        return c.readTree(p);
    }

    static RequestId requestId(JsonParser p, DeserializationContext c) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        return RequestId.Deserializer.read(p, c);
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

    /** The tag read last, with its hash already computed; racy by design, since any tag read is a correct one. */
    private static String lastTag = "";

    /**
     * The string value the parser is at, as a union's tag. Streams repeat one tag (a million
     * {@code item/agentMessage/delta} in a row): the characters are compared with the last tag's, and on a match that
     * string is returned, so the {@code switch} on it does not hash a fresh string for every message. The last tag is
     * the config's own where it keeps repeated values ({@link RepeatedValues}), else one for every reader.
     */
    static String tag(JsonParser p, DeserializationContext c) throws IOException {
        return tag(p, c, RepeatedValues.TAG);
    }

    /** A message's method, as {@link #tag}: kept apart from the tags of the unions inside its params. */
    static String methodTag(JsonParser p, DeserializationContext c) throws IOException {
        return tag(p, c, RepeatedValues.METHOD);
    }

    private static String tag(JsonParser p, DeserializationContext c, int kind) throws IOException {
        RepeatedValues repeated = repeatedValues(p, c);
        if (repeated != null) {
            return repeated.keeps(kind) ? repeated.string(kind, p.getTextCharacters(), p.getTextOffset(),
                    p.getTextLength()) : p.getText();
        }
        char[] chars = p.getTextCharacters();
        int offset = p.getTextOffset();
        int length = p.getTextLength();
        String last = lastTag;
        if (last.length() == length) {
            int i = 0;
            while (i < length && last.charAt(i) == chars[offset + i]) {
                i++;
            }
            if (i == length) {
                return last;
            }
        }
        String tag = new String(chars, offset, length);
        lastTag = tag;
        return tag;
    }

    /**
     * A notification's {@code id} member: JSON {@code null} is no id, anything else makes the message a request,
     * which binding it as a notification would answer never. Fails the binding so that the reader takes the message
     * for what it is.
     */
    static void noRequestId(JsonParser p, DeserializationContext c) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_NULL) {
            throw MismatchedInputException.from(p, ServerNotification.class,
                    "a message with an \"id\" is a request, not a notification");
        }
    }

    /**
     * The thread or turn an unrecognised notification names in its raw {@code params}: the text of
     * {@code idMember}, else the text {@code id} of the {@code objectMember} object; null when neither is there. The
     * same rule as the generated {@code threadId()} of known methods.
     */
    static String routeId(JsonNode params, String idMember, String objectMember) {
        if (params == null || !params.isObject()) {
            return null;
        }
        JsonNode id = params.get(idMember);
        if (id != null && id.isTextual()) {
            return id.textValue();
        }
        JsonNode object = params.get(objectMember);
        JsonNode objectId = object == null || !object.isObject() ? null : object.get("id");
        return objectId != null && objectId.isTextual() ? objectId.textValue() : null;
    }

    /** The integral value of {@code n}, or null. */
    static Long longOrNull(JsonNode n) {
        return n != null && n.isIntegralNumber() && n.canConvertToLong() ? n.longValue() : null;
    }

    static <T> Tristate<T> tristate(T value) {
        return value == null ? Tristate.ofNull() : Tristate.of(value);
    }

    // ---- objects, arrays, unknown members

    /** Reports the token the parser is at as unexpected for {@code type} (Jackson's error, or a handler's value). */
    static <T> T unexpected(JsonParser p, DeserializationContext c, Class<T> type) throws IOException {
        return type.cast(c.handleUnexpectedToken(type, p));
    }

    static void expectArray(JsonParser p, DeserializationContext c) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            c.handleUnexpectedToken(java.util.List.class, p);
        }
    }

    static void expectObject(JsonParser p, DeserializationContext c) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            c.handleUnexpectedToken(Map.class, p);
        }
    }

    /** Adds an unknown member's value; the map is made on the first one, so records without any allocate none. */
    static Map<String, JsonNode> unknown(Map<String, JsonNode> members, String name, JsonParser p,
                                         DeserializationContext c) throws IOException {
        return put(members, name, c.readTree(p));
    }

    static <V> Map<String, V> put(Map<String, V> map, String key, V value) {
        Map<String, V> m = map == null ? new LinkedHashMap<>() : map;
        m.put(key, value);
        return m;
    }

    static <V> Map<String, V> orEmpty(Map<String, V> map) {
        return map == null ? Map.of() : map;
    }

    static ObjectNode objectNode(DeserializationContext c) {
        return c.getNodeFactory().objectNode();
    }

    /** Reads the members from the current member name to the end of the object into {@code raw}. */
    static ObjectNode readRest(ObjectNode raw, JsonParser p, DeserializationContext c) throws IOException {
        for (JsonToken t = p.currentToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
            String name = p.currentName();
            p.nextToken();
            raw.set(name, c.readTree(p));
        }
        return raw;
    }

    /** A parser over the members of {@code raw}, at its first member name (or at its end). */
    static JsonParser members(ObjectNode raw, JsonParser like) throws IOException {
        JsonParser q = raw.traverse(like.getCodec());
        q.nextToken();
        q.nextToken();
        return q;
    }

    /** A parser at the start of {@code n}. */
    static JsonParser at(JsonNode n, JsonParser like) throws IOException {
        JsonParser q = n.traverse(like.getCodec());
        q.nextToken();
        return q;
    }

    /** Jackson's rule: its errors and runtime ones gain the member's path, other I/O errors pass through. */
    static IOException wrap(Exception e, Class<?> type, String member, DeserializationContext c) throws IOException {
        boolean wrap = c.isEnabled(DeserializationFeature.WRAP_EXCEPTIONS);
        if (e instanceof IOException io && (!wrap || !(e instanceof JacksonException))) {
            throw io;
        }
        if (e instanceof RuntimeException r && !wrap) {
            throw r;
        }
        return JsonMappingException.wrapWithPath(e, type, member == null ? "" : member);
    }

    // ---- writing

    static void write(JsonGenerator g, String v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else {
            g.writeString(v);
        }
    }

    static void write(JsonGenerator g, Long v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else {
            g.writeNumber(v);
        }
    }

    static void write(JsonGenerator g, Integer v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else {
            g.writeNumber(v);
        }
    }

    static void write(JsonGenerator g, Double v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else {
            g.writeNumber(v);
        }
    }

    static void write(JsonGenerator g, Boolean v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else {
            g.writeBoolean(v);
        }
    }

    static void write(JsonGenerator g, RequestId v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else if (v instanceof RequestId.Text t) {
            g.writeString(t.value());
        } else {
            g.writeNumber(((RequestId.Number) v).value());
        }
    }

    static void writeTree(JsonGenerator g, JsonNode v, SerializerProvider s) throws IOException {
        if (v == null) {
            g.writeNull();
        } else {
            v.serialize(g, s);
        }
    }

    static void writeUnknown(JsonGenerator g, UnknownMembers members, SerializerProvider s) throws IOException {
        if (members == null || members.isEmpty()) {
            return;
        }
        for (Map.Entry<String, JsonNode> e : members.asMap().entrySet()) {
            g.writeFieldName(e.getKey());
            e.getValue().serialize(g, s);
        }
    }

    // ---- untagged unions: structural tests

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

    /** True when {@code n} is an object with no member outside {@code keys} ({@code additionalProperties: false}). */
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

    // ---- printing without values

    /**
     * The shape of a value for {@code toString()}: its JSON type and size, member names of objects, never a
     * string's or number's content: {@code object[id, text]}, {@code string(12)}, {@code array(3)},
     * {@code number}, {@code boolean}, {@code null}.
     */
    static String shape(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return "null";
        }
        if (n.isObject()) {
            StringBuilder sb = new StringBuilder("object[");
            int i = 0;
            for (Iterator<String> it = n.fieldNames(); it.hasNext(); i++) {
                sb.append(i == 0 ? "" : ", ").append(it.next());
            }
            return sb.append(']').toString();
        }
        if (n.isArray()) {
            return "array(" + n.size() + ")";
        }
        if (n.isTextual()) {
            return "string(" + n.textValue().length() + ")";
        }
        if (n.isNumber()) {
            return "number";
        }
        if (n.isBoolean()) {
            return "boolean";
        }
        return n.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The shape of each entry of a map of members kept beyond the schema: names and shapes, no values. */
    static String shape(Map<String, ?> members) {
        if (members == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, ?> e : members.entrySet()) {
            if (sb.length() > 1) {
                sb.append(", ");
            }
            Object v = e.getValue();
            sb.append(e.getKey()).append('=')
                    .append(v instanceof JsonNode n ? shape(n) : v == null ? "null" : v.getClass().getSimpleName());
        }
        return sb.append('}').toString();
    }
}

package dev.codexclient.protocol;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserSequence;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.ResolvableDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.jsontype.TypeDeserializer;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads a protocol union whose discriminator comes first (codex writes the tag before the other members) without
 * buffering: it reads the tag, looks the variant up with the union's own type-id resolver, and lets the variant's
 * {@link RecordDeserializer} bind the tag and the rest of the object in the same pass.
 *
 * <p>Why: Jackson's property-based type handling copies the discriminator (the unions keep it visible) into a
 * token buffer and reads the object through a parser sequence, for every item of every message. Whenever this
 * path cannot be sure to match Jackson (the tag not first or not a string, an unknown tag, a variant that is not
 * a plain record, strict features), the tokens it read are replayed to Jackson's own type handling, exactly as
 * Jackson replays what it buffers itself.
 */
final class UnionDeserializer extends StdDeserializer<Object> implements ResolvableDeserializer {
    private static final long serialVersionUID = 1L;

    private final transient JsonDeserializer<Object> fallback;
    private final String property;
    private final transient Map<String, JsonDeserializer<Object>> variants = new ConcurrentHashMap<>();

    private UnionDeserializer(JavaType type, JsonDeserializer<Object> fallback, String property) {
        super(type);
        this.fallback = fallback;
        this.property = property;
    }

    /** The union reader for {@code type}, or {@code null} when it is not a union with a visible name tag. */
    static UnionDeserializer forUnion(JavaType type, JsonDeserializer<Object> fallback) {
        Class<?> raw = type.getRawClass();
        JsonTypeInfo info = raw.getAnnotation(JsonTypeInfo.class);
        if (!raw.isInterface() || !raw.getPackageName().equals(UnionDeserializer.class.getPackageName())
                || info == null || info.use() != JsonTypeInfo.Id.NAME
                || info.include() != JsonTypeInfo.As.EXISTING_PROPERTY || !info.visible()
                || info.property().isEmpty()) {
            return null;
        }
        return new UnionDeserializer(type, fallback, info.property());
    }

    /** One instance per union type, as Jackson keeps its own. */
    @Override
    public boolean isCachable() {
        return true;
    }

    @Override
    public void resolve(DeserializationContext ctxt) throws JsonMappingException {
        if (fallback instanceof ResolvableDeserializer r) {
            r.resolve(ctxt);
        }
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        return fallback.deserialize(p, ctxt);
    }

    @Override
    public Object deserializeWithType(JsonParser p, DeserializationContext ctxt, TypeDeserializer typeDeserializer)
            throws IOException {
        if (typeDeserializer.getTypeInclusion() != JsonTypeInfo.As.EXISTING_PROPERTY
                || !property.equals(typeDeserializer.getPropertyName())
                || !p.isExpectedStartObjectToken() || !RecordDeserializer.bindsMembers(ctxt)) {
            return fallback.deserializeWithType(p, ctxt, typeDeserializer);
        }
        JsonToken t = p.nextToken();
        if (t != JsonToken.FIELD_NAME || !property.equals(p.currentName())) {
            // Nothing read but the start of the object: Jackson's handling starts from a member name too.
            return fallback.deserializeWithType(p, ctxt, typeDeserializer);
        }
        String name = p.currentName();
        if (p.nextToken() == JsonToken.VALUE_STRING) {
            JsonDeserializer<Object> variant = variant(ctxt, typeDeserializer, p.getText());
            if (variant instanceof RecordDeserializer record) {
                return record.deserializeFromMember(p, ctxt, name);
            }
        }
        // Give back the member read so far, in front of the rest of the object.
        TokenBuffer replay = ctxt.bufferForInputBuffering(p);
        replay.writeFieldName(name);
        replay.copyCurrentStructure(p);
        JsonParser rest = JsonParserSequence.createFlattened(false, replay.asParser(p), p);
        rest.nextToken();
        return fallback.deserializeWithType(rest, ctxt, typeDeserializer);
    }

    /** The deserializer of the variant tagged {@code id}, or {@code null} for tags the union does not know. */
    private JsonDeserializer<Object> variant(DeserializationContext ctxt, TypeDeserializer typeDeserializer, String id)
            throws IOException {
        JsonDeserializer<Object> d = variants.get(id);
        if (d == null) {
            JavaType type = typeDeserializer.getTypeIdResolver().typeFromId(ctxt, id);
            if (type == null || !handledType().isAssignableFrom(type.getRawClass())) {
                return null;
            }
            d = ctxt.findContextualValueDeserializer(type, null);
            // Bounded by the union's variants: only tags that resolve are remembered.
            variants.put(id, d);
        }
        return d;
    }
}

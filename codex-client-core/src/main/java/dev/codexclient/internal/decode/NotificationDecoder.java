package dev.codexclient.internal.decode;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.codexclient.protocol.ServerNotification;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decodes a notification's bytes straight into its {@link ServerNotification} variant.
 *
 * <p>Every variant is a record of {@code (emittedAtMs, params)}. Jackson's union decode reads the {@code method}
 * type id, buffers tokens to replay it and then binds the variant; here the method is already known from routing,
 * so one pass binds {@code params} with the params type's own reader and calls the record's constructor. The
 * result is the same value the union decode produces; a variant of any other shape, an unknown method or an
 * {@code emittedAtMs} that is not an integer goes through the union decode.
 */
public final class NotificationDecoder {
    private final ObjectMapper mapper;
    private volatile ObjectReader union;
    private final Map<String, Variant> byMethod = new ConcurrentHashMap<>();

    /** How to build one variant; {@code NONE} marks methods that take the union decode. */
    private record Variant(ObjectReader params, Constructor<?> constructor, int paramsIndex, int emittedIndex) {
        static final Variant NONE = new Variant(null, null, -1, -1);
    }

    public NotificationDecoder(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * Decodes one notification.
     *
     * @throws IOException when the message does not match the schema of its method
     */
    public ServerNotification decode(String method, byte[] message) throws IOException {
        Variant v = byMethod.get(method);
        if (v == null) {
            v = variant(method);
            // Bounded by the methods of the schema: unknown methods are not remembered.
            if (Variants.BY_METHOD.containsKey(method)) {
                byMethod.put(method, v);
            }
        }
        if (v == Variant.NONE) {
            return union().readValue(message);
        }
        Object params = null;
        Long emittedAtMs = null;
        try (JsonParser p = mapper.getFactory().createParser(message)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return union().readValue(message);
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("params")) {
                    params = value == JsonToken.VALUE_NULL ? null : v.params().readValue(p);
                } else if (name.equals("emittedAtMs")) {
                    if (value == JsonToken.VALUE_NUMBER_INT) {
                        emittedAtMs = p.getLongValue();
                    } else if (value == JsonToken.VALUE_NULL) {
                        emittedAtMs = null;
                    } else {
                        // Leave coercions (and their errors) to Jackson's own rules.
                        return union().readValue(message);
                    }
                } else {
                    p.skipChildren();
                }
            }
        }
        Object[] args = new Object[2];
        args[v.paramsIndex()] = params;
        args[v.emittedIndex()] = emittedAtMs;
        try {
            return (ServerNotification) v.constructor().newInstance(args);
        } catch (InvocationTargetException e) {
            throw new IOException("cannot build " + method + ": " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IOException("cannot build " + method, e);
        }
    }

    /** Built on first use: a reader prefetches its deserializer, and the union's loads every variant. */
    private ObjectReader union() {
        ObjectReader r = union;
        if (r == null) {
            r = mapper.readerFor(ServerNotification.class);
            union = r;
        }
        return r;
    }

    private Variant variant(String method) {
        Class<?> type = Variants.BY_METHOD.get(method);
        if (type == null || !type.isRecord()) {
            return Variant.NONE;
        }
        RecordComponent[] components = type.getRecordComponents();
        if (components.length != 2) {
            return Variant.NONE;
        }
        int paramsIndex = -1;
        int emittedIndex = -1;
        for (int i = 0; i < 2; i++) {
            RecordComponent c = components[i];
            if (c.getName().equals("params")) {
                paramsIndex = i;
            } else if (c.getName().equals("emittedAtMs") && c.getType() == Long.class) {
                emittedIndex = i;
            }
        }
        if (paramsIndex < 0 || emittedIndex < 0) {
            return Variant.NONE;
        }
        try {
            Constructor<?> constructor = type.getDeclaredConstructor(components[0].getType(),
                    components[1].getType());
            ObjectReader params = mapper.readerFor(
                    mapper.getTypeFactory().constructType(components[paramsIndex].getGenericType()));
            return new Variant(params, constructor, paramsIndex, emittedIndex);
        } catch (NoSuchMethodException | SecurityException e) {
            return Variant.NONE;
        }
    }

    /** The variant of every method, read on first use: reading the annotation loads every variant class. */
    private static final class Variants {
        static final Map<String, Class<?>> BY_METHOD = load();

        private Variants() {
        }

        private static Map<String, Class<?>> load() {
            Map<String, Class<?>> out = new HashMap<>();
            JsonSubTypes subtypes = ServerNotification.class.getAnnotation(JsonSubTypes.class);
            if (subtypes != null) {
                for (JsonSubTypes.Type t : subtypes.value()) {
                    out.put(t.name(), t.value());
                }
            }
            return Map.copyOf(out);
        }
    }
}

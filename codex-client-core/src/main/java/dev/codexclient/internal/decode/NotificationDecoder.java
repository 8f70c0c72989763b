package dev.codexclient.internal.decode;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.codexclient.protocol.ServerNotification;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decodes a notification's bytes straight into its {@link ServerNotification} variant.
 *
 * <p>Every variant is a record of {@code (emittedAtMs, params)}. Jackson's union decode reads the {@code method}
 * type id, buffers tokens to replay it and then binds the variant; here the method is read (or, in
 * {@link #decode}, already known from routing), so one pass binds {@code params} with the params type's own reader
 * and calls the record's constructor. The result is the same value the union decode produces; a variant of any
 * other shape, an unknown method or an {@code emittedAtMs} that is not an integer goes through the union decode.
 *
 * <p>Two entry points: {@link #decodeLine} on the reader thread, for the whole line in one pass including its
 * routing (the usual case), and {@link #decode} on a lane, for a notification the reader thread only scanned.
 */
public final class NotificationDecoder {
    private final ObjectMapper mapper;
    private volatile ObjectReader union;
    private final Map<String, Variant> byMethod = new ConcurrentHashMap<>();
    private volatile LastMethod lastMethod;

    /**
     * How to build one variant; {@code NONE} marks methods that take the union decode. {@code thread} and
     * {@code turn} read the routing ids from the typed params, or are {@code null} when the params type has no
     * such member.
     */
    private record Variant(ObjectReader params, Constructor<?> constructor, int paramsIndex, int emittedIndex,
                           Route thread, Route turn) {
        static final Variant NONE = new Variant(null, null, -1, -1, null, null);
    }

    /** The method {@link #decodeLine} saw last, as characters to compare the next one with. */
    private record LastMethod(String method, char[] chars, Variant variant) {
    }

    /** A notification decoded in one pass, with the thread and turn it belongs to. */
    public record Decoded(String method, ServerNotification notification, Optional<String> threadId,
                          Optional<String> turnId) {
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
        Variant v = variantOf(method);
        if (v == Variant.NONE) {
            return union().readValue(message);
        }
        try (JsonParser p = mapper.getFactory().createParser(message)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return union().readValue(message);
            }
            Members m = readMembers(p, v, false);
            // Leave coercions of emittedAtMs (and their errors) to Jackson's own rules.
            return m == null ? union().readValue(message) : build(method, v, m.params(), m.emittedAtMs());
        }
    }

    /**
     * Decodes a whole line in one pass, for the reader thread: the method, then the params bound straight into
     * their record, whose members give the thread and turn to route by. This is the hot path (token deltas,
     * command output), so each line is tokenized once and no tree is built.
     *
     * <p>The thread and turn come from the params members the schema defines ({@code threadId}, else
     * {@code thread.id}; {@code turnId}, else {@code turn.id}); a member the pinned schema does not define for
     * this method is unknown data here as everywhere else, so it does not route.
     *
     * <p>It declines (returns {@code null}) whenever it is not certain to give what the general path gives: the
     * method not first or not a method of the schema, {@code serverRequest/resolved} (the connection reads its
     * request id), an {@code id} (a request), params that are absent, not an object or do not match the schema,
     * and any line that is not JSON. The general path then handles the line as if this had not run.
     */
    public Decoded decodeLine(byte[] line) {
        try (JsonParser p = mapper.getFactory().createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT || p.nextToken() != JsonToken.FIELD_NAME
                    || !"method".equals(p.currentName()) || p.nextToken() != JsonToken.VALUE_STRING) {
                return null;
            }
            String method;
            Variant v;
            // Streams repeat one method: compare its characters with the last one's before making a string of it.
            LastMethod last = lastMethod;
            char[] text = p.getTextCharacters();
            int from = p.getTextOffset();
            int to = from + p.getTextLength();
            if (last != null && Arrays.equals(text, from, to, last.chars(), 0, last.chars().length)) {
                method = last.method();
                v = last.variant();
            } else {
                method = new String(text, from, to - from);
                v = variantOf(method);
                if (v != Variant.NONE) {
                    lastMethod = new LastMethod(method, method.toCharArray(), v);
                }
            }
            if (v == Variant.NONE || method.equals("serverRequest/resolved")) {
                return null;
            }
            Members m = readMembers(p, v, true);
            if (m == null) {
                return null;
            }
            Object params = m.params();
            return new Decoded(method, build(method, v, params, m.emittedAtMs()), Route.read(v.thread(), params),
                    Route.read(v.turn(), params));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The members of a notification after its method. */
    private record Members(Object params, Long emittedAtMs) {
    }

    /**
     * Reads the rest of the object: {@code params} bound into its record, {@code emittedAtMs}, anything else
     * skipped. Returns {@code null} to decline: for an {@code emittedAtMs} that is not an integer or null, and for a
     * whole {@code line} also for an {@code id} or second {@code method} (not a plain notification) and for
     * {@code params} that are missing or not an object.
     */
    private static Members readMembers(JsonParser p, Variant v, boolean line) throws IOException {
        Object params = null;
        Long emittedAtMs = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            if (name.equals("params")) {
                if (value == JsonToken.VALUE_NULL && !line) {
                    params = null;
                } else if (value == JsonToken.START_OBJECT || !line) {
                    params = v.params().readValue(p);
                } else {
                    return null;
                }
            } else if (name.equals("emittedAtMs")) {
                if (value == JsonToken.VALUE_NUMBER_INT) {
                    emittedAtMs = p.getLongValue();
                } else if (value == JsonToken.VALUE_NULL) {
                    emittedAtMs = null;
                } else {
                    return null;
                }
            } else if (line && (name.equals("id") || name.equals("method"))) {
                return null;
            } else {
                p.skipChildren();
            }
        }
        return line && params == null ? null : new Members(params, emittedAtMs);
    }

    private Variant variantOf(String method) {
        Variant v = byMethod.get(method);
        if (v == null) {
            v = variant(method);
            // Bounded by the methods of the schema: unknown methods are not remembered.
            if (Variants.BY_METHOD.containsKey(method)) {
                byMethod.put(method, v);
            }
        }
        return v;
    }

    private static ServerNotification build(String method, Variant v, Object params, Long emittedAtMs)
            throws IOException {
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
            Class<?> paramsType = components[paramsIndex].getType();
            return new Variant(params, constructor, paramsIndex, emittedIndex,
                    Route.of(paramsType, "threadId", "thread"), Route.of(paramsType, "turnId", "turn"));
        } catch (NoSuchMethodException | SecurityException e) {
            return Variant.NONE;
        }
    }

    /**
     * Reads one routing id from typed params with the general path's precedence: the {@code xId} member, else the
     * {@code x} object's {@code id} (members are matched by their JSON names).
     */
    private record Route(MethodHandle member, MethodHandle object, MethodHandle objectId) {
        private static final MethodType GETTER = MethodType.methodType(Object.class, Object.class);

        /** The route, or {@code null} when the params type has neither member. */
        static Route of(Class<?> paramsType, String idMember, String objectMember) {
            if (!paramsType.isRecord()) {
                return null;
            }
            MethodHandle member = accessor(paramsType, idMember, String.class);
            MethodHandle object = null;
            MethodHandle objectId = null;
            Class<?> objectType = componentType(paramsType, objectMember);
            if (objectType != null && objectType.isRecord()) {
                objectId = accessor(objectType, "id", String.class);
                object = objectId == null ? null : accessor(paramsType, objectMember, objectType);
            }
            if (member == null && object == null) {
                return null;
            }
            return new Route(member, object, object == null ? null : objectId);
        }

        static Optional<String> read(Route route, Object params) {
            return route == null ? Optional.empty() : Optional.ofNullable(route.read(params));
        }

        String read(Object params) {
            try {
                if (member != null) {
                    String id = (String) (Object) member.invokeExact(params);
                    if (id != null) {
                        return id;
                    }
                }
                if (object != null) {
                    Object o = (Object) object.invokeExact(params);
                    return o == null ? null : (String) (Object) objectId.invokeExact(o);
                }
                return null;
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException("cannot read a record accessor", e);
            }
        }

        private static Class<?> componentType(Class<?> record, String jsonName) {
            RecordComponent c = component(record, jsonName);
            return c == null ? null : c.getType();
        }

        private static MethodHandle accessor(Class<?> record, String jsonName, Class<?> type) {
            RecordComponent c = component(record, jsonName);
            if (c == null || c.getType() != type) {
                return null;
            }
            try {
                return MethodHandles.publicLookup().unreflect(c.getAccessor()).asType(GETTER);
            } catch (IllegalAccessException e) {
                return null;
            }
        }

        private static RecordComponent component(Class<?> record, String jsonName) {
            for (RecordComponent c : record.getRecordComponents()) {
                JsonProperty p = c.getAccessor().getAnnotation(JsonProperty.class);
                if ((p != null && !p.value().isEmpty() ? p.value() : c.getName()).equals(jsonName)) {
                    return c;
                }
            }
            return null;
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

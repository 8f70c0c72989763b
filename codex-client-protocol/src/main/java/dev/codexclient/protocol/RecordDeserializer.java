package dev.codexclient.protocol;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.deser.AbstractDeserializer;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBase;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.ResolvableDeserializer;
import com.fasterxml.jackson.databind.deser.std.NumberDeserializers;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Binds a plain protocol record member by member, straight into its canonical constructor.
 *
 * <p>Why: for records Jackson takes its general property-based creator path, which buffers every creator
 * property, looks each member up in a property map and carries the machinery for every feature a creator may use.
 * On the hot path (token deltas, command output) that bookkeeping costs more than tokenizing the message. The
 * generated records use none of those features: every component is a {@code @JsonProperty} with a name, unknown
 * members are ignored. For exactly those records this binder matches names against the components (by identity
 * first: Jackson canonicalizes member names), reads each value with the very deserializer Jackson would use, and
 * calls the constructor.
 *
 * <p>The result is the same value Jackson's own path produces: explicit {@code null} takes the deserializer's null
 * value, a missing member its absent value (so {@link Tristate} and primitives behave as before), duplicates keep
 * the last value, errors carry the same path. Anything else (a record with any other Jackson annotation, input
 * that is not an object, features that make creators strict) goes to Jackson's deserializer unchanged.
 */
final class RecordDeserializer extends StdDeserializer<Object> implements ResolvableDeserializer {
    private static final long serialVersionUID = 1L;

    /** Features under which Jackson's creator path rejects input this binder would accept. */
    private static final int STRICT_FEATURES = DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES.getMask()
            | DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES.getMask();

    private static final Set<Class<? extends Annotation>> PLAIN_CLASS_ANNOTATIONS =
            Set.of(JsonInclude.class, JsonIgnoreProperties.class, JsonPropertyOrder.class);
    private static final Set<Class<? extends Annotation>> PLAIN_MEMBER_ANNOTATIONS =
            Set.of(JsonInclude.class, JsonProperty.class);

    /** Marks a component no member was read for; it takes the deserializer's absent value. */
    private static final Object MISSING = new Object();

    private final transient JsonDeserializer<Object> fallback;
    private final transient Constructor<?> constructor;
    private final String[] names;
    private final transient JavaType[] types;
    private transient volatile Components components;

    /** The component deserializers, looked up on first use: records refer to each other, cycles included. */
    private record Components(JsonDeserializer<Object>[] deserializers, byte[] scalars) {
    }

    /**
     * Components whose value, in its usual token, is read straight off the parser: exactly what Jackson's own
     * deserializer for them does with that token, minus a call through a site that sees every deserializer of
     * the protocol. Any other token goes to the deserializer.
     */
    private static final byte OTHER = 0;
    private static final byte STRING = 1;
    private static final byte LONG = 2;
    private static final byte INT = 3;
    private static final byte BOOLEAN = 4;

    private RecordDeserializer(JavaType type, JsonDeserializer<Object> fallback, Constructor<?> constructor,
                               String[] names, JavaType[] types) {
        super(type);
        this.fallback = fallback;
        this.constructor = constructor;
        this.names = names;
        this.types = types;
    }

    /** The module that installs the binder for every record that qualifies, and {@link UnionDeserializer}. */
    static SimpleModule module() {
        SimpleModule module = new SimpleModule("codex-client-records");
        module.setDeserializerModifier(new BeanDeserializerModifier() {
            @Override
            @SuppressWarnings("unchecked")
            public JsonDeserializer<?> modifyDeserializer(DeserializationConfig config, BeanDescription description,
                                                          JsonDeserializer<?> deserializer) {
                JsonDeserializer<Object> jackson = (JsonDeserializer<Object>) deserializer;
                StdDeserializer<Object> plain = null;
                if (deserializer instanceof AbstractDeserializer) {
                    plain = UnionDeserializer.forUnion(description.getType(), jackson);
                } else if (deserializer instanceof BeanDeserializerBase) {
                    plain = forRecord(config, description.getType(), jackson);
                }
                return plain != null ? plain : deserializer;
            }
        });
        return module;
    }

    /** The binder for {@code type}, or {@code null} when the record uses anything beyond plain properties. */
    private static RecordDeserializer forRecord(DeserializationConfig config, JavaType type,
                                                JsonDeserializer<Object> fallback) {
        Class<?> raw = type.getRawClass();
        if (!raw.isRecord() || !raw.getPackageName().equals(RecordDeserializer.class.getPackageName())
                || !onlyPlain(raw.getAnnotations(), PLAIN_CLASS_ANNOTATIONS)) {
            return null;
        }
        JsonIgnoreProperties ignore = raw.getAnnotation(JsonIgnoreProperties.class);
        if (ignore == null || !ignore.ignoreUnknown() || ignore.value().length > 0) {
            return null;
        }
        for (AccessibleObject member : members(raw)) {
            if (!onlyPlain(member.getAnnotations(), PLAIN_MEMBER_ANNOTATIONS)) {
                return null;
            }
        }
        RecordComponent[] components = raw.getRecordComponents();
        Class<?>[] parameterTypes = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            parameterTypes[i] = components[i].getType();
        }
        Constructor<?> constructor;
        try {
            constructor = raw.getDeclaredConstructor(parameterTypes);
        } catch (NoSuchMethodException e) {
            return null;
        }
        String[] names = new String[components.length];
        JavaType[] types = new JavaType[components.length];
        Set<String> distinct = new HashSet<>();
        Annotation[][] parameterAnnotations = constructor.getParameterAnnotations();
        for (int i = 0; i < components.length; i++) {
            JsonProperty property = find(parameterAnnotations[i]);
            if (property == null || property.value().isEmpty() || property.required()
                    || property.access() != JsonProperty.Access.AUTO || !distinct.add(property.value())) {
                return null;
            }
            names[i] = property.value().intern();
            types[i] = config.getTypeFactory().constructType(components[i].getGenericType());
        }
        return new RecordDeserializer(type, fallback, constructor, names, types);
    }

    private static List<AccessibleObject> members(Class<?> raw) {
        List<AccessibleObject> all = new ArrayList<>();
        all.addAll(List.of(raw.getDeclaredFields()));
        all.addAll(List.of(raw.getDeclaredMethods()));
        all.addAll(List.of(raw.getDeclaredConstructors()));
        return all;
    }

    /** True when every Jackson annotation among {@code annotations} is one of {@code allowed}. */
    private static boolean onlyPlain(Annotation[] annotations, Set<Class<? extends Annotation>> allowed) {
        for (Annotation a : annotations) {
            String pkg = a.annotationType().getPackageName();
            if (pkg.startsWith("com.fasterxml.jackson") && !allowed.contains(a.annotationType())) {
                return false;
            }
        }
        return true;
    }

    private static JsonProperty find(Annotation[] annotations) {
        for (Annotation a : annotations) {
            if (a instanceof JsonProperty p) {
                return p;
            }
        }
        return null;
    }

    /** Like Jackson's bean deserializers: one instance per type, or every lookup would build a new one. */
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
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_OBJECT) {
            t = p.nextToken();
        } else if (t != JsonToken.FIELD_NAME && t != JsonToken.END_OBJECT) {
            return fallback.deserialize(p, ctxt);
        }
        if (!bindsMembers(ctxt)) {
            return fallback.deserialize(p, ctxt);
        }
        return bind(p, ctxt, t, newArgs(), components(ctxt));
    }

    /** False under features that make Jackson's creator path stricter than this binder. */
    static boolean bindsMembers(DeserializationContext ctxt) {
        return (ctxt.getDeserializationFeatures() & STRICT_FEATURES) == 0
                && !ctxt.isEnabled(MapperFeature.ACCEPT_CASE_INSENSITIVE_PROPERTIES);
    }

    /**
     * Binds an object whose member {@code name} was read by the caller and whose value the parser is at (a union
     * reads its discriminator this way), then the rest of the object. Only when {@link #bindsMembers} holds.
     */
    Object deserializeFromMember(JsonParser p, DeserializationContext ctxt, String name) throws IOException {
        Components c = components(ctxt);
        Object[] args = newArgs();
        readMember(p, ctxt, c, args, name, p.currentToken());
        return bind(p, ctxt, p.nextToken(), args, c);
    }

    private Object[] newArgs() {
        Object[] args = new Object[names.length];
        Arrays.fill(args, MISSING);
        return args;
    }

    private Object bind(JsonParser p, DeserializationContext ctxt, JsonToken first, Object[] args, Components c)
            throws IOException {
        JsonToken t = first;
        for (; t == JsonToken.FIELD_NAME; t = p.nextToken()) {
            String name = p.currentName();
            readMember(p, ctxt, c, args, name, p.nextToken());
        }
        if (t != JsonToken.END_OBJECT) {
            return ctxt.handleUnexpectedToken(handledType(), p);
        }
        JsonDeserializer<Object>[] deserializers = c.deserializers();
        for (int i = 0; i < args.length; i++) {
            if (args[i] == MISSING) {
                args[i] = deserializers[i].getAbsentValue(ctxt);
            }
        }
        try {
            return constructor.newInstance(args);
        } catch (InvocationTargetException e) {
            return ctxt.handleInstantiationProblem(handledType(), args, e.getCause());
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            return ctxt.handleInstantiationProblem(handledType(), args, e);
        }
    }

    /** Reads the value the parser is at into the component named {@code name}, or skips it. */
    private void readMember(JsonParser p, DeserializationContext ctxt, Components c, Object[] args, String name,
                            JsonToken value) throws IOException {
        int i = indexOf(name);
        if (i < 0) {
            p.skipChildren();
            return;
        }
        try {
            if (value == JsonToken.VALUE_NULL) {
                args[i] = c.deserializers()[i].getNullValue(ctxt);
                return;
            }
            switch (c.scalars()[i]) {
                case STRING -> {
                    if (value == JsonToken.VALUE_STRING) {
                        args[i] = p.getText();
                        return;
                    }
                }
                case LONG -> {
                    if (value == JsonToken.VALUE_NUMBER_INT) {
                        args[i] = p.getLongValue();
                        return;
                    }
                }
                case INT -> {
                    if (value == JsonToken.VALUE_NUMBER_INT) {
                        args[i] = p.getIntValue();
                        return;
                    }
                }
                case BOOLEAN -> {
                    if (value == JsonToken.VALUE_TRUE || value == JsonToken.VALUE_FALSE) {
                        args[i] = value == JsonToken.VALUE_TRUE;
                        return;
                    }
                }
                default -> {
                }
            }
            args[i] = c.deserializers()[i].deserialize(p, ctxt);
        } catch (Exception e) {
            throw wrap(e, name, ctxt);
        }
    }

    /** Member names come canonicalized (interned) from the parser; equality covers any that do not. */
    private int indexOf(String name) {
        String[] n = names;
        for (int i = 0; i < n.length; i++) {
            if (n[i] == name) {
                return i;
            }
        }
        for (int i = 0; i < n.length; i++) {
            if (n[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    @SuppressWarnings("unchecked")
    private Components components(DeserializationContext ctxt) throws JsonMappingException {
        Components c = components;
        if (c == null) {
            JsonDeserializer<Object>[] deserializers = new JsonDeserializer[types.length];
            byte[] scalars = new byte[types.length];
            for (int i = 0; i < types.length; i++) {
                // The root deserializer carries the type deserializer of union-typed components, as a property's would.
                deserializers[i] = ctxt.findRootValueDeserializer(types[i]);
                scalars[i] = scalar(types[i].getRawClass(), deserializers[i]);
            }
            c = new Components(deserializers, scalars);
            components = c;
        }
        return c;
    }

    /** The scalar kind of a component, when its deserializer is Jackson's standard one for its type. */
    private static byte scalar(Class<?> type, JsonDeserializer<Object> deserializer) {
        Class<?> d = deserializer.getClass();
        if (type == String.class && d == StringDeserializer.class) {
            return STRING;
        }
        if ((type == Long.class || type == long.class) && d == NumberDeserializers.LongDeserializer.class) {
            return LONG;
        }
        if ((type == Integer.class || type == int.class) && d == NumberDeserializers.IntegerDeserializer.class) {
            return INT;
        }
        if ((type == Boolean.class || type == boolean.class) && d == NumberDeserializers.BooleanDeserializer.class) {
            return BOOLEAN;
        }
        return OTHER;
    }

    /** Jackson's own rule: other I/O errors pass through, Jackson's errors and runtime ones gain the member's path. */
    private IOException wrap(Exception e, String name, DeserializationContext ctxt) throws IOException {
        boolean wrap = ctxt.isEnabled(DeserializationFeature.WRAP_EXCEPTIONS);
        if (e instanceof IOException io && (!wrap || !(e instanceof JacksonException))) {
            throw io;
        }
        if (e instanceof RuntimeException r && !wrap) {
            throw r;
        }
        return JsonMappingException.wrapWithPath(e, handledType(), name);
    }
}

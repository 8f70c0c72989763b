package dev.codexclient.internal.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Derives a JSON schema from a Java type, for dynamic-tool input schemas and structured turn output.
 *
 * <p>The schema is written for the model provider's strict mode: every record component is listed in
 * {@code required} and {@code additionalProperties} is false; a component that may be missing is declared as an
 * {@code Optional} and becomes nullable ({@code anyOf [X, null]}) instead of optional. Supported: records,
 * strings, booleans, numbers (boxed or primitive), enums, collections and arrays, {@code Map<String, X>},
 * {@code Optional*}, {@link JsonNode} (any value). Anything else is an {@link IllegalArgumentException} naming the
 * offending component, raised when the tool or turn is declared rather than when the model calls it.
 */
public final class RecordSchemas {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private RecordSchemas() {
    }

    /** The schema of {@code type}; a record becomes an object schema. */
    public static ObjectNode schemaOf(Type type) {
        return schema(type, new HashSet<>(), type.getTypeName());
    }

    private static ObjectNode schema(Type type, Set<Class<?>> inProgress, String path) {
        if (type instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            Type[] args = p.getActualTypeArguments();
            if (raw == Optional.class) {
                return nullable(schema(args[0], inProgress, path));
            }
            if (Collection.class.isAssignableFrom(raw)) {
                ObjectNode s = F.objectNode().put("type", "array");
                s.set("items", schema(args[0], inProgress, path + "[]"));
                return s;
            }
            if (Map.class.isAssignableFrom(raw)) {
                if (args[0] != String.class) {
                    throw new IllegalArgumentException(path + ": map keys must be String");
                }
                ObjectNode s = F.objectNode().put("type", "object");
                s.set("additionalProperties", schema(args[1], inProgress, path + "{}"));
                return s;
            }
            throw new IllegalArgumentException(path + ": unsupported generic type " + p.getTypeName());
        }
        if (type instanceof GenericArrayType g) {
            ObjectNode s = F.objectNode().put("type", "array");
            s.set("items", schema(g.getGenericComponentType(), inProgress, path + "[]"));
            return s;
        }
        if (!(type instanceof Class<?> c)) {
            throw new IllegalArgumentException(path + ": unsupported type " + type.getTypeName()
                    + " (type variables and wildcards cannot be described)");
        }
        if (c == String.class || c == char.class || c == Character.class) {
            return F.objectNode().put("type", "string");
        }
        if (c == boolean.class || c == Boolean.class) {
            return F.objectNode().put("type", "boolean");
        }
        if (c == int.class || c == Integer.class || c == long.class || c == Long.class || c == short.class
                || c == Short.class || c == byte.class || c == Byte.class || c == BigInteger.class) {
            return F.objectNode().put("type", "integer");
        }
        if (c == double.class || c == Double.class || c == float.class || c == Float.class
                || c == BigDecimal.class) {
            return F.objectNode().put("type", "number");
        }
        if (c == OptionalInt.class || c == OptionalLong.class) {
            return nullable(F.objectNode().put("type", "integer"));
        }
        if (c == OptionalDouble.class) {
            return nullable(F.objectNode().put("type", "number"));
        }
        if (JsonNode.class.isAssignableFrom(c)) {
            return F.objectNode();
        }
        if (c.isEnum()) {
            ObjectNode s = F.objectNode().put("type", "string");
            ArrayNode values = s.putArray("enum");
            for (Object constant : c.getEnumConstants()) {
                values.add(wireName((Enum<?>) constant));
            }
            return s;
        }
        if (c.isArray()) {
            ObjectNode s = F.objectNode().put("type", "array");
            s.set("items", schema(c.getComponentType(), inProgress, path + "[]"));
            return s;
        }
        if (c.isRecord()) {
            if (!inProgress.add(c)) {
                throw new IllegalArgumentException(path + ": recursive record " + c.getName()
                        + " cannot be described by a strict schema");
            }
            ObjectNode s = F.objectNode().put("type", "object");
            ObjectNode props = s.putObject("properties");
            ArrayNode required = s.putArray("required");
            for (RecordComponent rc : c.getRecordComponents()) {
                String name = propertyName(rc);
                props.set(name, schema(rc.getGenericType(), inProgress, path + "." + rc.getName()));
                required.add(name);
            }
            s.put("additionalProperties", false);
            inProgress.remove(c);
            return s;
        }
        throw new IllegalArgumentException(path + ": unsupported type " + c.getName()
                + " (use a record, String, a number, boolean, an enum, a List, a Map<String, ?> or Optional)");
    }

    private static ObjectNode nullable(ObjectNode inner) {
        ObjectNode s = F.objectNode();
        ArrayNode any = s.putArray("anyOf");
        any.add(inner);
        any.add(F.objectNode().put("type", "null"));
        return s;
    }

    private static String propertyName(RecordComponent rc) {
        JsonProperty p = rc.getAnnotation(JsonProperty.class);
        if (p == null) {
            try {
                p = rc.getDeclaringRecord().getDeclaredField(rc.getName()).getAnnotation(JsonProperty.class);
            } catch (NoSuchFieldException ignored) {
                // records always have the field; keep the component name
            }
        }
        return p != null && !p.value().isEmpty() ? p.value() : rc.getName();
    }

    private static String wireName(Enum<?> constant) {
        try {
            JsonProperty p = constant.getDeclaringClass().getField(constant.name()).getAnnotation(JsonProperty.class);
            return p != null && !p.value().isEmpty() ? p.value() : constant.name();
        } catch (NoSuchFieldException e) {
            return constant.name();
        }
    }
}

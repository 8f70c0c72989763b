package dev.codexclient.generator;

import static dev.codexclient.generator.Model.*;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import java.util.Set;

/** Java types of the model's types, and the classes the generated code refers to. */
final class Types {
    static final String PKG = Generator.PACKAGE;

    static final ClassName STRING = ClassName.get(String.class);
    static final ClassName OBJECT = ClassName.get(Object.class);
    static final ClassName LIST = ClassName.get("java.util", "List");
    static final ClassName MAP = ClassName.get("java.util", "Map");
    static final ClassName LINKED_HASH_MAP = ClassName.get("java.util", "LinkedHashMap");
    static final ClassName ARRAY_LIST = ClassName.get("java.util", "ArrayList");
    static final ClassName ARRAYS = ClassName.get("java.util", "Arrays");
    static final ClassName OPTIONAL = ClassName.get("java.util", "Optional");
    static final ClassName OBJECTS = ClassName.get("java.util", "Objects");
    static final ClassName COMPLETABLE_FUTURE = ClassName.get("java.util.concurrent", "CompletableFuture");
    static final ClassName IO_EXCEPTION = ClassName.get("java.io", "IOException");
    static final ClassName ILLEGAL_STATE = ClassName.get(IllegalStateException.class);

    static final ClassName JSON_NODE = ClassName.get("com.fasterxml.jackson.databind", "JsonNode");
    static final ClassName OBJECT_NODE = ClassName.get("com.fasterxml.jackson.databind.node", "ObjectNode");
    static final ClassName JSON_PARSER = ClassName.get("com.fasterxml.jackson.core", "JsonParser");
    static final ClassName JSON_TOKEN = ClassName.get("com.fasterxml.jackson.core", "JsonToken");
    static final ClassName JSON_GENERATOR = ClassName.get("com.fasterxml.jackson.core", "JsonGenerator");
    static final ClassName CONTEXT = ClassName.get("com.fasterxml.jackson.databind", "DeserializationContext");
    static final ClassName PROVIDER = ClassName.get("com.fasterxml.jackson.databind", "SerializerProvider");
    static final ClassName STD_DESERIALIZER =
            ClassName.get("com.fasterxml.jackson.databind.deser.std", "StdDeserializer");
    static final ClassName STD_SERIALIZER = ClassName.get("com.fasterxml.jackson.databind.ser.std", "StdSerializer");
    static final ClassName JSON_DESERIALIZE =
            ClassName.get("com.fasterxml.jackson.databind.annotation", "JsonDeserialize");
    static final ClassName JSON_SERIALIZE = ClassName.get("com.fasterxml.jackson.databind.annotation", "JsonSerialize");
    static final ClassName JSON_PROPERTY = ClassName.get("com.fasterxml.jackson.annotation", "JsonProperty");

    static final ClassName TRISTATE = ClassName.get(PKG, "Tristate");
    static final ClassName UNKNOWN_MEMBERS = ClassName.get(PKG, "UnknownMembers");
    static final ClassName SUPPORT = ClassName.get(PKG, "BindingSupport");
    static final ClassName EXPERIMENTAL = ClassName.get(PKG, "Experimental");
    static final ClassName REQUEST_ID = ClassName.get(PKG, "RequestId");
    static final ClassName METHOD_DESCRIPTOR = ClassName.get(PKG, "MethodDescriptor");
    static final ClassName NOTIFICATION_DESCRIPTOR = ClassName.get(PKG, "NotificationDescriptor");
    static final ClassName PARAMS_PRESENCE = ClassName.get(PKG, "ParamsPresence");
    static final ClassName METHOD_VERSIONS = ClassName.get(PKG, "MethodVersions");

    private final Generator g;

    Types(Generator g) {
        this.g = g;
    }

    /** The generated (or hand-written) class of a definition. */
    ClassName named(String schemaName) {
        return ClassName.get(PKG, g.naming().java(schemaName));
    }

    /** The binder class of a definition. */
    ClassName binder(String schemaName) {
        return ClassName.get(PKG, g.naming().binder(schemaName));
    }

    TypeName of(Ty ty, boolean primitive) {
        if (ty instanceof Prim p) {
            TypeName t = switch (p.prim()) {
                case "boolean" -> TypeName.BOOLEAN;
                case "int" -> TypeName.INT;
                case "long" -> TypeName.LONG;
                case "double" -> TypeName.DOUBLE;
                default -> throw new IllegalStateException(p.prim());
            };
            return primitive ? t : t.box();
        } else if (ty instanceof Str) {
            return STRING;
        } else if (ty instanceof Named n) {
            return named(n.name());
        } else if (ty instanceof ListOf l) {
            return ParameterizedTypeName.get(LIST, of(l.item(), false));
        } else if (ty instanceof MapOf m) {
            return ParameterizedTypeName.get(MAP, STRING, of(m.value(), false));
        } else {
            return JSON_NODE;
        }
    }

    /** The component type of a field. */
    TypeName field(Field f) {
        if (f.tristate()) {
            return ParameterizedTypeName.get(TRISTATE, of(f.ty(), false));
        }
        return of(f.ty(), f.primitive());
    }

    /** True when the type refers to a definition the schema marks deprecated. */
    boolean deprecated(Ty ty) {
        Set<String> dep = g.deprecatedTypes();
        if (ty instanceof Named n) {
            return dep.contains(n.name());
        } else if (ty instanceof ListOf l) {
            return deprecated(l.item());
        } else if (ty instanceof MapOf m) {
            return deprecated(m.value());
        }
        return false;
    }
}

package dev.codexclient.generator;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** The intermediate model the emitter works from. */
final class Model {
    private Model() {
    }

    /** A Java type reference. */
    sealed interface Ty permits Prim, Str, Named, ListOf, MapOf, Any {
    }

    /** boolean / int / long / double. */
    record Prim(String prim, String boxed) implements Ty {
    }

    record Str() implements Ty {
    }

    record Named(String name) implements Ty {
    }

    record ListOf(Ty item) implements Ty {
    }

    record MapOf(Ty value) implements Ty {
    }

    /** Any JSON value. */
    record Any() implements Ty {
    }

    /** A resolved property schema. */
    record Resolved(Ty ty, boolean nullable, boolean doubleNullable, String alias) {
    }

    /** One record component; {@code secret} components are masked by the generated {@code toString()}. */
    record Field(String wire, String name, Ty ty, boolean required, boolean nullable, boolean tristate,
                 JsonNode dflt, String doc, String alias, boolean experimental, boolean deprecated,
                 boolean anySetter, boolean secret) {
        boolean primitive() {
            return required && !nullable && !tristate && !anySetter && ty instanceof Prim;
        }

        /** Written even when null: required and nullable, or a required any-JSON value. */
        boolean alwaysWrite() {
            return required && !primitive() && !tristate && !anySetter && (nullable || ty instanceof Any);
        }

        Field asCommon() {
            // Common union fields are boxed so that Unrecognized can answer null.
            return new Field(wire, name, ty, false, nullable || required, tristate, dflt, doc, alias,
                    experimental, deprecated, anySetter, secret);
        }
    }

    enum Kind { SKIP, ALIAS_STRING, MAP, HANDWRITTEN, ENUM, RECORD, TAGGED, EXTERNAL, UNTAGGED, METHOD_UNION }

    record EnumConst(String wire, String name, String doc, boolean deprecated) {
    }

    record TaggedVariant(String name, String tag, List<Field> fields, List<List<String>> exclusiveGroups, String doc,
                         boolean experimental, boolean deprecated) {
    }

    record ObjVariant(String name, String key, List<Field> fields, Resolved value, String doc, boolean experimental,
                      boolean deprecated) {
    }

    enum UKind { REF, TEXT, NUMBER, ARRAY, OBJECT }

    record UVariant(String name, UKind kind, String ref, Ty ty, List<Field> fields, JsonNode schema, String doc) {
    }

    enum ParamsKind { REQUIRED, OPTIONAL, NONE }

    record MethodDecl(String method, String variant, String constant, String paramsType, ParamsKind paramsKind,
                      String responseType, boolean experimental, boolean deprecated, String doc) {
    }
}

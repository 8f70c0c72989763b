package dev.codexclient.generator;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * The intermediate model: what the schema says, resolved into Java terms, before any code is written. The
 * {@link Analyzer} builds one declaration per generated top-level type; the writers only read it.
 */
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

    /** A definition of the schema, by its schema name (the Java name may differ, see {@link Naming}). */
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

    /**
     * One record component. {@code secret} components are masked by the generated {@code toString()};
     * {@code anySetter} is the map of members the schema allows beyond its properties.
     */
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

        Field notExperimental() {
            return new Field(wire, name, ty, required, nullable, tristate, dflt, doc, alias, false, deprecated,
                    anySetter, secret);
        }
    }

    enum Kind { SKIP, ALIAS_STRING, MAP, HANDWRITTEN, ENUM, RECORD, TAGGED, EXTERNAL, UNTAGGED, METHOD_UNION }

    /** What every generated top-level type has. {@code parents}: untagged unions it is an alternative of. */
    record Head(String schemaName, String javaName, String doc, boolean experimental, boolean deprecated,
                List<String> parents) {
    }

    /** A top-level declaration. */
    sealed interface Decl permits RecordDecl, EnumDecl, TaggedDecl, ExternalDecl, UntaggedDecl {
        Head head();
    }

    /**
     * An object. {@code unknowns}: whether it keeps members the schema does not declare (every record but those
     * with an {@code anySetter} field, which keeps them typed).
     */
    record RecordDecl(Head head, List<Field> fields, boolean unknowns, boolean builder) implements Decl {
    }

    record EnumConst(String wire, String name, String doc, boolean deprecated) {
    }

    record EnumDecl(Head head, List<EnumConst> consts) implements Decl {
    }

    /**
     * A variant of a tagged union (method unions included). {@code tagIndex}: where the tag is written among the
     * fields (0 = first); {@code exclusiveGroups}: flattened alternatives, of which one is set.
     */
    record TaggedVariant(String name, String tag, List<Field> fields, List<List<String>> exclusiveGroups, String doc,
                         boolean experimental, boolean deprecated, boolean unknowns, int tagIndex,
                         MethodDecl method) {
    }

    /**
     * An internally tagged union, or (with {@code methods}) one of the four method unions. {@code common}: the
     * union's own properties, which every variant repeats; {@code shared}: string members that every variant
     * declares as required on its own (a thread item's {@code id}), whose accessor the union declares too.
     */
    record TaggedDecl(Head head, String tag, List<Field> common, List<Field> shared, List<TaggedVariant> variants,
                      boolean methods, boolean request) implements Decl {
    }

    /** An object variant of an externally tagged union: {@code fields} of an object payload, else {@code value}. */
    record ObjVariant(String name, String key, List<Field> fields, Resolved value, String doc, boolean experimental,
                      boolean deprecated) {
    }

    record ExternalDecl(Head head, List<EnumConst> units, List<ObjVariant> objs) implements Decl {
    }

    enum UKind { REF, TEXT, NUMBER, ARRAY, OBJECT }

    record UVariant(String name, UKind kind, String ref, Ty ty, List<Field> fields, JsonNode schema, String doc) {
    }

    record UntaggedDecl(Head head, List<UVariant> variants) implements Decl {
    }

    enum ParamsKind { REQUIRED, OPTIONAL, NONE }

    /** One method of a method union. {@code versions}: the checked codex versions that have it; null when unrecorded. */
    record MethodDecl(String method, String variant, String constant, String paramsType, ParamsKind paramsKind,
                      String responseType, boolean experimental, boolean deprecated, String doc,
                      List<String> versions) {
    }
}

package dev.codexclient.generator;

import static dev.codexclient.generator.Model.*;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/** Writes Java source text for the model. One method per kind of top-level declaration. */
final class Emitter {
    private static final String I1 = "    ";
    private static final String I2 = I1 + I1;
    private static final String I3 = I2 + I1;
    private static final String I4 = I3 + I1;

    private static final String[][] IMPORTS = {
            {"JsonAnyGetter", "com.fasterxml.jackson.annotation.JsonAnyGetter"},
            {"JsonAnySetter", "com.fasterxml.jackson.annotation.JsonAnySetter"},
            {"JsonCreator", "com.fasterxml.jackson.annotation.JsonCreator"},
            {"JsonIgnoreProperties", "com.fasterxml.jackson.annotation.JsonIgnoreProperties"},
            {"JsonInclude", "com.fasterxml.jackson.annotation.JsonInclude"},
            {"JsonProperty", "com.fasterxml.jackson.annotation.JsonProperty"},
            {"JsonPropertyOrder", "com.fasterxml.jackson.annotation.JsonPropertyOrder"},
            {"JsonSubTypes", "com.fasterxml.jackson.annotation.JsonSubTypes"},
            {"JsonTypeInfo", "com.fasterxml.jackson.annotation.JsonTypeInfo"},
            {"JsonValue", "com.fasterxml.jackson.annotation.JsonValue"},
            {"JsonGenerator", "com.fasterxml.jackson.core.JsonGenerator"},
            {"JsonParser", "com.fasterxml.jackson.core.JsonParser"},
            {"TypeReference", "com.fasterxml.jackson.core.type.TypeReference"},
            {"DeserializationContext", "com.fasterxml.jackson.databind.DeserializationContext"},
            {"JsonDeserializer", "com.fasterxml.jackson.databind.JsonDeserializer"},
            {"JsonNode", "com.fasterxml.jackson.databind.JsonNode"},
            {"JsonSerializer", "com.fasterxml.jackson.databind.JsonSerializer"},
            {"SerializerProvider", "com.fasterxml.jackson.databind.SerializerProvider"},
            {"JsonDeserialize", "com.fasterxml.jackson.databind.annotation.JsonDeserialize"},
            {"JsonSerialize", "com.fasterxml.jackson.databind.annotation.JsonSerialize"},
            {"TypeSerializer", "com.fasterxml.jackson.databind.jsontype.TypeSerializer"},
            {"ObjectNode", "com.fasterxml.jackson.databind.node.ObjectNode"},
            {"IOException", "java.io.IOException"},
            {"ArrayList", "java.util.ArrayList"},
            {"Arrays", "java.util.Arrays"},
            {"LinkedHashMap", "java.util.LinkedHashMap"},
            {"List", "java.util.List"},
            {"Map", "java.util.Map"},
            {"Optional", "java.util.Optional"},
            {"CompletableFuture", "java.util.concurrent.CompletableFuture"},
    };

    private static final Set<String> RESERVED_VARIANTS = Set.of("String", "Object", "Integer", "Long", "Boolean",
            "Double", "List", "Map", "JsonNode", "ObjectNode", "Override", "Deprecated", "Experimental", "Tristate",
            "Simple", "Unrecognized", "Deser", "Ser", "Builder", "Void", "Optional", "IOException",
            "SuppressWarnings", "JsonValue", "JsonProperty");

    /** Marks where a type declaration may need {@code @SuppressWarnings("deprecation")}. */
    private static final String SUPPRESS = "\u0000SUPPRESS\u0000";

    private final Generator g;
    private final Set<String> serverResponses = new TreeSet<>();

    Emitter(Generator g) {
        this.g = g;
        prepareMethods();
    }

    // ------------------------------------------------------------------------------------------------------------
    // common helpers

    private String file(String body) {
        boolean usesDeprecated = false;
        for (String d : g.deprecatedTypes()) {
            if (Pattern.compile("\\b" + d + "\\b").matcher(body.replace(SUPPRESS, "")).find()
                    && !body.contains("public enum " + d + " ") && !body.contains("public record " + d + "(")
                    && !body.contains("public sealed interface " + d + " ")) {
                usesDeprecated = true;
            }
        }
        body = body.replace(SUPPRESS, usesDeprecated ? "@SuppressWarnings(\"deprecation\")\n" : "");
        StringBuilder sb = new StringBuilder(Generator.HEADER).append("package ").append(Generator.PACKAGE)
                .append(";\n\n");
        boolean any = false;
        for (String[] imp : IMPORTS) {
            if (Pattern.compile("(?<![\\w.])" + imp[0] + "\\b").matcher(body).find()) {
                sb.append("import ").append(imp[1]).append(";\n");
                any = true;
            }
        }
        if (any) {
            sb.append('\n');
        }
        return sb.append(body).toString();
    }

    static String t(Ty ty, boolean primitive, Set<String> nested) {
        if (ty instanceof Prim p) {
            return primitive ? p.prim() : p.boxed();
        } else if (ty instanceof Str) {
            return "String";
        } else if (ty instanceof Named n) {
            return nested.contains(n.name()) ? Generator.PACKAGE + "." + n.name() : n.name();
        } else if (ty instanceof ListOf l) {
            return "List<" + t(l.item(), false, nested) + ">";
        } else if (ty instanceof MapOf m) {
            return "Map<String, " + t(m.value(), false, nested) + ">";
        } else {
            return "JsonNode";
        }
    }

    static String ft(Field f, Set<String> nested) {
        if (f.tristate()) {
            return "Tristate<" + t(f.ty(), false, nested) + ">";
        }
        return t(f.ty(), f.primitive(), nested);
    }

    /** A Java expression for the Jackson type of a field value, for {@code readTreeAsValue}. */
    static String javaType(Ty ty, Set<String> nested) {
        if (ty instanceof Named || ty instanceof Str || ty instanceof Any || ty instanceof Prim) {
            return t(ty, false, nested) + ".class";
        }
        return "c.getTypeFactory().constructType(new TypeReference<" + t(ty, false, nested) + ">() { })";
    }

    private static String q(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                default -> {
                    if (c < 32 || c > 126) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    private static String qualifier(Field f) {
        List<String> q = new ArrayList<>();
        if (f.anySetter()) {
            return "(every member not listed above)";
        }
        if (f.tristate()) {
            q.add("absent, {@code null} and a value are distinct");
        } else if (f.required() && f.nullable()) {
            q.add("required, nullable: always written, {@code null} included");
        } else if (f.required()) {
            q.add("required");
        } else {
            q.add("optional");
        }
        if (f.dflt() != null && !f.dflt().isNull()) {
            q.add("default {@code " + f.dflt().toString().replace("@", "&#64;").replace("*/", "*&#47;")
                    .replace("{", "&#123;").replace("}", "&#125;").replace("\\", "&#92;") + "}");
        }
        if (f.alias() != null) {
            q.add("schema type {@code " + f.alias() + "}");
        }
        if (f.experimental()) {
            q.add("experimental");
        }
        return "(" + String.join("; ", q) + ")";
    }

    private static List<String> paramTags(List<Field> fields) {
        List<String> tags = new ArrayList<>();
        for (Field f : fields) {
            String d = Docs.inline(Docs.clean(f.doc()));
            tags.add("@param " + f.name() + " " + (d.isEmpty() ? "" : d + " ") + qualifier(f));
        }
        return tags;
    }

    private static List<String> deprecatedTag(String desc) {
        List<String> tags = new ArrayList<>();
        if (Docs.deprecated(desc)) {
            tags.add("@deprecated " + Docs.inline(Docs.escape(desc.strip().replaceFirst("^@deprecated\\s*", ""))));
        }
        return tags;
    }

    private static String componentList(List<Field> fields, Set<String> nested, String indent) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < fields.size(); i++) {
            Field f = fields.get(i);
            sb.append(indent);
            if (f.experimental()) {
                sb.append("@Experimental ");
            }
            if (f.anySetter()) {
                sb.append("@JsonAnySetter @JsonAnyGetter ");
            } else {
                if (f.tristate()) {
                    sb.append("@JsonInclude(JsonInclude.Include.NON_EMPTY) ");
                } else if (f.alwaysWrite()) {
                    sb.append("@JsonInclude(JsonInclude.Include.ALWAYS) ");
                }
                sb.append("@JsonProperty(").append(q(f.wire())).append(") ");
            }
            sb.append(ft(f, nested)).append(' ').append(f.name());
            sb.append(i + 1 < fields.size() ? ",\n" : "");
        }
        return sb.toString();
    }

    private String typeAnnotations(String name, String indent, boolean experimental, String desc) {
        StringBuilder sb = new StringBuilder();
        if (experimental) {
            sb.append(indent).append("@Experimental\n");
        }
        if (Docs.deprecated(desc)) {
            sb.append(indent).append("@Deprecated\n");
        }
        return sb.toString();
    }

    private boolean experimentalType(String name) {
        return !g.stable().containsKey(name);
    }

    private String implementsClause(String name, Set<String> nested, String keyword) {
        Set<String> parents = g.untaggedParents(name);
        if (parents.isEmpty()) {
            return "";
        }
        List<String> ps = new ArrayList<>();
        for (String p : parents) {
            ps.add(t(new Named(p), false, nested));
        }
        return " " + keyword + " " + String.join(", ", ps);
    }

    // ------------------------------------------------------------------------------------------------------------
    // enums

    String enumFile(String name, JsonNode s) {
        List<EnumConst> consts = enumConsts(name, s);
        String desc = s.path("description").asText(null);
        StringBuilder sb = new StringBuilder();
        List<String> tags = deprecatedTag(desc);
        sb.append(Docs.block("", Docs.clean(desc) == null ? "Wire values of {@code " + name + "}."
                : Docs.clean(desc), tags));
        if (!g.untaggedParents(name).isEmpty()) {
            sb.append("@JsonDeserialize(using = JsonDeserializer.None.class)\n");
        }
        sb.append(typeAnnotations(name, "", experimentalType(name), desc));
        sb.append(SUPPRESS);
        sb.append("public enum ").append(name).append(implementsClause(name, Set.of(), "implements")).append(" {\n");
        enumBody(sb, name, consts, I1);
        sb.append("}\n");
        return file(sb.toString());
    }

    private List<EnumConst> enumConsts(String owner, JsonNode s) {
        List<EnumConst> out = new ArrayList<>();
        if (s.has("oneOf")) {
            for (JsonNode v : s.get("oneOf")) {
                String d = v.path("description").asText(null);
                for (JsonNode e : v.get("enum")) {
                    out.add(new EnumConst(e.asText(), Names.constant(e.asText()), d, Docs.deprecated(d)));
                }
            }
        } else {
            for (JsonNode e : s.get("enum")) {
                out.add(new EnumConst(e.asText(), Names.constant(e.asText()), null, false));
            }
        }
        checkConsts(owner, out);
        return out;
    }

    private static void checkConsts(String owner, List<EnumConst> consts) {
        Set<String> seen = new TreeSet<>();
        for (EnumConst c : consts) {
            if (!seen.add(c.name()) || c.name().equals("UNRECOGNIZED")) {
                throw new GeneratorException(owner + ": enum constant collision on " + c.name());
            }
        }
    }

    private void enumBody(StringBuilder sb, String name, List<EnumConst> consts, String in) {
        for (EnumConst c : consts) {
            String d = Docs.clean(c.doc());
            sb.append(Docs.block(in, d, deprecatedTag(c.doc())));
            if (c.deprecated()) {
                sb.append(in).append("@Deprecated\n");
            }
            sb.append(in).append(c.name()).append('(').append(q(c.wire())).append("),\n");
        }
        sb.append(in).append("/** A value this version of the SDK does not know (forward compatibility); never sent. */\n");
        sb.append(in).append("UNRECOGNIZED(\"__unrecognized__\");\n\n");
        sb.append(in).append("private final String wire;\n\n");
        sb.append(in).append(name).append("(String wire) {\n").append(in).append(I1).append("this.wire = wire;\n")
                .append(in).append("}\n\n");
        sb.append(in).append("/** The value on the wire. */\n");
        sb.append(in).append("@JsonValue\n").append(in).append("public String wire() {\n").append(in).append(I1)
                .append("return wire;\n").append(in).append("}\n\n");
        sb.append(in).append("/** Maps a wire value to its constant; unknown values give {@link #UNRECOGNIZED}. */\n");
        sb.append(in).append("@JsonCreator\n").append(in).append("public static ").append(name)
                .append(" fromWire(String value) {\n");
        sb.append(in).append(I1).append("if (value == null) {\n").append(in).append(I2).append("return null;\n")
                .append(in).append(I1).append("}\n");
        sb.append(in).append(I1).append("switch (value) {\n");
        for (EnumConst c : consts) {
            sb.append(in).append(I2).append("case ").append(q(c.wire())).append(":\n").append(in).append(I3)
                    .append("return ").append(c.name()).append(";\n");
        }
        sb.append(in).append(I2).append("default:\n").append(in).append(I3).append("return UNRECOGNIZED;\n");
        sb.append(in).append(I1).append("}\n").append(in).append("}\n");
    }

    // ------------------------------------------------------------------------------------------------------------
    // records

    String recordFile(String name, JsonNode s) {
        JsonNode st = g.stable().get(name);
        List<Field> fields = new ArrayList<>(g.fields(name, s, st, Set.of()));
        JsonNode ap = s.get("additionalProperties");
        String apOverride = g.overrides().additionalProperties.get(name);
        if (apOverride != null || (ap != null && ap.isBoolean() && ap.booleanValue())) {
            Ty value = apOverride != null ? new Named(apOverride) : new Any();
            for (Field f : fields) {
                if (f.name().equals("additionalProperties")) {
                    throw new GeneratorException(name + ": property additionalProperties collides");
                }
            }
            fields.add(new Field("*", "additionalProperties", new MapOf(value), false, true, false, null,
                    "Members not declared by the schema, kept as read.", null, false, false, true));
        } else if (ap != null && ap.isObject()) {
            throw new GeneratorException(name + ": properties together with an additionalProperties schema");
        }
        Set<String> nested = Set.of("Builder");
        String desc = s.path("description").asText(null);
        StringBuilder sb = new StringBuilder();
        List<String> tags = new ArrayList<>(paramTags(fields));
        tags.addAll(deprecatedTag(desc));
        String text = Docs.clean(desc);
        sb.append(Docs.block("", text == null ? "The {@code " + name + "} object of the protocol." : text, tags));
        sb.append("@JsonInclude(JsonInclude.Include.NON_NULL)\n@JsonIgnoreProperties(ignoreUnknown = true)\n");
        if (!g.untaggedParents(name).isEmpty()) {
            sb.append("@JsonDeserialize(using = JsonDeserializer.None.class)\n");
        }
        sb.append(typeAnnotations(name, "", experimentalType(name), desc));
        sb.append(SUPPRESS);
        sb.append("public record ").append(name).append('(');
        if (!fields.isEmpty()) {
            sb.append('\n').append(componentList(fields, nested, I2));
        }
        sb.append(')').append(implementsClause(name, nested, "implements")).append(" {\n");
        deprecatedAccessors(sb, fields, nested, I1);
        boolean builder = name.endsWith("Params") || serverResponses.contains(name)
                || fields.stream().filter(f -> !f.required()).count() > 3;
        if (builder && !fields.isEmpty()) {
            builder(sb, name, fields, nested, I1);
        }
        sb.append("}\n");
        return file(sb.toString());
    }

    private static void deprecatedAccessors(StringBuilder sb, List<Field> fields, Set<String> nested, String in) {
        for (Field f : fields) {
            if (f.deprecated()) {
                sb.append(in).append("/**\n").append(in).append(" * Deprecated member {@code ").append(f.wire()).append("}.\n")
                        .append(in).append(" *\n").append(in).append(" * @return the value\n").append(in)
                        .append(" * @deprecated ").append(Docs.inline(Docs.escape(f.doc().strip().replaceFirst("^@deprecated\\s*", ""))))
                        .append("\n").append(in).append(" */\n");
                sb.append(in).append("@Deprecated\n").append(in).append("@Override\n").append(in).append("public ")
                        .append(ft(f, nested)).append(' ').append(f.name()).append("() {\n").append(in).append(I1)
                        .append("return ").append(f.name()).append(";\n").append(in).append("}\n\n");
            }
        }
    }

    private void builder(StringBuilder sb, String name, List<Field> fields, Set<String> nested, String in) {
        for (Field f : fields) {
            if (f.name().equals("build") || f.name().equals("builder")) {
                throw new GeneratorException(name + ": component name " + f.name() + " clashes with the builder");
            }
        }
        sb.append(in).append("/** Returns a builder; required components must be set before {@link Builder#build()}. */\n");
        sb.append(in).append("public static Builder builder() {\n").append(in).append(I1)
                .append("return new Builder();\n").append(in).append("}\n\n");
        sb.append(in).append("/** Builds {@link ").append(name).append("}; unset optional components stay absent. */\n");
        sb.append(in).append("public static final class Builder {\n");
        String in2 = in + I1;
        for (Field f : fields) {
            String ty = f.primitive() ? t(f.ty(), false, nested) : ft(f, nested);
            sb.append(in2).append("private ").append(ty).append(' ').append(f.name()).append(";\n");
            if (f.alwaysWrite() && f.nullable()) {
                sb.append(in2).append("private boolean ").append(f.name()).append("Set;\n");
            }
        }
        sb.append('\n').append(in2).append("private Builder() {\n").append(in2).append("}\n");
        for (Field f : fields) {
            String ty = f.primitive() ? t(f.ty(), true, nested) : ft(f, nested);
            String doc = Docs.inline(Docs.clean(f.doc()));
            sb.append('\n').append(in2).append("/** Sets {@code ").append(f.wire().replace("@", "&#64;"))
                    .append("}").append(doc.isEmpty() ? "" : ": " + doc.replace("*/", "*&#47;")).append(" */\n");
            if (f.deprecated()) {
                sb.append(in2).append("@Deprecated\n");
            }
            sb.append(in2).append("public Builder ").append(f.name()).append('(').append(ty).append(" value) {\n");
            sb.append(in2).append(I1).append("this.").append(f.name()).append(" = value;\n");
            if (f.alwaysWrite() && f.nullable()) {
                sb.append(in2).append(I1).append("this.").append(f.name()).append("Set = true;\n");
            }
            sb.append(in2).append(I1).append("return this;\n").append(in2).append("}\n");
            if (f.tristate()) {
                String vt = t(f.ty(), false, nested);
                sb.append('\n').append(in2).append("/** Sets {@code ").append(f.wire())
                        .append("} to a value; use {@link Tristate#ofNull()} to send {@code null}. */\n");
                sb.append(in2).append("public Builder ").append(f.name()).append('(').append(vt).append(" value) {\n");
                sb.append(in2).append(I1).append("this.").append(f.name()).append(" = value == null ? Tristate.ofNull() : Tristate.of(value);\n");
                sb.append(in2).append(I1).append("return this;\n").append(in2).append("}\n");
            } else if (f.ty() instanceof ListOf l && (l.item() instanceof Named || l.item() instanceof Str)) {
                String it = t(l.item(), false, nested);
                sb.append('\n').append(in2).append("/** Sets {@code ").append(f.wire()).append("} from the given elements. */\n");
                if (f.deprecated()) {
                    sb.append(in2).append("@Deprecated\n");
                }
                sb.append(in2).append("public Builder ").append(f.name()).append('(').append(it).append("... values) {\n");
                sb.append(in2).append(I1).append("return ").append(f.name())
                        .append("(new ArrayList<>(Arrays.asList(values)));\n").append(in2).append("}\n");
            }
        }
        sb.append('\n').append(in2).append("/**\n").append(in2).append(" * Creates the record.\n")
                .append(in2).append(" *\n").append(in2)
                .append(" * @throws IllegalStateException if a required component was not set\n")
                .append(in2).append(" */\n");
        sb.append(in2).append("public ").append(name).append(" build() {\n");
        List<String> checks = new ArrayList<>();
        for (Field f : fields) {
            if (f.alwaysWrite() && f.nullable()) {
                checks.add("if (!" + f.name() + "Set) {\n" + in2 + I2 + "missing.add(" + q(f.name()) + ");\n" + in2 + I1 + "}\n");
            } else if (f.required() && !f.tristate()) {
                checks.add("if (" + f.name() + " == null) {\n" + in2 + I2 + "missing.add(" + q(f.name()) + ");\n" + in2 + I1 + "}\n");
            }
        }
        if (!checks.isEmpty()) {
            sb.append(in2).append(I1).append("List<String> missing = new ArrayList<>();\n");
            for (String c : checks) {
                sb.append(in2).append(I1).append(c);
            }
            sb.append(in2).append(I1).append("if (!missing.isEmpty()) {\n").append(in2).append(I2)
                    .append("throw new IllegalStateException(").append(q(name + " is missing required component(s): "))
                    .append(" + String.join(\", \", missing));\n").append(in2).append(I1).append("}\n");
        }
        List<String> args = new ArrayList<>();
        for (Field f : fields) {
            args.add(f.tristate() ? f.name() + " == null ? Tristate.absent() : " + f.name() : f.name());
        }
        sb.append(in2).append(I1).append("return new ").append(name).append("(")
                .append(String.join(", ", args)).append(");\n");
        sb.append(in2).append("}\n");
        sb.append(in).append("}\n");
    }

    // ------------------------------------------------------------------------------------------------------------
    // internally tagged unions

    String taggedFile(String name, JsonNode s) {
        String tag = g.tag(name);
        JsonNode st = g.stable().get(name);
        List<Field> common = new ArrayList<>();
        for (Field f : g.fields(name, s, st, Set.of())) {
            common.add(f.asCommon());
        }
        Map<String, String> renames = g.overrides().variantNames.getOrDefault(name, Map.of());
        List<TaggedVariant> variants = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        Map<String, JsonNode> stableVariants = new LinkedHashMap<>();
        if (st != null) {
            for (JsonNode v : st.path("oneOf")) {
                stableVariants.put(v.path("properties").path(tag).path("enum").get(0).asText(), v);
            }
        }
        Set<String> usedRenames = new TreeSet<>();
        for (JsonNode v : s.get("oneOf")) {
            String tv = v.get("properties").get(tag).get("enum").get(0).asText();
            String vn = renames.containsKey(tv) ? renames.get(tv) : Names.pascal(tv);
            if (renames.containsKey(tv)) {
                usedRenames.add(tv);
            }
            if (RESERVED_VARIANTS.contains(vn) || vn.equals(name)) {
                vn = vn + "Variant";
            }
            if (!names.add(vn)) {
                throw new GeneratorException(name + ": variant name collision on " + vn
                        + " (add a variantNames override)");
            }
            checkVariantKeys(name + "." + tv, v, Set.of("type", "title", "description", "properties", "required", "anyOf",
                    "additionalProperties"));
            JsonNode sv = st == null ? null : stableVariants.get(tv);
            boolean exp = st != null && sv == null;
            List<Field> fs = new ArrayList<>(common);
            fs.addAll(g.fields(name + "." + vn, v, sv == null ? (st == null ? null : emptyObject()) : sv, Set.of(tag)));
            if (sv == null) {
                // fields of an experimental variant are experimental through the variant, not one by one
                fs.replaceAll(f -> new Field(f.wire(), f.name(), f.ty(), f.required(), f.nullable(), f.tristate(),
                        f.dflt(), f.doc(), f.alias(), false, f.deprecated(), f.anySetter()));
            }
            List<List<String>> groups = new ArrayList<>();
            if (v.has("anyOf")) {
                List<String> group = new ArrayList<>();
                for (JsonNode alt : v.get("anyOf")) {
                    checkVariantKeys(name + "." + tv + ".anyOf", alt, Set.of("type", "title", "description", "properties", "required"));
                    for (Field f : g.fields(name + "." + vn, alt, null, Set.of())) {
                        if (fs.stream().anyMatch(x -> x.name().equals(f.name()))) {
                            throw new GeneratorException(name + "." + vn + ": flattened alternative repeats " + f.wire());
                        }
                        fs.add(new Field(f.wire(), f.name(), f.ty(), false, true, false, null, f.doc(), f.alias(),
                                false, f.deprecated(), false));
                        group.add(f.name());
                    }
                }
                groups.add(group);
            }
            variants.add(new TaggedVariant(vn, tv, fs, groups, v.path("description").asText(null), exp,
                    Docs.deprecated(v.path("description").asText(null))));
        }
        if (!usedRenames.equals(renames.keySet())) {
            throw new GeneratorException(name + ": variantNames override names unknown tags " + renames.keySet());
        }
        g.countVariant(variants.size());
        Set<String> nested = new TreeSet<>(names);
        nested.addAll(Set.of("Unrecognized", "Deser", "Ser"));
        String tagName = Names.field(tag);
        String desc = s.path("description").asText(null);
        StringBuilder sb = new StringBuilder();
        String text = Docs.clean(desc);
        sb.append(Docs.block("", (text == null ? "The {@code " + name + "} union of the protocol." : text)
                + "\n\nVariants are told apart by {@code " + tag + "}; an unknown value decodes as {@link Unrecognized}, "
                + "which keeps the raw object.", deprecatedTag(desc)));
        sb.append("@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.EXISTING_PROPERTY, property = ")
                .append(q(tag)).append(",\n        visible = true, defaultImpl = ").append(name).append(".Unrecognized.class)\n");
        sb.append("@JsonSubTypes({\n");
        for (TaggedVariant v : variants) {
            sb.append(I1).append("@JsonSubTypes.Type(value = ").append(name).append('.').append(v.name())
                    .append(".class, name = ").append(q(v.tag())).append("),\n");
        }
        sb.append("})\n");
        if (!g.untaggedParents(name).isEmpty()) {
            sb.append("@JsonDeserialize(using = JsonDeserializer.None.class)\n");
        }
        sb.append(typeAnnotations(name, "", experimentalType(name), desc));
        sb.append(SUPPRESS);
        sb.append("public sealed interface ").append(name).append(implementsClause(name, nested, "extends")).append(" {\n");
        sb.append(I1).append("/** The discriminator {@code ").append(tag).append("}. */\n");
        sb.append(I1).append("@JsonProperty(").append(q(tag)).append(")\n");
        sb.append(I1).append("String ").append(tagName).append("();\n");
        for (Field f : common) {
            String d = Docs.inline(Docs.clean(f.doc()));
            sb.append('\n').append(I1).append("/** ").append(d.isEmpty() ? "Common member {@code " + f.wire() + "}." : d)
                    .append(" Null on {@link Unrecognized}. */\n");
            sb.append(I1).append(ft(f, nested)).append(' ').append(f.name()).append("();\n");
        }
        for (TaggedVariant v : variants) {
            sb.append('\n');
            List<String> tags = new ArrayList<>(paramTags(v.fields()));
            tags.addAll(deprecatedTag(v.doc()));
            String vt = Docs.clean(v.doc());
            StringBuilder vdoc = new StringBuilder(vt == null ? "The {@code " + v.tag() + "} variant." : vt);
            for (List<String> grp : v.exclusiveGroups()) {
                vdoc.append("\n\nExactly one of ").append(String.join(" / ", grp.stream().map(x -> "{@code " + x + "}").toList()))
                        .append(" is set.");
            }
            sb.append(Docs.block(I1, vdoc.toString(), tags));
            sb.append(I1).append("@JsonPropertyOrder({").append(q(tag)).append("})\n");
            sb.append(I1).append("@JsonInclude(JsonInclude.Include.NON_NULL)\n");
            sb.append(I1).append("@JsonIgnoreProperties(ignoreUnknown = true)\n");
            if (v.experimental()) {
                sb.append(I1).append("@Experimental\n");
            }
            if (v.deprecated()) {
                sb.append(I1).append("@Deprecated\n");
            }
            sb.append(I1).append("record ").append(v.name()).append('(');
            if (!v.fields().isEmpty()) {
                sb.append('\n').append(componentList(v.fields(), nested, I3));
            }
            sb.append(") implements ").append(name).append(" {\n");
            deprecatedAccessors(sb, v.fields(), nested, I2);
            sb.append(I2).append("@Override\n").append(I2).append("public String ").append(tagName)
                    .append("() {\n").append(I3).append("return ").append(q(v.tag())).append(";\n").append(I2).append("}\n");
            sb.append(I1).append("}\n");
        }
        sb.append('\n');
        unrecognizedObject(sb, name, tag, tagName, common, nested);
        sb.append("}\n");
        return file(sb.toString());
    }

    private static JsonNode emptyObject() {
        return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    }

    private static void checkVariantKeys(String where, JsonNode v, Set<String> allowed) {
        for (Iterator<String> it = v.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!allowed.contains(k)) {
                throw new GeneratorException(where + ": unsupported keyword '" + k + "' in a union variant");
            }
        }
        if (!"object".equals(v.path("type").asText())) {
            throw new GeneratorException(where + ": union variant is not an object");
        }
    }

    private void unrecognizedObject(StringBuilder sb, String name, String tag, String tagName, List<Field> common,
                                    Set<String> nested) {
        sb.append(I1).append("/** A variant this version of the SDK does not know; {@code raw} is written back unchanged. */\n");
        sb.append(I1).append("@JsonDeserialize(using = Unrecognized.Deser.class)\n");
        sb.append(I1).append("@JsonSerialize(using = Unrecognized.Ser.class)\n");
        sb.append(I1).append("record Unrecognized(ObjectNode raw) implements ").append(name).append(" {\n");
        sb.append(I2).append("@Override\n").append(I2).append("public String ").append(tagName).append("() {\n")
                .append(I3).append("return raw.path(").append(q(tag)).append(").textValue();\n").append(I2).append("}\n");
        for (Field f : common) {
            sb.append('\n').append(I2).append("@Override\n").append(I2).append("public ").append(ft(f, nested))
                    .append(' ').append(f.name()).append("() {\n").append(I3).append("return null;\n")
                    .append(I2).append("}\n");
        }
        unrecognizedCodec(sb);
        sb.append(I1).append("}\n");
    }

    private static void unrecognizedCodec(StringBuilder sb) {
        sb.append('\n').append(I2).append("/** Reads the whole object. */\n");
        sb.append(I2).append("public static final class Deser extends JsonDeserializer<Unrecognized> {\n");
        sb.append(I3).append("@Override\n").append(I3)
                .append("public Unrecognized deserialize(JsonParser p, DeserializationContext c) throws IOException {\n")
                .append(I4).append("return new Unrecognized(c.readValue(p, ObjectNode.class));\n").append(I3).append("}\n");
        sb.append(I2).append("}\n\n");
        sb.append(I2).append("/** Writes the raw object, also where Jackson asks for type information. */\n");
        sb.append(I2).append("public static final class Ser extends JsonSerializer<Unrecognized> {\n");
        sb.append(I3).append("@Override\n").append(I3)
                .append("public void serialize(Unrecognized v, JsonGenerator g, SerializerProvider p) throws IOException {\n")
                .append(I4).append("g.writeTree(v.raw());\n").append(I3).append("}\n\n");
        sb.append(I3).append("@Override\n").append(I3)
                .append("public void serializeWithType(Unrecognized v, JsonGenerator g, SerializerProvider p, TypeSerializer t)\n")
                .append(I4).append(I1).append("throws IOException {\n")
                .append(I4).append("g.writeTree(v.raw());\n").append(I3).append("}\n");
        sb.append(I2).append("}\n");
    }

    // ------------------------------------------------------------------------------------------------------------
    // externally tagged (string | single-key object) unions

    String externalFile(String name, JsonNode s) {
        JsonNode members = s.has("oneOf") ? s.get("oneOf") : s.get("anyOf");
        JsonNode st = g.stable().get(name);
        List<EnumConst> units = new ArrayList<>();
        List<ObjVariant> objs = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        Map<String, String> renames = g.overrides().variantNames.getOrDefault(name, Map.of());
        Map<String, JsonNode> stableObjs = new LinkedHashMap<>();
        if (st != null) {
            for (JsonNode m : st.has("oneOf") ? st.get("oneOf") : st.get("anyOf")) {
                if (m.path("properties").size() == 1) {
                    stableObjs.put(m.get("properties").fieldNames().next(), m);
                }
            }
        }
        for (JsonNode m : members) {
            if (Generator.isStringEnumSchema(m)) {
                String d = m.path("description").asText(null);
                for (JsonNode e : m.get("enum")) {
                    units.add(new EnumConst(e.asText(), Names.constant(e.asText()), m.get("enum").size() == 1 ? d : null,
                            Docs.deprecated(d)));
                }
                continue;
            }
            JsonNode type = m.path("type");
            if (type.isArray() && type.size() == 2 && type.get(0).asText().equals("string")
                    && type.get(1).asText().equals("object") && m.size() == 1) {
                continue; // catch-all: that is Unrecognized
            }
            if (!"object".equals(type.asText()) || m.path("properties").size() != 1
                    || !m.path("additionalProperties").isBoolean() || m.get("additionalProperties").booleanValue()) {
                throw new GeneratorException(name + ": unsupported member of an externally tagged union: " + m);
            }
            checkVariantKeys(name, m, Set.of("type", "title", "description", "properties", "required", "additionalProperties"));
            String key = m.get("properties").fieldNames().next();
            JsonNode payload = m.get("properties").get(key);
            String vn = renames.getOrDefault(key, Names.pascal(key));
            if (RESERVED_VARIANTS.contains(vn) || vn.equals(name)) {
                vn = vn + "Variant";
            }
            if (!names.add(vn)) {
                throw new GeneratorException(name + ": variant name collision on " + vn);
            }
            JsonNode sv = st == null ? null : stableObjs.get(key);
            boolean exp = st != null && sv == null;
            if (payload.isObject() && "object".equals(payload.path("type").asText())
                    && !payload.has("additionalProperties")) {
                for (Iterator<String> it = payload.fieldNames(); it.hasNext(); ) {
                    String k = it.next();
                    if (!Set.of("type", "properties", "required", "description", "title").contains(k)) {
                        throw new GeneratorException(name + "." + key + ": unsupported payload keyword " + k);
                    }
                }
                JsonNode stablePayload = sv == null ? null : sv.get("properties").get(key);
                List<Field> fs = g.fields(name + "." + vn, payload, stablePayload, Set.of());
                objs.add(new ObjVariant(vn, key, fs, null, m.path("description").asText(payload.path("description").asText(null)),
                        exp, false));
            } else {
                Resolved r = g.resolve(payload, name + "." + key);
                objs.add(new ObjVariant(vn, key, null, r, m.path("description").asText(null), exp, false));
            }
        }
        checkConsts(name, units);
        g.countVariant(units.size() + objs.size());
        Set<String> nested = new TreeSet<>(names);
        nested.addAll(Set.of("Simple", "Unrecognized", "Deser", "Ser"));
        String desc = s.path("description").asText(null);
        String text = Docs.clean(desc);
        StringBuilder sb = new StringBuilder();
        sb.append(Docs.block("", (text == null ? "The {@code " + name + "} union of the protocol." : text)
                + "\n\nOn the wire a variant is either a bare string ({@link Simple}) or an object with a single key "
                + "naming the variant. Anything else decodes as {@link Unrecognized}, which is written back unchanged.",
                deprecatedTag(desc)));
        sb.append("@JsonDeserialize(using = ").append(name).append(".Deser.class)\n");
        sb.append(typeAnnotations(name, "", experimentalType(name), desc));
        sb.append(SUPPRESS);
        sb.append("public sealed interface ").append(name).append(implementsClause(name, nested, "extends")).append(" {\n");
        if (!units.isEmpty()) {
            sb.append(I1).append("/** The variants written as a bare string. */\n");
            sb.append(I1).append("@JsonDeserialize(using = JsonDeserializer.None.class)\n");
            sb.append(I1).append("enum Simple implements ").append(name).append(" {\n");
            enumBody(sb, "Simple", units, I2);
            sb.append(I1).append("}\n");
        }
        for (ObjVariant v : objs) {
            sb.append('\n');
            List<String> tags = v.fields() != null ? paramTags(v.fields())
                    : List.of("@param value the payload of {@code " + v.key() + "}");
            String vt = Docs.clean(v.doc());
            sb.append(Docs.block(I1, (vt == null ? "" : vt + "\n\n") + "Written as {@code {\"" + v.key() + "\": …}}.", tags));
            sb.append(I1).append("@JsonDeserialize(using = JsonDeserializer.None.class)\n");
            sb.append(I1).append("@JsonSerialize(using = ").append(v.name()).append(".Ser.class)\n");
            sb.append(I1).append("@JsonInclude(JsonInclude.Include.NON_NULL)\n");
            sb.append(I1).append("@JsonIgnoreProperties(ignoreUnknown = true)\n");
            if (v.experimental()) {
                sb.append(I1).append("@Experimental\n");
            }
            sb.append(I1).append("record ").append(v.name()).append('(');
            if (v.fields() != null) {
                if (!v.fields().isEmpty()) {
                    sb.append('\n').append(componentList(v.fields(), nested, I3));
                }
            } else {
                sb.append(t(v.value().ty(), false, nested)).append(" value");
            }
            sb.append(") implements ").append(name).append(" {\n");
            sb.append(I2).append("/** Writes the single-key wrapper object. */\n");
            sb.append(I2).append("public static final class Ser extends JsonSerializer<").append(v.name()).append("> {\n");
            sb.append(I3).append("@Override\n").append(I3).append("public void serialize(").append(v.name())
                    .append(" v, JsonGenerator g, SerializerProvider p) throws IOException {\n");
            sb.append(I4).append("g.writeStartObject();\n");
            sb.append(I4).append("g.writeFieldName(").append(q(v.key())).append(");\n");
            if (v.fields() != null) {
                sb.append(I4).append("g.writeStartObject();\n");
                for (Field f : v.fields()) {
                    String acc = "v." + f.name() + "()";
                    String write = "g.writeFieldName(" + q(f.wire()) + ");\n";
                    if (f.primitive() || f.alwaysWrite()) {
                        sb.append(I4).append(write).append(I4).append("p.defaultSerializeValue(").append(acc).append(", g);\n");
                    } else if (f.tristate()) {
                        sb.append(I4).append("if (").append(acc).append(" != null && !").append(acc).append(".isAbsent()) {\n")
                                .append(I4).append(I1).append(write).append(I4).append(I1)
                                .append("p.defaultSerializeValue(").append(acc).append(", g);\n").append(I4).append("}\n");
                    } else {
                        sb.append(I4).append("if (").append(acc).append(" != null) {\n")
                                .append(I4).append(I1).append(write).append(I4).append(I1)
                                .append("p.defaultSerializeValue(").append(acc).append(", g);\n").append(I4).append("}\n");
                    }
                }
                sb.append(I4).append("g.writeEndObject();\n");
            } else {
                sb.append(I4).append("p.defaultSerializeValue(v.value(), g);\n");
            }
            sb.append(I4).append("g.writeEndObject();\n");
            sb.append(I3).append("}\n").append(I2).append("}\n").append(I1).append("}\n");
        }
        sb.append('\n');
        sb.append(I1).append("/** A value this version of the SDK does not know; {@code raw} is written back unchanged. */\n");
        sb.append(I1).append("@JsonDeserialize(using = JsonDeserializer.None.class)\n");
        sb.append(I1).append("record Unrecognized(@JsonValue JsonNode raw) implements ").append(name).append(" {\n");
        sb.append(I1).append("}\n\n");
        sb.append(I1).append("/** Reads a bare string or a single-key object; never fails on an unknown variant. */\n");
        sb.append(I1).append("final class Deser extends JsonDeserializer<").append(name).append("> {\n");
        sb.append(I2).append("@Override\n").append(I2).append("public ").append(name)
                .append(" deserialize(JsonParser p, DeserializationContext c) throws IOException {\n");
        sb.append(I3).append("JsonNode n = c.readTree(p);\n");
        if (!units.isEmpty()) {
            sb.append(I3).append("if (n.isTextual()) {\n");
            sb.append(I4).append("Simple s = Simple.fromWire(n.textValue());\n");
            sb.append(I4).append("if (s != Simple.UNRECOGNIZED) {\n").append(I4).append(I1).append("return s;\n")
                    .append(I4).append("}\n");
            sb.append(I3).append("}\n");
        }
        if (!objs.isEmpty()) {
            sb.append(I3).append("if (n.isObject() && n.size() == 1) {\n");
            sb.append(I4).append("String key = n.fieldNames().next();\n");
            sb.append(I4).append("JsonNode v = n.get(key);\n");
            sb.append(I4).append("switch (key) {\n");
            for (ObjVariant v : objs) {
                sb.append(I4).append(I1).append("case ").append(q(v.key())).append(":\n");
                if (v.fields() != null) {
                    sb.append(I4).append(I2).append("if (v.isObject()) {\n").append(I4).append(I3)
                            .append("return c.readTreeAsValue(v, ").append(v.name()).append(".class);\n")
                            .append(I4).append(I2).append("}\n").append(I4).append(I2).append("break;\n");
                } else {
                    sb.append(I4).append(I2).append("return new ").append(v.name()).append("(c.readTreeAsValue(v, ")
                            .append(javaType(v.value().ty(), nested)).append("));\n");
                }
            }
            sb.append(I4).append(I1).append("default:\n").append(I4).append(I2).append("break;\n");
            sb.append(I4).append("}\n");
            sb.append(I3).append("}\n");
        }
        sb.append(I3).append("return new Unrecognized(n);\n");
        sb.append(I2).append("}\n").append(I1).append("}\n");
        sb.append("}\n");
        return file(sb.toString());
    }

    // ------------------------------------------------------------------------------------------------------------
    // untagged unions

    String untaggedFile(String name, JsonNode s) {
        List<UVariant> variants = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        JsonNode alts = s.get("anyOf");
        for (JsonNode a : alts) {
            UVariant v;
            if (a.has("$ref")) {
                String ref = g.ref(a.get("$ref"), name);
                v = new UVariant(ref, UKind.REF, ref, new Named(ref), null, a, null);
            } else {
                String type = a.path("type").asText();
                switch (type) {
                    case "string" -> v = new UVariant("Text", UKind.TEXT, null, new Str(), null, a, a.path("description").asText(null));
                    case "integer" -> v = new UVariant("Number", UKind.NUMBER, null, g.resolve(a, name).ty(), null, a,
                            a.path("description").asText(null));
                    case "array" -> v = new UVariant("Items", UKind.ARRAY, null, g.resolve(a, name).ty(), null, a,
                            a.path("description").asText(null));
                    case "object" -> {
                        checkVariantKeys(name, a, Set.of("type", "title", "description", "properties", "required",
                                "additionalProperties"));
                        String vn = untaggedObjectName(name, a, alts);
                        v = new UVariant(vn, UKind.OBJECT, null, null, g.fields(name + "." + vn, a,
                                g.stable().containsKey(name) ? null : null, Set.of()), a, a.path("description").asText(null));
                    }
                    default -> throw new GeneratorException(name + ": unsupported untagged alternative " + a);
                }
            }
            if (v.kind() != UKind.REF && (RESERVED_VARIANTS.contains(v.name()) || v.name().equals(name))) {
                throw new GeneratorException(name + ": reserved variant name " + v.name());
            }
            if (!names.add(v.name())) {
                throw new GeneratorException(name + ": variant name collision on " + v.name());
            }
            variants.add(v);
        }
        g.countVariant(variants.size());
        Set<String> nested = new TreeSet<>();
        for (UVariant v : variants) {
            if (v.kind() != UKind.REF) {
                nested.add(v.name());
            }
        }
        nested.addAll(Set.of("Unrecognized", "Deser"));
        String desc = s.path("description").asText(null);
        String text = Docs.clean(desc);
        StringBuilder sb = new StringBuilder();
        sb.append(Docs.block("", (text == null ? "The {@code " + name + "} union of the protocol." : text)
                + "\n\nThe alternatives carry no tag; they are tried in schema order by shape, and a value matching "
                + "none decodes as {@link Unrecognized}, which is written back unchanged.", deprecatedTag(desc)));
        sb.append("@JsonDeserialize(using = ").append(name).append(".Deser.class)\n");
        sb.append(typeAnnotations(name, "", experimentalType(name), desc));
        List<String> permits = new ArrayList<>();
        for (UVariant v : variants) {
            permits.add(v.kind() == UKind.REF ? t(new Named(v.ref()), false, nested) : name + "." + v.name());
        }
        permits.add(name + ".Unrecognized");
        sb.append(SUPPRESS);
        sb.append("public sealed interface ").append(name).append(implementsClause(name, nested, "extends"))
                .append("\n        permits ").append(String.join(", ", permits)).append(" {\n");
        for (UVariant v : variants) {
            if (v.kind() == UKind.REF) {
                continue;
            }
            sb.append('\n');
            String vt = Docs.clean(v.doc());
            if (v.kind() == UKind.OBJECT) {
                sb.append(Docs.block(I1, vt == null ? "The {@code " + v.name() + "} alternative." : vt, paramTags(v.fields())));
                sb.append(I1).append("@JsonDeserialize(using = JsonDeserializer.None.class)\n");
                sb.append(I1).append("@JsonInclude(JsonInclude.Include.NON_NULL)\n");
                sb.append(I1).append("@JsonIgnoreProperties(ignoreUnknown = true)\n");
                sb.append(I1).append("record ").append(v.name()).append("(\n").append(componentList(v.fields(), nested, I3))
                        .append(") implements ").append(name).append(" {\n").append(I1).append("}\n");
            } else {
                boolean prim = v.kind() == UKind.NUMBER;
                sb.append(Docs.block(I1, vt == null ? "The " + v.kind().name().toLowerCase() + " alternative." : vt,
                        List.of("@param value the JSON value")));
                sb.append(I1).append("@JsonDeserialize(using = JsonDeserializer.None.class)\n");
                sb.append(I1).append("record ").append(v.name()).append("(@JsonValue ")
                        .append(t(v.ty(), prim, nested)).append(" value) implements ").append(name).append(" {\n")
                        .append(I1).append("}\n");
            }
        }
        sb.append('\n');
        sb.append(I1).append("/** A value matching no alternative; {@code raw} is written back unchanged. */\n");
        sb.append(I1).append("@JsonDeserialize(using = JsonDeserializer.None.class)\n");
        sb.append(I1).append("record Unrecognized(@JsonValue JsonNode raw) implements ").append(name).append(" {\n");
        sb.append(I1).append("}\n\n");
        sb.append(I1).append("/** Tries the alternatives in schema order; the first structural match wins. */\n");
        sb.append(I1).append("final class Deser extends JsonDeserializer<").append(name).append("> {\n");
        sb.append(I2).append("@Override\n").append(I2).append("public ").append(name)
                .append(" deserialize(JsonParser p, DeserializationContext c) throws IOException {\n");
        sb.append(I3).append("JsonNode n = c.readTree(p);\n");
        for (UVariant v : variants) {
            String cond;
            String make;
            switch (v.kind()) {
                case REF -> {
                    cond = match(v.schema(), "n", 0);
                    make = "c.readTreeAsValue(n, " + t(new Named(v.ref()), false, nested) + ".class)";
                }
                case TEXT -> {
                    cond = "n.isTextual()";
                    make = "new " + v.name() + "(n.textValue())";
                }
                case NUMBER -> {
                    cond = "n.canConvertToLong() && n.isIntegralNumber()";
                    make = "new " + v.name() + "(n.longValue())";
                }
                case ARRAY -> {
                    cond = "n.isArray()";
                    make = "new " + v.name() + "(c.readTreeAsValue(n, " + javaType(v.ty(), nested) + "))";
                }
                default -> {
                    cond = match(v.schema(), "n", 0);
                    make = "c.readTreeAsValue(n, " + v.name() + ".class)";
                }
            }
            sb.append(I3).append("if (").append(cond).append(") {\n").append(I4).append("return ").append(make)
                    .append(";\n").append(I3).append("}\n");
        }
        sb.append(I3).append("return new Unrecognized(n);\n");
        sb.append(I2).append("}\n").append(I1).append("}\n");
        sb.append("}\n");
        return file(sb.toString());
    }

    private String untaggedObjectName(String union, JsonNode a, JsonNode alts) {
        String title = a.path("title").asText("");
        int i = title.indexOf("v2::");
        if (i > 0) {
            return Names.pascal(title.substring(0, i));
        }
        if (!title.isEmpty() && title.endsWith(union) && title.length() > union.length()) {
            return Names.pascal(title.substring(0, title.length() - union.length()));
        }
        for (JsonNode r : a.path("required")) {
            boolean unique = true;
            for (JsonNode other : alts) {
                if (other != a && Generator.texts(other.path("required")).contains(r.asText())) {
                    unique = false;
                }
            }
            if (unique) {
                return Names.pascal(r.asText());
            }
        }
        throw new GeneratorException(union + ": cannot name an untagged object alternative");
    }

    /** A Java boolean expression testing whether JSON expression {@code e} structurally matches schema {@code s}. */
    private String match(JsonNode s, String e, int depth) {
        if (s.isBoolean()) {
            return "true";
        }
        if (s.has("$ref")) {
            String ref = g.ref(s.get("$ref"), "matcher");
            JsonNode d = g.defs().get(ref);
            return switch (g.kind(ref)) {
                case RECORD -> objMatch(d, e, depth);
                case ENUM -> {
                    List<String> vals = new ArrayList<>();
                    for (EnumConst c : enumConsts(ref, d)) {
                        vals.add(q(c.wire()));
                    }
                    yield "GeneratedSupport.textIn(" + e + ", " + String.join(", ", vals) + ")";
                }
                case ALIAS_STRING -> e + ".isTextual()";
                case TAGGED -> "GeneratedSupport.hasText(" + e + ", " + q(g.tag(ref)) + ")";
                case EXTERNAL -> "(" + e + ".isTextual() || " + e + ".isObject())";
                case MAP -> e + ".isObject()";
                case HANDWRITTEN -> "(" + e + ".isTextual() || " + e + ".isIntegralNumber())";
                case SKIP -> "(" + e + ".isNull() || " + match(d.get("anyOf").get(0), e, depth) + ")";
                case UNTAGGED -> {
                    List<String> ors = new ArrayList<>();
                    for (JsonNode a : d.get("anyOf")) {
                        ors.add(match(a, e, depth + 1));
                    }
                    yield "(" + String.join("\n                    || ", ors) + ")";
                }
                default -> throw new GeneratorException("matcher: unsupported reference to " + ref);
            };
        }
        if (s.has("allOf")) {
            return match(s.get("allOf").get(0), e, depth);
        }
        if (s.has("anyOf")) {
            JsonNode any = s.get("anyOf");
            if (any.size() == 2 && Generator.isNullSchema(any.get(1))) {
                return "(" + e + ".isNull() || " + match(any.get(0), e, depth) + ")";
            }
            throw new GeneratorException("matcher: unsupported anyOf " + s);
        }
        JsonNode type = s.get("type");
        if (type == null) {
            return "true";
        }
        String ty = type.isArray() ? type.get(0).asText() : type.asText();
        String base = switch (ty) {
            case "string" -> s.has("enum") ? "GeneratedSupport.textIn(" + e + ", "
                    + String.join(", ", Generator.texts(s.get("enum")).stream().map(Emitter::q).toList()) + ")"
                    : e + ".isTextual()";
            case "integer" -> e + ".isIntegralNumber()";
            case "number" -> e + ".isNumber()";
            case "boolean" -> e + ".isBoolean()";
            case "array" -> e + ".isArray()";
            case "object" -> s.has("properties") ? objMatch(s, e, depth) : e + ".isObject()";
            default -> throw new GeneratorException("matcher: unsupported type " + ty);
        };
        return type.isArray() ? "(" + e + ".isNull() || " + base + ")" : base;
    }

    private String objMatch(JsonNode s, String e, int depth) {
        List<String> parts = new ArrayList<>();
        parts.add(e + ".isObject()");
        for (JsonNode r : s.path("required")) {
            String k = r.asText();
            String sub = e + ".get(" + q(k) + ")";
            parts.add(e + ".has(" + q(k) + ")");
            if (depth < 3) {
                String m = match(s.path("properties").path(k), sub, depth + 1);
                if (!m.equals("true")) {
                    parts.add(m);
                }
            }
        }
        JsonNode ap = s.get("additionalProperties");
        if (ap != null && ap.isBoolean() && !ap.booleanValue()) {
            List<String> keys = new ArrayList<>();
            s.path("properties").fieldNames().forEachRemaining(k -> keys.add(q(k)));
            parts.add("GeneratedSupport.onlyKeys(" + e + (keys.isEmpty() ? "" : ", " + String.join(", ", keys)) + ")");
        }
        return "(" + String.join("\n                    && ", parts) + ")";
    }

    // ------------------------------------------------------------------------------------------------------------
    // methods

    private void prepareMethods() {
        for (String union : Generator.METHOD_UNIONS) {
            JsonNode s = g.defs().get(union);
            if (s == null) {
                throw new GeneratorException("schema has no " + union);
            }
            JsonNode st = g.stable().get(union);
            Set<String> stableMethods = new TreeSet<>();
            if (st != null) {
                for (JsonNode v : st.get("oneOf")) {
                    stableMethods.add(v.path("properties").path("method").path("enum").get(0).asText());
                }
            }
            boolean request = union.endsWith("Request");
            List<MethodDecl> decls = new ArrayList<>();
            Set<String> seen = new TreeSet<>();
            for (JsonNode v : s.get("oneOf")) {
                checkVariantKeys(union, v, Set.of("type", "title", "description", "properties", "required"));
                JsonNode props = v.get("properties");
                String method = props.path("method").path("enum").get(0).asText();
                for (Iterator<String> it = props.fieldNames(); it.hasNext(); ) {
                    String k = it.next();
                    if (!Set.of("method", "params", "id").contains(k) || (k.equals("id") != request && k.equals("id"))) {
                        throw new GeneratorException(union + "." + method + ": unexpected member " + k);
                    }
                }
                if (request && !props.has("id")) {
                    throw new GeneratorException(union + "." + method + ": request without id");
                }
                JsonNode params = props.get("params");
                ParamsKind pk;
                String paramsType;
                if (params == null || Generator.isNullSchema(params)) {
                    pk = ParamsKind.NONE;
                    paramsType = null;
                } else if (params.has("$ref")) {
                    pk = ParamsKind.REQUIRED;
                    paramsType = g.ref(params.get("$ref"), union + "." + method);
                    if (!Generator.texts(v.path("required")).contains("params")) {
                        throw new GeneratorException(union + "." + method + ": params $ref but not required");
                    }
                } else if (params.has("anyOf") && params.get("anyOf").size() == 2
                        && params.get("anyOf").get(0).has("$ref") && Generator.isNullSchema(params.get("anyOf").get(1))) {
                    pk = ParamsKind.OPTIONAL;
                    paramsType = g.ref(params.get("anyOf").get(0).get("$ref"), union + "." + method);
                } else {
                    throw new GeneratorException(union + "." + method + ": unsupported params schema " + params);
                }
                if (paramsType != null && g.kind(paramsType) == Kind.SKIP) {
                    throw new GeneratorException(union + "." + method + ": params refer to a Nullable_ wrapper");
                }
                decls.add(decl(union, method, paramsType, pk, st != null && !stableMethods.contains(method),
                        v.path("description").asText(null), seen));
            }
            for (Overrides.ExtraMethod x : g.overrides().extraMethods.getOrDefault(union, List.of())) {
                if (!g.defs().containsKey(x.params())) {
                    throw new GeneratorException("extra method " + x.method() + ": unknown params type " + x.params());
                }
                decls.add(decl(union, x.method(), x.params(), ParamsKind.REQUIRED, x.experimental(), x.description(), seen));
            }
            for (String m : g.overrides().extraMethods.keySet()) {
                if (!Generator.METHOD_UNIONS.contains(m)) {
                    throw new GeneratorException("extraMethods: unknown union " + m);
                }
            }
            g.registerMethods(union, decls);
            if (union.equals("ServerRequest")) {
                for (MethodDecl d : decls) {
                    serverResponses.add(d.responseType());
                }
            }
        }
        Set<String> used = new TreeSet<>();
        for (String union : List.of("ClientRequest", "ServerRequest")) {
            for (MethodDecl d : g.methodsOf(union)) {
                used.add(d.method());
            }
        }
        for (String m : g.overrides().responses.keySet()) {
            if (!used.contains(m)) {
                throw new GeneratorException("responses override for unknown method " + m);
            }
        }
    }

    private MethodDecl decl(String union, String method, String paramsType, ParamsKind pk, boolean exp, String desc,
                            Set<String> seen) {
        String variant = Names.pascal(method);
        if (RESERVED_VARIANTS.contains(variant) || variant.equals(union)) {
            variant = variant + "Variant";
        }
        if (!seen.add(variant)) {
            throw new GeneratorException(union + ": method variant name collision on " + variant);
        }
        String response = null;
        if (union.endsWith("Request")) {
            response = g.overrides().responses.get(method);
            if (response == null) {
                if (paramsType == null || !paramsType.endsWith("Params")) {
                    throw new GeneratorException(union + "." + method
                            + ": no response type can be derived; add it to the responses override");
                }
                response = paramsType.substring(0, paramsType.length() - "Params".length()) + "Response";
            }
            if (!g.defs().containsKey(response)) {
                throw new GeneratorException(union + "." + method + ": response type " + response + " does not exist");
            }
            Kind rk = g.kind(response);
            if (rk == Kind.SKIP || rk == Kind.ALIAS_STRING || rk == Kind.MAP) {
                throw new GeneratorException(union + "." + method + ": response type " + response + " is not a class");
            }
        }
        return new MethodDecl(method, variant, Names.constant(variant), paramsType, pk, response, exp,
                Docs.deprecated(Docs.strip(desc)), desc);
    }

    String methodUnionFile(String name, JsonNode s) {
        List<MethodDecl> decls = g.methodsOf(name);
        boolean request = name.endsWith("Request");
        JsonNode st = g.stable().get(name);
        List<Field> common = new ArrayList<>();
        for (Field f : g.fields(name, s, st, Set.of())) {
            common.add(f.asCommon());
        }
        g.countVariant(decls.size());
        Set<String> nested = new TreeSet<>();
        for (MethodDecl d : decls) {
            nested.add(d.variant());
        }
        nested.addAll(Set.of("Unrecognized", "Deser", "Ser"));
        String desc = s.path("description").asText(null);
        String text = Docs.clean(desc);
        StringBuilder sb = new StringBuilder();
        sb.append(Docs.block("", (text == null ? "Every {@code " + name + "} message of the protocol." : text)
                + "\n\nA value decodes from the whole message object (" + (request ? "{@code id}, " : "")
                + "{@code method}, {@code params}" + (common.isEmpty() ? "" : ", {@code emittedAtMs}")
                + "); a method this version of the SDK does not know decodes as {@link Unrecognized}, which keeps the "
                + "raw message.", List.of()));
        sb.append("@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.EXISTING_PROPERTY, property = \"method\",\n")
                .append("        visible = true, defaultImpl = ").append(name).append(".Unrecognized.class)\n");
        sb.append("@JsonSubTypes({\n");
        for (MethodDecl d : decls) {
            sb.append(I1).append("@JsonSubTypes.Type(value = ").append(name).append('.').append(d.variant())
                    .append(".class, name = ").append(q(d.method())).append("),\n");
        }
        sb.append("})\n");
        sb.append("@SuppressWarnings(\"deprecation\")\n");
        sb.append("public sealed interface ").append(name).append(" {\n");
        sb.append(I1).append("/** The wire method name. */\n");
        sb.append(I1).append("@JsonProperty(\"method\")\n").append(I1).append("String method();\n");
        if (request) {
            sb.append('\n').append(I1).append("/** The request id the response must echo. */\n");
            sb.append(I1).append("RequestId id();\n");
        }
        for (Field f : common) {
            String d = Docs.inline(Docs.clean(f.doc()));
            sb.append('\n').append(I1).append("/** ").append(d.isEmpty() ? "Envelope member {@code " + f.wire() + "}." : d)
                    .append(" */\n");
            sb.append(I1).append(ft(f, nested)).append(' ').append(f.name()).append("();\n");
        }
        sb.append('\n').append(I1).append("/** The params object, or null for a method without params (or with params omitted). */\n");
        sb.append(I1).append("Object params();\n");
        String order = request ? "{\"id\", \"method\", \"params\"}" : common.isEmpty() ? "{\"method\", \"params\"}"
                : "{\"method\", \"params\", \"emittedAtMs\"}";
        for (MethodDecl d : decls) {
            sb.append('\n');
            List<String> tags = new ArrayList<>();
            if (request) {
                tags.add("@param id the request id");
            }
            for (Field f : common) {
                tags.add("@param " + f.name() + " " + Docs.inline(Docs.clean(f.doc())) + " (optional)");
            }
            if (d.paramsKind() != ParamsKind.NONE) {
                tags.add("@param params the params" + (d.paramsKind() == ParamsKind.OPTIONAL ? " (optional, may be null)" : ""));
            }
            tags.addAll(deprecatedTag(Docs.strip(d.doc())));
            String dt = Docs.clean(d.doc());
            sb.append(Docs.block(I1, (dt == null ? "" : dt + "\n\n") + "Method {@code " + d.method() + "}"
                    + (d.responseType() != null ? "; the result is {@link " + t(new Named(d.responseType()), false, nested) + "}." : "."),
                    tags));
            sb.append(I1).append("@JsonPropertyOrder(").append(order).append(")\n");
            sb.append(I1).append("@JsonInclude(JsonInclude.Include.NON_NULL)\n");
            sb.append(I1).append("@JsonIgnoreProperties(ignoreUnknown = true)\n");
            if (d.experimental()) {
                sb.append(I1).append("@Experimental\n");
            }
            if (d.deprecated()) {
                sb.append(I1).append("@Deprecated\n");
            }
            List<String> comps = new ArrayList<>();
            if (request) {
                comps.add("@JsonProperty(\"id\") RequestId id");
            }
            for (Field f : common) {
                comps.add("@JsonProperty(" + q(f.wire()) + ") " + ft(f, nested) + " " + f.name());
            }
            if (d.paramsKind() != ParamsKind.NONE) {
                comps.add("@JsonProperty(\"params\") " + t(new Named(d.paramsType()), false, nested) + " params");
            }
            sb.append(I1).append("record ").append(d.variant()).append("(");
            if (!comps.isEmpty()) {
                sb.append('\n').append(I3).append(String.join(",\n" + I3, comps));
            }
            sb.append(") implements ").append(name).append(" {\n");
            sb.append(I2).append("@Override\n").append(I2).append("public String method() {\n").append(I3)
                    .append("return ").append(q(d.method())).append(";\n").append(I2).append("}\n");
            if (d.paramsKind() == ParamsKind.NONE) {
                sb.append('\n').append(I2).append("/** Always null: the method has no params. */\n");
                sb.append(I2).append("@Override\n").append(I2).append("public Object params() {\n").append(I3)
                        .append("return null;\n").append(I2).append("}\n");
            }
            sb.append(I1).append("}\n");
        }
        sb.append('\n');
        sb.append(I1).append("/** A message whose method this version of the SDK does not know; {@code raw} is written back unchanged. */\n");
        sb.append(I1).append("@JsonDeserialize(using = Unrecognized.Deser.class)\n");
        sb.append(I1).append("@JsonSerialize(using = Unrecognized.Ser.class)\n");
        sb.append(I1).append("record Unrecognized(ObjectNode raw) implements ").append(name).append(" {\n");
        sb.append(I2).append("@Override\n").append(I2).append("public String method() {\n")
                .append(I3).append("return raw.path(\"method\").textValue();\n").append(I2).append("}\n");
        if (request) {
            sb.append('\n').append(I2).append("@Override\n").append(I2).append("public RequestId id() {\n")
                    .append(I3).append("return GeneratedSupport.requestId(raw.get(\"id\"));\n").append(I2).append("}\n");
        }
        for (Field f : common) {
            if (!(f.ty() instanceof Prim p) || !p.boxed().equals("Long")) {
                throw new GeneratorException(name + ": unsupported envelope member " + f.wire());
            }
            sb.append('\n').append(I2).append("@Override\n").append(I2).append("public Long ").append(f.name())
                    .append("() {\n").append(I3).append("return GeneratedSupport.longOrNull(raw.get(")
                    .append(q(f.wire())).append("));\n").append(I2).append("}\n");
        }
        sb.append('\n').append(I2).append("@Override\n").append(I2).append("public JsonNode params() {\n")
                .append(I3).append("return raw.get(\"params\");\n").append(I2).append("}\n");
        unrecognizedCodec(sb);
        sb.append(I1).append("}\n");
        sb.append("}\n");
        return file(sb.toString());
    }

    String methodsTable(String union, List<MethodDecl> decls) {
        boolean request = union.endsWith("Request");
        String cls = union + "Methods";
        String desc = request ? "MethodDescriptor<?, ?>" : "NotificationDescriptor<?>";
        StringBuilder sb = new StringBuilder();
        sb.append(Docs.block("", "Typed descriptors of every {@link " + union + "} method, in schema order.", List.of()));
        sb.append("@SuppressWarnings(\"deprecation\")\n");
        sb.append("public final class ").append(cls).append(" {\n");
        for (MethodDecl d : decls) {
            String p = d.paramsType() == null ? "Void" : d.paramsType();
            String dt = Docs.clean(d.doc());
            List<String> tags = deprecatedTag(Docs.strip(d.doc()));
            sb.append(Docs.block(I1, (dt == null ? "" : dt + "\n\n") + "{@code " + d.method() + "}: params {@link "
                    + p + "}" + (request ? ", result {@link " + d.responseType() + "}" : "")
                    + (d.paramsKind() == ParamsKind.OPTIONAL ? "; params may be omitted" : "") + ".", tags));
            if (d.experimental()) {
                sb.append(I1).append("@Experimental\n");
            }
            if (d.deprecated()) {
                sb.append(I1).append("@Deprecated\n");
            }
            if (request) {
                sb.append(I1).append("public static final MethodDescriptor<").append(p).append(", ")
                        .append(d.responseType()).append("> ").append(d.constant()).append(" =\n").append(I3)
                        .append("new MethodDescriptor<>(").append(q(d.method())).append(", ").append(p).append(".class, ")
                        .append(d.responseType()).append(".class, ParamsPresence.").append(d.paramsKind().name())
                        .append(", ").append(d.experimental()).append(");\n\n");
            } else {
                sb.append(I1).append("public static final NotificationDescriptor<").append(p).append("> ")
                        .append(d.constant()).append(" =\n").append(I3).append("new NotificationDescriptor<>(")
                        .append(q(d.method())).append(", ").append(p).append(".class, ParamsPresence.")
                        .append(d.paramsKind().name()).append(", ").append(d.experimental()).append(");\n\n");
            }
        }
        sb.append(I1).append("/** Every method, in schema order. */\n");
        sb.append(I1).append("public static final List<").append(desc).append("> ALL = List.of(\n");
        for (int i = 0; i < decls.size(); i++) {
            sb.append(I3).append(decls.get(i).constant()).append(i + 1 < decls.size() ? ",\n" : ");\n\n");
        }
        sb.append(I1).append("private static final Map<String, ").append(desc).append("> BY_METHOD = new LinkedHashMap<>();\n\n");
        sb.append(I1).append("static {\n").append(I2).append("for (").append(desc).append(" d : ALL) {\n").append(I3)
                .append("BY_METHOD.put(d.method(), d);\n").append(I2).append("}\n").append(I1).append("}\n\n");
        sb.append(I1).append("private ").append(cls).append("() {\n").append(I1).append("}\n\n");
        sb.append(I1).append("/** The descriptor of a wire method name, if this version of the SDK knows it. */\n");
        sb.append(I1).append("public static Optional<").append(desc).append("> byMethod(String method) {\n")
                .append(I2).append("return Optional.ofNullable(BY_METHOD.get(method));\n").append(I1).append("}\n");
        sb.append("}\n");
        return file(sb.toString());
    }

    String facade(List<MethodDecl> decls) {
        StringBuilder sb = new StringBuilder();
        sb.append(Docs.block("", "One typed method per client request of the protocol.\n\n"
                + "An implementation provides {@link #call(MethodDescriptor, Object)}; every other method is a "
                + "shortcut that passes the right descriptor from {@link ClientRequestMethods}.", List.of()));
        sb.append("@SuppressWarnings(\"deprecation\")\n");
        sb.append("public interface ClientRequestApi {\n");
        sb.append(I1).append("/**\n").append(I1).append(" * Sends a request and completes with its decoded result.\n")
                .append(I1).append(" *\n").append(I1).append(" * @param method the method descriptor\n")
                .append(I1).append(" * @param params the params, or {@code null} when the method has none or they are omitted\n")
                .append(I1).append(" * @param <P> the params type\n").append(I1).append(" * @param <R> the result type\n")
                .append(I1).append(" * @return the future result\n").append(I1).append(" */\n");
        sb.append(I1).append("<P, R> CompletableFuture<R> call(MethodDescriptor<P, R> method, P params);\n");
        Set<String> seen = new TreeSet<>();
        seen.add("call");
        for (MethodDecl d : decls) {
            String m = Names.lowerCamel(d.variant());
            if (!seen.add(m)) {
                throw new GeneratorException("ClientRequestApi: method name collision on " + m);
            }
            String raw = Docs.strip(d.doc());
            if (raw == null && d.paramsType() != null) {
                raw = Docs.strip(g.defs().get(d.paramsType()).path("description").asText(null));
            }
            String dt = raw == null ? null : Docs.escape(raw);
            String head = (dt == null ? "" : dt + "\n\n") + "Sends {@code " + d.method() + "}.";
            List<String> tags = new ArrayList<>();
            if (d.paramsKind() != ParamsKind.NONE) {
                tags.add("@param params the params");
            }
            tags.add("@return the future {@link " + d.responseType() + "}");
            tags.addAll(deprecatedTag(Docs.strip(d.doc())));
            String ret = "CompletableFuture<" + d.responseType() + ">";
            String ann = (d.experimental() ? I1 + "@Experimental\n" : "") + (d.deprecated() ? I1 + "@Deprecated\n" : "");
            if (d.paramsKind() != ParamsKind.NONE) {
                sb.append('\n').append(Docs.block(I1, head, tags)).append(ann);
                sb.append(I1).append("default ").append(ret).append(' ').append(m).append('(').append(d.paramsType())
                        .append(" params) {\n").append(I2).append("return call(ClientRequestMethods.").append(d.constant())
                        .append(", params);\n").append(I1).append("}\n");
            }
            if (d.paramsKind() != ParamsKind.REQUIRED) {
                List<String> t2 = new ArrayList<>(tags);
                t2.removeIf(x -> x.startsWith("@param"));
                sb.append('\n').append(Docs.block(I1, head + (d.paramsKind() == ParamsKind.OPTIONAL
                        ? " Params are omitted." : ""), t2)).append(ann);
                sb.append(I1).append("default ").append(ret).append(' ').append(m).append("() {\n").append(I2)
                        .append("return call(ClientRequestMethods.").append(d.constant()).append(", null);\n")
                        .append(I1).append("}\n");
            }
        }
        sb.append("}\n");
        return file(sb.toString());
    }
}

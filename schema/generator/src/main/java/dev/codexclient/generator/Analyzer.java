package dev.codexclient.generator;

import static dev.codexclient.generator.Model.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Builds the declaration of every generated type from its schema: variants, their names and fields, enum
 * constants, method tables. Everything the schema allows but the generator does not understand fails here.
 */
final class Analyzer {
    /** Variant names that would clash with the members every union declares. */
    private static final Set<String> RESERVED_VARIANTS = Set.of("Simple", "Unrecognized", "Builder", "Known");

    private final Generator g;
    private final Set<String> serverResponses = new TreeSet<>();

    Analyzer(Generator g) {
        this.g = g;
        prepareMethods();
    }

    private Head head(String name, JsonNode s) {
        String desc = s.path("description").asText(null);
        return new Head(name, g.naming().java(name), desc, !g.stable().containsKey(name), Docs.deprecated(desc),
                new ArrayList<>(g.untaggedParents(name)));
    }

    // ------------------------------------------------------------------------------------------------------------
    // records

    RecordDecl record(String name, JsonNode s) {
        JsonNode st = g.stable().get(name);
        List<Field> fields = new ArrayList<>(g.fields(name, s, st, Set.of()));
        JsonNode ap = s.get("additionalProperties");
        String apOverride = g.overrides().additionalProperties.get(name);
        boolean any = false;
        if (apOverride != null || (ap != null && ap.isBoolean() && ap.booleanValue())) {
            Ty value = apOverride != null ? new Named(apOverride) : new Any();
            checkFree(name, fields, "additionalProperties");
            fields.add(new Field("*", "additionalProperties", new MapOf(value), false, true, false, null,
                    "Members not declared by the schema, kept as read.", null, false, false, true, false));
            any = true;
        } else if (ap != null && ap.isObject()) {
            throw new GeneratorException(name + ": properties together with an additionalProperties schema");
        }
        if (!any) {
            checkFree(name, fields, "unknownMembers");
        }
        boolean builder = !fields.isEmpty() && (name.endsWith("Params") || serverResponses.contains(name)
                || fields.stream().filter(f -> !f.required()).count() > 3);
        if (builder) {
            for (Field f : fields) {
                if (Set.of("build", "builder", "toBuilder").contains(f.name())) {
                    throw new GeneratorException(name + ": component name " + f.name() + " clashes with the builder");
                }
            }
        }
        return new RecordDecl(head(name, s), fields, !any, builder);
    }

    private static void checkFree(String owner, List<Field> fields, String name) {
        for (Field f : fields) {
            if (f.name().equals(name)) {
                throw new GeneratorException(owner + ": property " + f.wire() + " collides with the generated "
                        + name + " component");
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // enums

    EnumDecl enumDecl(String name, JsonNode s) {
        return new EnumDecl(head(name, s), enumConsts(name, s));
    }

    List<EnumConst> enumConsts(String owner, JsonNode s) {
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

    // ------------------------------------------------------------------------------------------------------------
    // internally tagged unions

    TaggedDecl tagged(String name, JsonNode s) {
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
            vn = variantName(name, vn);
            if (!names.add(vn)) {
                throw new GeneratorException(name + ": variant name collision on " + vn
                        + " (add a variantNames override)");
            }
            checkVariantKeys(name + "." + tv, v, Set.of("type", "title", "description", "properties", "required",
                    "anyOf", "additionalProperties"));
            JsonNode sv = st == null ? null : stableVariants.get(tv);
            boolean exp = st != null && sv == null;
            List<Field> fs = new ArrayList<>(common);
            fs.addAll(g.fields(name + "." + vn, v, sv == null ? (st == null ? null : emptyObject()) : sv, Set.of(tag)));
            if (sv == null) {
                // fields of an experimental variant are experimental through the variant, not one by one
                fs.replaceAll(Field::notExperimental);
            }
            List<List<String>> groups = new ArrayList<>();
            if (v.has("anyOf")) {
                List<String> group = new ArrayList<>();
                for (JsonNode alt : v.get("anyOf")) {
                    checkVariantKeys(name + "." + tv + ".anyOf", alt, Set.of("type", "title", "description",
                            "properties", "required"));
                    for (Field f : g.fields(name + "." + vn, alt, null, Set.of())) {
                        if (fs.stream().anyMatch(x -> x.name().equals(f.name()))) {
                            throw new GeneratorException(name + "." + vn + ": flattened alternative repeats " + f.wire());
                        }
                        fs.add(new Field(f.wire(), f.name(), f.ty(), false, true, false, null, f.doc(), f.alias(),
                                false, f.deprecated(), false, f.secret()));
                        group.add(f.name());
                    }
                }
                groups.add(group);
            }
            checkFree(name + "." + vn, fs, "unknownMembers");
            String desc = v.path("description").asText(null);
            variants.add(new TaggedVariant(vn, tv, fs, groups, desc, exp, Docs.deprecated(desc), true, 0, null));
        }
        if (!usedRenames.equals(renames.keySet())) {
            throw new GeneratorException(name + ": variantNames override names unknown tags " + renames.keySet());
        }
        g.countVariant(variants.size());
        return new TaggedDecl(head(name, s), tag, common, shared(tag, common, variants), variants, false, false);
    }

    /** Accessor names a shared member must not take: the union's own methods and those of {@code Unrecognized}. */
    private static final Set<String> NOT_SHARED = Set.of("raw", "unknownMembers", "toString", "hashCode", "equals",
            "getClass");

    /**
     * The members every variant of a union requires with one wire name and the type string, beyond the union's
     * common ones: the union declares their accessor, which the variants' record components implement, so that
     * code reads a thread item's {@code id} without matching on its variant. Only strings, so that
     * {@code Unrecognized} answers them from its raw object without binding, and only required, non-nullable ones,
     * so that the accessor means the same on every variant.
     */
    static List<Field> shared(String tag, List<Field> common, List<TaggedVariant> variants) {
        List<Field> out = new ArrayList<>();
        if (variants.isEmpty()) {
            return out;
        }
        for (Field f : variants.get(0).fields()) {
            if (!sharable(f) || f.name().equals(Names.field(tag)) || NOT_SHARED.contains(f.name())
                    || common.stream().anyMatch(c -> c.name().equals(f.name()))) {
                continue;
            }
            boolean everywhere = variants.stream().allMatch(v -> v.fields().stream().anyMatch(
                    x -> sharable(x) && x.name().equals(f.name()) && x.wire().equals(f.wire())));
            if (everywhere) {
                out.add(f);
            }
        }
        return out;
    }

    private static boolean sharable(Field f) {
        return f.required() && !f.nullable() && !f.tristate() && !f.anySetter() && f.ty() instanceof Str;
    }

    private static String variantName(String union, String vn) {
        return RESERVED_VARIANTS.contains(vn) || vn.equals(union) ? vn + "Variant" : vn;
    }

    private static JsonNode emptyObject() {
        return JsonNodeFactory.instance.objectNode();
    }

    static void checkVariantKeys(String where, JsonNode v, Set<String> allowed) {
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

    // ------------------------------------------------------------------------------------------------------------
    // externally tagged (string | single-key object) unions

    ExternalDecl external(String name, JsonNode s) {
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
                    units.add(new EnumConst(e.asText(), Names.constant(e.asText()),
                            m.get("enum").size() == 1 ? d : null, Docs.deprecated(d)));
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
            checkVariantKeys(name, m, Set.of("type", "title", "description", "properties", "required",
                    "additionalProperties"));
            String key = m.get("properties").fieldNames().next();
            JsonNode payload = m.get("properties").get(key);
            String vn = variantName(name, renames.getOrDefault(key, Names.pascal(key)));
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
                checkFree(name + "." + vn, fs, "unknownMembers");
                objs.add(new ObjVariant(vn, key, fs, null,
                        m.path("description").asText(payload.path("description").asText(null)), exp, false));
            } else {
                Resolved r = g.resolve(payload, name + "." + key);
                objs.add(new ObjVariant(vn, key, null, r, m.path("description").asText(null), exp, false));
            }
        }
        checkConsts(name, units);
        g.countVariant(units.size() + objs.size());
        return new ExternalDecl(head(name, s), units, objs);
    }

    // ------------------------------------------------------------------------------------------------------------
    // untagged unions

    UntaggedDecl untagged(String name, JsonNode s) {
        List<UVariant> variants = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        JsonNode alts = s.get("anyOf");
        for (JsonNode a : alts) {
            UVariant v;
            if (a.has("$ref")) {
                String ref = g.ref(a.get("$ref"), name);
                v = new UVariant(g.naming().java(ref), UKind.REF, ref, new Named(ref), null, a, null);
            } else {
                String type = a.path("type").asText();
                String doc = a.path("description").asText(null);
                v = switch (type) {
                    case "string" -> new UVariant("Text", UKind.TEXT, null, new Str(), null, a, doc);
                    case "integer" -> new UVariant("Number", UKind.NUMBER, null, g.resolve(a, name).ty(), null, a, doc);
                    case "array" -> new UVariant("Items", UKind.ARRAY, null, g.resolve(a, name).ty(), null, a, doc);
                    case "object" -> {
                        checkVariantKeys(name, a, Set.of("type", "title", "description", "properties", "required",
                                "additionalProperties"));
                        String vn = untaggedObjectName(name, a, alts);
                        List<Field> fs = g.fields(name + "." + vn, a, null, Set.of());
                        checkFree(name + "." + vn, fs, "unknownMembers");
                        yield new UVariant(vn, UKind.OBJECT, null, null, fs, a, doc);
                    }
                    default -> throw new GeneratorException(name + ": unsupported untagged alternative " + a);
                };
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
        return new UntaggedDecl(head(name, s), variants);
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

    // ------------------------------------------------------------------------------------------------------------
    // method unions

    TaggedDecl methodUnion(String name, JsonNode s) {
        List<MethodDecl> decls = g.methodsOf(name);
        boolean request = name.endsWith("Request");
        JsonNode st = g.stable().get(name);
        List<Field> common = new ArrayList<>();
        for (Field f : g.fields(name, s, st, Set.of())) {
            if (!(f.ty() instanceof Prim p) || !p.boxed().equals("Long")) {
                throw new GeneratorException(name + ": unsupported envelope member " + f.wire());
            }
            common.add(f.asCommon());
        }
        g.countVariant(decls.size());
        List<TaggedVariant> variants = new ArrayList<>();
        Field id = new Field("id", "id", new Named("RequestId"), true, false, false, null, "The request id.", null,
                false, false, false, false);
        for (MethodDecl d : decls) {
            List<Field> fs = new ArrayList<>();
            if (request) {
                fs.add(id);
            }
            fs.addAll(common);
            if (d.paramsKind() != ParamsKind.NONE) {
                fs.add(new Field("params", "params", new Named(d.paramsType()), d.paramsKind() == ParamsKind.REQUIRED,
                        d.paramsKind() == ParamsKind.OPTIONAL, false, null, "The params.", null, false, false, false,
                        false));
            }
            variants.add(new TaggedVariant(d.variant(), d.method(), fs, List.of(), d.doc(), d.experimental(),
                    d.deprecated(), false, request ? 1 : 0, d));
        }
        return new TaggedDecl(head(name, s), "method", common, List.of(), variants, true, request);
    }

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
                    if (!Set.of("method", "params", "id").contains(k) || (k.equals("id") && !request)) {
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
                        v.path("description").asText(null), seen, true));
            }
            for (Overrides.ExtraMethod x : g.overrides().extraMethods.getOrDefault(union, List.of())) {
                if (!g.defs().containsKey(x.params())) {
                    throw new GeneratorException("extra method " + x.method() + ": unknown params type " + x.params());
                }
                // not in any schema, so in no method list either
                decls.add(decl(union, x.method(), x.params(), ParamsKind.REQUIRED, x.experimental(), x.description(),
                        seen, false));
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
                            Set<String> seen, boolean recorded) {
        String variant = variantName(union, Names.pascal(method));
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
                throw new GeneratorException(union + "." + method + ": response type " + response + " does not exist;"
                        + " name the type codex answers it with in the responses override of"
                        + " schema/codegen-overrides.json (call the method on the real codex to see its answer)");
            }
            Kind rk = g.kind(response);
            if (rk == Kind.SKIP || rk == Kind.ALIAS_STRING || rk == Kind.MAP) {
                throw new GeneratorException(union + "." + method + ": response type " + response + " is not a class");
            }
        }
        List<String> versions = null;
        if (recorded && !g.versionTable().isEmpty()) {
            versions = g.versionTable().versionsOf(union, method);
            if (versions.isEmpty()) {
                throw new GeneratorException(union + "." + method + " is in no list of schema/methods: a retained "
                        + "method no checked codex has leaves schema/retained.json");
            }
        }
        return new MethodDecl(method, variant, Names.constant(variant), paramsType, pk, response, exp,
                Docs.deprecated(Docs.strip(desc)), desc, versions);
    }
}

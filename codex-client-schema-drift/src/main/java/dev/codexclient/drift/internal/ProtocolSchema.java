package dev.codexclient.drift.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.drift.internal.ClientApiRequirements.Kind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A codex app-server schema bundle ({@code codex_app_server_protocol.schemas.json}, as written by
 * {@code codex app-server generate-json-schema}) reduced to what a drift report compares: the methods of each
 * direction with their params, and every type as fields, enum values and union variants, with descriptions left
 * out.
 *
 * <p>The root and {@code v2} namespaces are read as one, as the generator does. Old codex versions (0.98.0) define
 * some names in both with different shapes (the v1 protocol's types): the {@code v2} one keeps the plain name, the
 * root one is named {@code root/Name}.
 */
public final class ProtocolSchema {
    private static final Map<Kind, String> UNIONS = Map.of(Kind.CLIENT_REQUEST, "ClientRequest",
            Kind.CLIENT_NOTIFICATION, "ClientNotification", Kind.SERVER_NOTIFICATION, "ServerNotification",
            Kind.SERVER_REQUEST, "ServerRequest");
    private static final Set<String> DOCS = Set.of("description", "title", "$schema", "default", "examples");

    /**
     * A field of an object or of a union variant.
     *
     * @param type     the field's type as a short expression ({@code string | null}, {@code array<ThreadItem>}, …)
     * @param required whether the schema lists it as required
     */
    public record Field(String type, boolean required) {
        /** {@code required string} or {@code optional string | null}. */
        public String describe() {
            return (required ? "required " : "optional ") + type;
        }
    }

    /**
     * A named type.
     *
     * @param kind         {@code object}, {@code enum}, {@code union} or {@code other}
     * @param fields       an object's fields (additional properties as {@code *})
     * @param values       an enum's values, and the plain string alternatives of a union
     * @param variants     a union's object variants by tag value, each with its fields (the tag left out)
     * @param alternatives a union's other alternatives as expressions
     * @param shape        anything else, as canonical JSON without documentation
     */
    public record TypeShape(String kind, Map<String, Field> fields, Set<String> values,
                            Map<String, Map<String, Field>> variants, Set<String> alternatives, String shape) {
    }

    private final Map<Kind, Map<String, String>> methods;
    private final Map<String, TypeShape> types;
    private final Map<String, Set<String>> references;

    private ProtocolSchema(Map<Kind, Map<String, String>> methods, Map<String, TypeShape> types,
                           Map<String, Set<String>> references) {
        this.methods = methods;
        this.types = types;
        this.references = references;
    }

    /**
     * Reads a bundle.
     *
     * @throws IllegalArgumentException when {@code bundle} is not a codex schema bundle
     */
    public static ProtocolSchema read(JsonNode bundle) {
        JsonNode root = bundle == null ? null : bundle.get("definitions");
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("not a codex app-server schema bundle: no \"definitions\" object");
        }
        JsonNode v2 = root.path("v2");
        Map<String, JsonNode> definitions = new TreeMap<>();
        Set<String> renamedRoot = new LinkedHashSet<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equals("v2")) {
                continue;
            }
            JsonNode other = v2.get(e.getKey());
            if (other != null && !withoutDocs(other).equals(withoutDocs(e.getValue()))) {
                renamedRoot.add(e.getKey());
                definitions.put("root/" + e.getKey(), e.getValue());
            } else {
                definitions.put(e.getKey(), e.getValue());
            }
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = v2.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            definitions.put(e.getKey(), e.getValue());
        }
        Shapes shapes = new Shapes(renamedRoot);
        Map<Kind, Map<String, String>> methods = new EnumMap<>(Kind.class);
        for (Map.Entry<Kind, String> u : UNIONS.entrySet()) {
            methods.put(u.getKey(), shapes.methods(definitions.get(u.getValue())));
        }
        Map<String, TypeShape> types = new TreeMap<>();
        Map<String, Set<String>> references = new TreeMap<>();
        for (Map.Entry<String, JsonNode> e : definitions.entrySet()) {
            if (UNIONS.containsValue(e.getKey())) {
                continue;
            }
            types.put(e.getKey(), shapes.type(e.getValue()));
            Set<String> refs = new LinkedHashSet<>();
            shapes.collectRefs(e.getValue(), refs);
            references.put(e.getKey(), refs);
        }
        return new ProtocolSchema(methods, types, references);
    }

    /** The methods of one kind, each with its params type ({@code ""} when it has none). */
    public Map<String, String> methods(Kind kind) {
        return Collections.unmodifiableMap(methods.get(kind));
    }

    /** Every named type. */
    public Map<String, TypeShape> types() {
        return Collections.unmodifiableMap(types);
    }

    /**
     * The types reachable from the given ones through references, themselves included (e.g. everything a
     * {@code TurnStartParams} may contain).
     */
    public Set<String> reachableFrom(Iterable<String> typeNames) {
        Set<String> seen = new LinkedHashSet<>();
        List<String> work = new ArrayList<>();
        typeNames.forEach(work::add);
        while (!work.isEmpty()) {
            String name = work.remove(work.size() - 1);
            if (types.containsKey(name) && seen.add(name)) {
                work.addAll(references.getOrDefault(name, Set.of()));
            }
        }
        return seen;
    }

    static JsonNode withoutDocs(JsonNode node) {
        if (node.isObject()) {
            ObjectNode copy = ((ObjectNode) node).objectNode();
            List<String> names = new ArrayList<>();
            node.fieldNames().forEachRemaining(names::add);
            Collections.sort(names);
            for (String name : names) {
                if (!DOCS.contains(name)) {
                    copy.set(name, withoutDocs(node.get(name)));
                }
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = JsonNodeFactory.instance.arrayNode();
            node.forEach(n -> copy.add(withoutDocs(n)));
            return copy;
        }
        return node;
    }

    /** Turns schema nodes into shapes and type expressions. */
    private static final class Shapes {
        private final Set<String> renamedRoot;

        Shapes(Set<String> renamedRoot) {
            this.renamedRoot = renamedRoot;
        }

        Map<String, String> methods(JsonNode union) {
            Map<String, String> out = new TreeMap<>();
            if (union == null) {
                return out;
            }
            for (JsonNode alt : alternatives(union)) {
                String method = singleValue(alt.path("properties").path("method"));
                if (method == null) {
                    continue;
                }
                JsonNode params = alt.path("properties").get("params");
                boolean required = contains(alt.path("required"), "params");
                out.put(method, params == null ? "" : (required ? "" : "optional ") + expr(params));
            }
            return out;
        }

        TypeShape type(JsonNode schema) {
            List<JsonNode> alts = alternatives(schema);
            if (!alts.isEmpty()) {
                // Properties next to oneOf belong to every variant (ThreadItem's timestamps, for one).
                return union(alts, schema.has("properties") ? fields(schema, null) : Map.of());
            }
            if (schema.has("enum")) {
                Set<String> values = new LinkedHashSet<>();
                schema.get("enum").forEach(v -> values.add(v.asText()));
                return new TypeShape("enum", Map.of(), values, Map.of(), Set.of(), "");
            }
            if (schema.has("properties") || "object".equals(schema.path("type").asText())) {
                return new TypeShape("object", fields(schema, null), Set.of(), Map.of(), Set.of(), "");
            }
            return new TypeShape("other", Map.of(), Set.of(), Map.of(), Set.of(), expr(schema));
        }

        private TypeShape union(List<JsonNode> alts, Map<String, Field> shared) {
            String tag = tagProperty(alts);
            Set<String> values = new LinkedHashSet<>();
            Map<String, Map<String, Field>> variants = new LinkedHashMap<>();
            Set<String> others = new LinkedHashSet<>();
            for (JsonNode alt : alts) {
                if (alt.has("enum") && "string".equals(alt.path("type").asText(""))) {
                    alt.get("enum").forEach(v -> values.add(v.asText()));
                } else if (alt.has("const") && alt.get("const").isTextual()) {
                    values.add(alt.get("const").asText());
                } else if (tag != null && singleValue(alt.path("properties").path(tag)) != null) {
                    Map<String, Field> fields = new TreeMap<>(shared);
                    fields.remove(tag);
                    fields.putAll(fields(alt, tag));
                    variants.put(singleValue(alt.path("properties").path(tag)), fields);
                } else if (isExternallyTagged(alt)) {
                    String name = alt.get("required").get(0).asText();
                    variants.put(name, Map.of(name, new Field(expr(alt.path("properties").get(name)), true)));
                } else {
                    others.add(expr(alt));
                }
            }
            String kind = variants.isEmpty() && others.isEmpty() ? "enum" : "union";
            return new TypeShape(kind, Map.of(), values, variants, others, "");
        }

        private static boolean isExternallyTagged(JsonNode alt) {
            return alt.path("properties").size() == 1 && alt.path("required").size() == 1
                    && alt.path("properties").has(alt.path("required").get(0).asText());
        }

        /** The property every object alternative fixes to one string: the union's tag. */
        private static String tagProperty(List<JsonNode> alts) {
            Set<String> candidates = null;
            for (JsonNode alt : alts) {
                if (!alt.has("properties")) {
                    continue;
                }
                Set<String> fixed = new LinkedHashSet<>();
                alt.get("properties").fields().forEachRemaining(p -> {
                    if (singleValue(p.getValue()) != null) {
                        fixed.add(p.getKey());
                    }
                });
                if (candidates == null) {
                    candidates = fixed;
                } else {
                    candidates.retainAll(fixed);
                }
            }
            if (candidates == null || candidates.isEmpty()) {
                return null;
            }
            for (String preferred : List.of("type", "method", "kind")) {
                if (candidates.contains(preferred)) {
                    return preferred;
                }
            }
            return candidates.iterator().next();
        }

        private Map<String, Field> fields(JsonNode object, String skip) {
            Map<String, Field> out = new TreeMap<>();
            JsonNode required = object.path("required");
            object.path("properties").fields().forEachRemaining(p -> {
                if (!p.getKey().equals(skip)) {
                    out.put(p.getKey(), new Field(expr(p.getValue()), contains(required, p.getKey())));
                }
            });
            JsonNode extra = object.get("additionalProperties");
            if (extra != null && !(extra.isBoolean() && !extra.asBoolean())) {
                out.put("*", new Field(extra.isBoolean() ? "any" : expr(extra), false));
            }
            return out;
        }

        /** A short, documentation-free expression of a schema node's type. */
        String expr(JsonNode n) {
            if (n == null || n.isMissingNode() || (n.isBoolean() && n.asBoolean())) {
                return "any";
            }
            if (n.has("$ref")) {
                return refName(n.get("$ref").asText());
            }
            List<JsonNode> alts = alternatives(n);
            if (!alts.isEmpty()) {
                List<String> parts = new ArrayList<>();
                for (JsonNode a : alts) {
                    String e = expr(a);
                    if (!parts.contains(e)) {
                        parts.add(e);
                    }
                }
                return String.join(" | ", parts);
            }
            if (n.has("allOf") && n.get("allOf").size() == 1) {
                return expr(n.get("allOf").get(0));
            }
            if (n.has("enum")) {
                List<String> values = new ArrayList<>();
                n.get("enum").forEach(v -> values.add(v.isTextual() ? v.asText() : v.toString()));
                return "enum(" + String.join(", ", values) + ")";
            }
            if (n.has("const")) {
                return "const(" + n.get("const").asText() + ")";
            }
            JsonNode type = n.get("type");
            if (type != null && type.isArray()) {
                List<String> parts = new ArrayList<>();
                for (JsonNode t : type) {
                    parts.add(scalar(n, t.asText()));
                }
                return String.join(" | ", parts);
            }
            if (type != null) {
                return scalar(n, type.asText());
            }
            if (n.has("properties")) {
                return scalar(n, "object");
            }
            return withoutDocs(n).toString();
        }

        private String scalar(JsonNode n, String type) {
            switch (type) {
                case "array": {
                    JsonNode items = n.get("items");
                    return "array<" + (items == null ? "any" : expr(items)) + ">";
                }
                case "object": {
                    if (n.has("properties")) {
                        List<String> names = new ArrayList<>();
                        fields(n, null).forEach((k, f) -> names.add(k + (f.required() ? "" : "?") + ": " + f.type()));
                        return "{" + String.join(", ", names) + "}";
                    }
                    JsonNode extra = n.get("additionalProperties");
                    if (extra != null && extra.isObject()) {
                        return "map<string, " + expr(extra) + ">";
                    }
                    return "object";
                }
                default: {
                    String format = n.path("format").asText("");
                    return format.isEmpty() ? type : type + "(" + format + ")";
                }
            }
        }

        private String refName(String ref) {
            if (ref.startsWith("#/definitions/v2/")) {
                return ref.substring("#/definitions/v2/".length());
            }
            if (ref.startsWith("#/definitions/")) {
                String name = ref.substring("#/definitions/".length());
                return renamedRoot.contains(name) ? "root/" + name : name;
            }
            return ref;
        }

        void collectRefs(JsonNode n, Set<String> out) {
            if (n.isObject()) {
                JsonNode ref = n.get("$ref");
                if (ref != null && ref.isTextual()) {
                    out.add(refName(ref.asText()));
                }
                n.elements().forEachRemaining(c -> collectRefs(c, out));
            } else if (n.isArray()) {
                n.forEach(c -> collectRefs(c, out));
            }
        }

        private static List<JsonNode> alternatives(JsonNode n) {
            List<JsonNode> out = new ArrayList<>();
            for (String key : List.of("oneOf", "anyOf")) {
                JsonNode alts = n.get(key);
                if (alts != null && alts.isArray()) {
                    alts.forEach(out::add);
                }
            }
            return out;
        }

        /** The one string a property schema allows ({@code enum: ["x"]} or {@code const: "x"}), else null. */
        private static String singleValue(JsonNode property) {
            JsonNode values = property.get("enum");
            if (values != null && values.size() == 1 && values.get(0).isTextual()) {
                return values.get(0).asText();
            }
            JsonNode constant = property.get("const");
            return constant != null && constant.isTextual() ? constant.asText() : null;
        }

        private static boolean contains(JsonNode array, String value) {
            for (JsonNode v : array) {
                if (value.equals(v.asText())) {
                    return true;
                }
            }
            return false;
        }
    }
}

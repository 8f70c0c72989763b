package dev.codexclient.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds JSON samples straight from the vendored schema, independently of the generator, and offers the
 * comparison helpers the round-trip tests share.
 */
final class SchemaSamples {
    static final JsonNodeFactory F = JsonNodeFactory.instance;

    enum Mode { FULL, MINIMAL, ALL_NULL }

    final Map<String, JsonNode> defs = new TreeMap<>();
    final Map<String, JsonNode> stableDefs = new TreeMap<>();
    final JsonNode overrides;

    SchemaSamples() throws IOException {
        Path schema = schemaDir();
        ObjectMapper m = new ObjectMapper();
        flatten(m.readTree(schema.resolve("experimental/codex_app_server_protocol.schemas.json").toFile()), defs);
        flatten(m.readTree(schema.resolve("stable/codex_app_server_protocol.schemas.json").toFile()), stableDefs);
        overrides = m.readTree(schema.resolve("codegen-overrides.json").toFile());
        Path retained = schema.resolve("retained.json");
        if (Files.isRegularFile(retained)) {
            mergeRetained(m.readTree(retained.toFile()));
        }
    }

    /**
     * Adds the methods kept from older schemas (schema/retained.json) as the generator does: their definitions, and
     * their variants appended to the method unions (the stable ones too, unless experimental).
     */
    private void mergeRetained(JsonNode retained) {
        retained.path("definitions").fields().forEachRemaining(e -> {
            defs.putIfAbsent(e.getKey(), e.getValue());
            stableDefs.putIfAbsent(e.getKey(), e.getValue());
        });
        retained.path("experimentalDefinitions").fields().forEachRemaining(e -> defs.putIfAbsent(e.getKey(), e.getValue()));
        for (JsonNode method : retained.path("methods")) {
            String union = method.path("union").asText();
            append(defs, union, method.get("variant"));
            if (!method.path("experimental").asBoolean()) {
                append(stableDefs, union, method.get("variant"));
            }
        }
    }

    private static void append(Map<String, JsonNode> bundle, String union, JsonNode variant) {
        com.fasterxml.jackson.databind.node.ObjectNode copy = bundle.get(union).deepCopy();
        ((com.fasterxml.jackson.databind.node.ArrayNode) copy.get("oneOf")).add(variant);
        bundle.put(union, copy);
    }

    static Path schemaDir() {
        for (Path p : List.of(Path.of("schema"), Path.of("../schema"))) {
            if (Files.isRegularFile(p.resolve("experimental/codex_app_server_protocol.schemas.json"))) {
                return p;
            }
        }
        throw new IllegalStateException("cannot find schema/ from " + Path.of("").toAbsolutePath());
    }

    private static void flatten(JsonNode bundle, Map<String, JsonNode> out) {
        bundle.get("definitions").fields().forEachRemaining(e -> {
            if (e.getKey().equals("v2")) {
                e.getValue().fields().forEachRemaining(e2 -> out.put(e2.getKey(), e2.getValue()));
            } else {
                out.put(e.getKey(), e.getValue());
            }
        });
    }

    static String refName(String ref) {
        return ref.substring(ref.lastIndexOf('/') + 1);
    }

    /** The tag property of an internally tagged union, or null. */
    static String tagOf(JsonNode s) {
        if (!s.has("oneOf")) {
            return null;
        }
        List<String> candidates = null;
        for (JsonNode v : s.get("oneOf")) {
            List<String> c = new ArrayList<>();
            v.path("properties").fields().forEachRemaining(e -> {
                JsonNode en = e.getValue().path("enum");
                if (en.isArray() && en.size() == 1) {
                    for (JsonNode r : v.path("required")) {
                        if (r.asText().equals(e.getKey())) {
                            c.add(e.getKey());
                        }
                    }
                }
            });
            if (!"object".equals(v.path("type").asText())) {
                return null;
            }
            if (candidates == null) {
                candidates = c;
            } else {
                candidates.retainAll(c);
            }
        }
        if (candidates != null && candidates.size() > 1) {
            // a member fixed to one value in every variant (AgentMessageDisplay's version: 1) is not the tag
            candidates.removeIf(c -> !distinctStrings(s.get("oneOf"), c));
        }
        return candidates == null || candidates.size() != 1 ? null : candidates.get(0);
    }

    private static boolean distinctStrings(JsonNode variants, String member) {
        java.util.Set<String> values = new java.util.HashSet<>();
        for (JsonNode v : variants) {
            JsonNode value = v.path("properties").path(member).path("enum").path(0);
            if (!value.isTextual() || !values.add(value.asText())) {
                return false;
            }
        }
        return true;
    }

    /** One sample per union alternative (or one for plain types), in the given mode. */
    private final Map<String, List<JsonNode>> cache = new java.util.HashMap<>();

    List<JsonNode> samplesOf(String name, Mode mode) {
        List<JsonNode> cached = cache.get(name + "/" + mode);
        if (cached == null) {
            cached = compute(name, mode);
            cache.put(name + "/" + mode, cached);
        }
        List<JsonNode> copy = new ArrayList<>();
        cached.forEach(n -> copy.add(n.deepCopy()));
        return copy;
    }

    private List<JsonNode> compute(String name, Mode mode) {
        JsonNode s = defs.get(name);
        List<JsonNode> out = new ArrayList<>();
        if (s.has("oneOf") || s.has("anyOf")) {
            JsonNode alts = s.has("oneOf") ? s.get("oneOf") : s.get("anyOf");
            for (JsonNode a : alts) {
                if (a.has("enum")) {
                    for (JsonNode e : a.get("enum")) {
                        out.add(e);
                    }
                    continue;
                }
                if (a.path("type").isArray() && a.size() == 1) {
                    continue; // the catch-all of CodexErrorInfo
                }
                if (a.has("type") && "null".equals(a.path("type").asText())) {
                    continue;
                }
                JsonNode v = value(a, mode, 0);
                if (s.has("properties") && v.isObject()) {
                    ObjectNode o = (ObjectNode) v;
                    fill(o, s, mode, 0);
                }
                out.add(v);
            }
            return out;
        }
        if (s.has("enum")) {
            for (JsonNode e : s.get("enum")) {
                out.add(e);
            }
            return out;
        }
        out.add(value(s, mode, 0));
        return out;
    }

    JsonNode value(JsonNode s, Mode mode, int depth) {
        if (s.isBoolean() || (s.isObject() && !s.has("type") && !s.has("$ref") && !s.has("anyOf")
                && !s.has("allOf") && !s.has("oneOf"))) {
            ObjectNode any = F.objectNode();
            any.putArray("any").add(1).add("x");
            return any;
        }
        if (s.has("$ref")) {
            String n = refName(s.get("$ref").asText());
            JsonNode d = defs.get(n);
            if (n.equals("RequestId")) {
                return F.numberNode(42);
            }
            if (overrides.path("mapOverrides").has(n)) {
                ObjectNode o = F.objectNode();
                o.set("k", value(F.objectNode().put("$ref", "#/definitions/v2/" + overrides.path("mapOverrides").get(n).asText()), mode, depth + 1));
                return o;
            }
            if (d.has("oneOf") || d.has("anyOf")) {
                List<JsonNode> l = samplesOf(n, mode);
                return l.get(0);
            }
            return value(d, mode, depth + 1);
        }
        if (s.has("allOf")) {
            return value(s.get("allOf").get(0), mode, depth);
        }
        if (s.has("anyOf") && !s.has("properties")) {
            return value(s.get("anyOf").get(0), mode, depth);
        }
        if (s.has("enum")) {
            return s.get("enum").get(0);
        }
        JsonNode t = s.get("type");
        String type = t.isArray() ? t.get(0).asText() : t.asText();
        switch (type) {
            case "null":
                return F.nullNode();
            case "string":
                return F.textNode("text");
            case "integer":
                return F.numberNode(7);
            case "number":
                return F.numberNode(1.5);
            case "boolean":
                return F.booleanNode(true);
            case "array": {
                ArrayNode a = F.arrayNode();
                JsonNode items = s.get("items");
                a.add(items.isBoolean() ? F.numberNode(1) : value(items, mode, depth + 1));
                return a;
            }
            case "object": {
                ObjectNode o = F.objectNode();
                if (s.has("properties") || !s.has("additionalProperties")
                        || s.get("additionalProperties").equals(F.booleanNode(false))) {
                    fill(o, s, mode, depth);
                    if (s.path("additionalProperties").asBoolean(false) && mode == Mode.FULL) {
                        o.put("zzExtraMember", "kept");
                    }
                } else {
                    JsonNode ap = s.get("additionalProperties");
                    o.set("k", ap.isBoolean() ? F.textNode("v") : value(ap, mode, depth + 1));
                }
                return o;
            }
            default:
                throw new IllegalStateException("sample: type " + type);
        }
    }

    private void fill(ObjectNode o, JsonNode s, Mode mode, int depth) {
        List<String> required = new ArrayList<>();
        s.path("required").forEach(r -> required.add(r.asText()));
        for (Iterator<Map.Entry<String, JsonNode>> it = s.path("properties").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            boolean req = required.contains(e.getKey());
            if (o.has(e.getKey())) {
                continue;
            }
            if (req || mode == Mode.FULL) {
                o.set(e.getKey(), value(e.getValue(), mode, depth + 1));
            } else if (mode == Mode.ALL_NULL) {
                o.putNull(e.getKey());
            }
        }
        // flattened alternatives inside a variant: take the first
        if (s.has("anyOf") && s.has("properties")) {
            JsonNode alt = s.get("anyOf").get(0);
            fill(o, alt, Mode.MINIMAL, depth);
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    /** Drops null members (absent ≡ null) and makes numbers comparable whatever their Java type. */
    static JsonNode normalize(JsonNode n) {
        if (n.isObject()) {
            ObjectNode o = F.objectNode();
            n.fields().forEachRemaining(e -> {
                if (!e.getValue().isNull()) {
                    o.set(e.getKey(), normalize(e.getValue()));
                }
            });
            return o;
        }
        if (n.isArray()) {
            ArrayNode a = F.arrayNode();
            n.forEach(x -> a.add(normalize(x)));
            return a;
        }
        if (n.isNumber()) {
            return DecimalNode.valueOf(n.decimalValue().stripTrailingZeros());
        }
        return n;
    }

    /** True for the generated open enums (a final class with {@code of(String)} and {@code isKnown()}). */
    static boolean isOpenEnum(Class<?> c) {
        try {
            c.getMethod("isKnown");
            c.getMethod("of", String.class);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    /** Paths inside a decoded value that fell back to Unrecognized, an unknown enum value or unknown members. */
    static List<String> unrecognized(Object v) {
        List<String> out = new ArrayList<>();
        walk(v, "$", out);
        return out;
    }

    private static void walk(Object v, String path, List<String> out) {
        if (v == null) {
            return;
        }
        Class<?> c = v.getClass();
        if (c.getSimpleName().equals("Unrecognized")) {
            out.add(path + " (" + c.getName() + ")");
            return;
        }
        if (v instanceof UnknownMembers u) {
            if (!u.isEmpty()) {
                out.add(path + " " + u.names() + " (unknown members)");
            }
            return;
        }
        if (isOpenEnum(c)) {
            try {
                if (!(boolean) c.getMethod("isKnown").invoke(v)) {
                    out.add(path + " (" + c.getName() + ")");
                }
            } catch (ReflectiveOperationException ex) {
                throw new IllegalStateException(ex);
            }
            return;
        }
        if (v instanceof Enum<?>) {
            return;
        }
        if (v instanceof Tristate<?> t) {
            if (t.isPresent()) {
                walk(t.get(), path, out);
            }
            return;
        }
        if (v instanceof List<?> l) {
            for (int i = 0; i < l.size(); i++) {
                walk(l.get(i), path + "[" + i + "]", out);
            }
            return;
        }
        if (v instanceof Map<?, ?> m) {
            m.forEach((k, x) -> {
                walk(k, path + ".<key>", out);
                walk(x, path + "." + k, out);
            });
            return;
        }
        if (c.isRecord()) {
            for (RecordComponent rc : c.getRecordComponents()) {
                try {
                    rc.getAccessor().setAccessible(true);
                    walk(rc.getAccessor().invoke(v), path + "." + rc.getName(), out);
                } catch (ReflectiveOperationException ex) {
                    throw new IllegalStateException(ex);
                }
            }
        }
    }
}

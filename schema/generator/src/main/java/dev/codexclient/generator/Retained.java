package dev.codexclient.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Methods that an older codex the SDK supports has and the pinned schema no longer has, kept with their types so
 * that the client still speaks them ({@code schema/retained.json}, see schema/README.md). codex 0.171.0 dropped
 * the server request {@code currentTime/read}, which 0.169.0 still sends: the client must keep answering it.
 *
 * <p>The file holds each method's variant of its method union, as the last schema that had it wrote it, and the
 * definitions that variant needs and the pinned schema lacks. {@link #mergeInto} puts both back into the bundles
 * before anything else reads them, so the rest of the generator sees one schema.
 *
 * @param methods     the retained methods
 * @param definitions definitions of the stable schema the methods need (also in the experimental one)
 * @param experimentalDefinitions definitions the methods need that only the experimental schema had
 */
record Retained(List<Method> methods, Map<String, JsonNode> definitions, Map<String, JsonNode> experimentalDefinitions) {
    /**
     * One retained method.
     *
     * @param union        {@code ClientRequest}, {@code ServerRequest}, {@code ServerNotification} or
     *                     {@code ClientNotification}
     * @param method       the wire name
     * @param from         the codex version whose schema the variant was copied from
     * @param experimental whether that schema had it only in its experimental bundle
     * @param variant      the method's variant of the union, as that schema wrote it
     */
    record Method(String union, String method, String from, boolean experimental, JsonNode variant) {
    }

    static final Retained NONE = new Retained(List.of(), Map.of(), Map.of());

    static Retained read(JsonNode n, String where) {
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!Set.of("$comment", "methods", "definitions", "experimentalDefinitions").contains(k)) {
                throw new GeneratorException(where + ": unknown key " + k);
            }
        }
        List<Method> methods = new ArrayList<>();
        for (JsonNode m : n.path("methods")) {
            String union = m.path("union").asText();
            if (!Generator.METHOD_UNIONS.contains(union)) {
                throw new GeneratorException(where + ": unknown union " + union);
            }
            String method = m.path("method").asText();
            JsonNode variant = m.get("variant");
            if (variant == null || !method.equals(methodOf(variant))) {
                throw new GeneratorException(where + ": " + method + ": its variant names another method");
            }
            methods.add(new Method(union, method, m.path("from").asText(), m.path("experimental").asBoolean(),
                    variant));
        }
        return new Retained(methods, fields(n.path("definitions")), fields(n.path("experimentalDefinitions")));
    }

    private static Map<String, JsonNode> fields(JsonNode n) {
        Map<String, JsonNode> out = new TreeMap<>();
        n.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    static String methodOf(JsonNode variant) {
        return variant.path("properties").path("method").path("enum").path(0).asText(null);
    }

    /**
     * Adds the retained definitions and variants to the bundles (flattened, as the generator reads them). A
     * definition the pinned schema also has must have the same shape; a method the pinned schema has again must
     * leave the file (schema/regenerate.sh does both checks before it writes the file, so this only fails on a
     * file edited by hand).
     */
    void mergeInto(Map<String, JsonNode> experimental, Map<String, JsonNode> stable) {
        putAll(definitions, experimental, "experimental");
        putAll(definitions, stable, "stable");
        putAll(experimentalDefinitions, experimental, "experimental");
        for (Method m : methods) {
            append(experimental, m, "experimental");
            if (!m.experimental()) {
                append(stable, m, "stable");
            }
        }
    }

    private static void putAll(Map<String, JsonNode> from, Map<String, JsonNode> into, String bundle) {
        for (Map.Entry<String, JsonNode> e : from.entrySet()) {
            JsonNode pinned = into.get(e.getKey());
            if (pinned != null && !Generator.sameShape(pinned, e.getValue())) {
                throw new GeneratorException("retained.json: definition " + e.getKey() + " differs from the "
                        + bundle + " schema's; a retained method cannot share a name with a reshaped type");
            }
            into.putIfAbsent(e.getKey(), e.getValue());
        }
    }

    private static void append(Map<String, JsonNode> bundle, Method m, String which) {
        JsonNode union = bundle.get(m.union());
        if (union == null || !union.path("oneOf").isArray()) {
            throw new GeneratorException("retained.json: the " + which + " schema has no " + m.union());
        }
        for (JsonNode v : union.get("oneOf")) {
            if (m.method().equals(methodOf(v))) {
                throw new GeneratorException("retained.json: " + m.method() + " is in the pinned " + which
                        + " schema again; remove it from retained.json (schema/regenerate.sh does)");
            }
        }
        ObjectNode copy = union.deepCopy();
        ((ArrayNode) copy.get("oneOf")).add(m.variant().deepCopy());
        bundle.put(m.union(), copy);
    }

    /** {@return this file's JSON, in a stable order} */
    JsonNode toJson() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        root.put("$comment", "Methods an older supported codex has and the pinned schema has not, with the types "
                + "they need, kept so that the client still speaks them. Written by schema/regenerate.sh; see "
                + "schema/README.md (Retained methods).");
        ArrayNode ms = root.putArray("methods");
        for (Method m : methods) {
            ObjectNode o = ms.addObject();
            o.put("union", m.union());
            o.put("method", m.method());
            o.put("from", m.from());
            o.put("experimental", m.experimental());
            o.set("variant", m.variant());
        }
        ObjectNode d = root.putObject("definitions");
        new TreeMap<>(definitions).forEach(d::set);
        ObjectNode x = root.putObject("experimentalDefinitions");
        new TreeMap<>(experimentalDefinitions).forEach(x::set);
        return root;
    }

    /** The definition names a schema value refers to ({@code $ref}), in order of appearance. */
    static Set<String> refs(JsonNode n) {
        Set<String> out = new LinkedHashSet<>();
        collectRefs(n, out);
        return out;
    }

    private static void collectRefs(JsonNode n, Set<String> out) {
        if (n.isObject()) {
            JsonNode ref = n.get("$ref");
            if (ref != null && ref.isTextual()) {
                String r = ref.asText();
                out.add(r.substring(r.lastIndexOf('/') + 1));
            }
            n.elements().forEachRemaining(c -> collectRefs(c, out));
        } else if (n.isArray()) {
            n.elements().forEachRemaining(c -> collectRefs(c, out));
        }
    }
}

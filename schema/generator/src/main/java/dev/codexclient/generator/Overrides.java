package dev.codexclient.generator;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.ArrayList;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** The generator configuration that fills gaps of the JSON schema (schema/codegen-overrides.json). */
final class Overrides {
    final Set<String> handwritten = new LinkedHashSet<>();
    final Map<String, String> responses = new TreeMap<>();
    final Set<String> tristate = new LinkedHashSet<>();
    final Set<String> secret = new LinkedHashSet<>();
    final Map<String, String> mapOverrides = new TreeMap<>();
    final Map<String, String> additionalProperties = new TreeMap<>();
    final Map<String, Map<String, String>> variantNames = new TreeMap<>();
    final Map<String, List<ExtraMethod>> extraMethods = new TreeMap<>();
    /** Schema definition name → Java type name, where the schema's name would not sit well in user code. */
    final Map<String, String> typeNames = new TreeMap<>();

    record ExtraMethod(String method, String params, boolean experimental, String description) {
    }

    private static final Set<String> KEYS = Set.of("$comment", "handwrittenTypes", "responses", "tristateFields",
            "secretFields", "mapOverrides", "additionalPropertiesOverrides", "variantNames", "extraMethods",
            "typeNames");

    static Overrides read(JsonNode n) {
        Overrides o = new Overrides();
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!KEYS.contains(k)) {
                throw new GeneratorException("codegen-overrides.json: unknown key " + k);
            }
        }
        n.path("handwrittenTypes").forEach(x -> o.handwritten.add(x.asText()));
        n.path("responses").fields().forEachRemaining(e -> o.responses.put(e.getKey(), e.getValue().asText()));
        n.path("tristateFields").forEach(x -> o.tristate.add(x.asText()));
        n.path("secretFields").forEach(x -> o.secret.add(x.asText()));
        n.path("mapOverrides").fields().forEachRemaining(e -> o.mapOverrides.put(e.getKey(), e.getValue().asText()));
        n.path("additionalPropertiesOverrides").fields()
                .forEachRemaining(e -> o.additionalProperties.put(e.getKey(), e.getValue().asText()));
        n.path("variantNames").fields().forEachRemaining(e -> {
            Map<String, String> m = new TreeMap<>();
            e.getValue().fields().forEachRemaining(v -> m.put(v.getKey(), v.getValue().asText()));
            o.variantNames.put(e.getKey(), m);
        });
        n.path("typeNames").fields().forEachRemaining(e -> o.typeNames.put(e.getKey(), e.getValue().asText()));
        n.path("extraMethods").fields().forEachRemaining(e -> {
            List<ExtraMethod> l = new ArrayList<>();
            for (JsonNode m : e.getValue()) {
                l.add(new ExtraMethod(m.path("method").asText(), m.path("params").asText(),
                        m.path("experimental").asBoolean(false), m.path("description").asText(null)));
            }
            o.extraMethods.put(e.getKey(), l);
        });
        return o;
    }
}

package dev.codexclient.generator;

import static dev.codexclient.generator.Model.*;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The structural test of an untagged union's alternative, as a Java boolean expression over a {@code JsonNode}:
 * JSON kind, required members present, enum-typed members holding an allowed value, no unknown members where
 * the schema says {@code additionalProperties: false}, and the same checks one level down per required object
 * member (to depth 3). Tried in schema order, first match wins, as serde's {@code untagged} does.
 */
final class Matcher {
    private final Generator g;
    private final Analyzer analyzer;

    Matcher(Generator g, Analyzer analyzer) {
        this.g = g;
        this.analyzer = analyzer;
    }

    /** An expression testing whether the JSON expression {@code e} matches schema {@code s}. */
    String match(JsonNode s, String e, int depth) {
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
                    for (EnumConst c : analyzer.enumConsts(ref, d)) {
                        vals.add(q(c.wire()));
                    }
                    yield "BindingSupport.textIn(" + e + ", " + String.join(", ", vals) + ")";
                }
                case ALIAS_STRING -> e + ".isTextual()";
                case TAGGED -> "BindingSupport.hasText(" + e + ", " + q(g.tag(ref)) + ")";
                case EXTERNAL -> "(" + e + ".isTextual() || " + e + ".isObject())";
                case MAP -> e + ".isObject()";
                case HANDWRITTEN -> "(" + e + ".isTextual() || " + e + ".isIntegralNumber())";
                case SKIP -> "(" + e + ".isNull() || " + match(d.get("anyOf").get(0), e, depth) + ")";
                case UNTAGGED -> {
                    List<String> ors = new ArrayList<>();
                    for (JsonNode a : d.get("anyOf")) {
                        ors.add(match(a, e, depth + 1));
                    }
                    yield "(" + String.join("\n|| ", ors) + ")";
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
            case "string" -> s.has("enum") ? "BindingSupport.textIn(" + e + ", "
                    + String.join(", ", Generator.texts(s.get("enum")).stream().map(Matcher::q).toList()) + ")"
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
            parts.add("BindingSupport.onlyKeys(" + e + (keys.isEmpty() ? "" : ", " + String.join(", ", keys)) + ")");
        }
        return "(" + String.join("\n&& ", parts) + ")";
    }

    static String q(String s) {
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
}

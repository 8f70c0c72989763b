package dev.codexclient.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Decodes a sample of every definition, union variant and method built from the schema, checks that nothing
 * falls back to an Unrecognized variant, re-encodes it and compares with the input (null ≡ absent, numbers by
 * value). Unknown tags, strings, enum values and methods must fall back and echo unchanged.
 */
class SchemaRoundTripTest {
    private static SchemaSamples samples;

    @BeforeAll
    static void load() throws Exception {
        samples = new SchemaSamples();
    }

    static Stream<Arguments> mappers() {
        return Stream.of(Arguments.of("default ObjectMapper", new ObjectMapper()),
                Arguments.of("ProtocolJson.mapper()", ProtocolJson.mapper()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mappers")
    void everyDefinitionRoundTrips(String label, ObjectMapper mapper) throws Exception {
        long start = System.nanoTime();
        List<String> failures = new ArrayList<>();
        Map<String, Integer> counts = new TreeMap<>();
        for (Map.Entry<String, JsonNode> e : samples.defs.entrySet()) {
            String name = e.getKey();
            Class<?> type = javaType(name);
            if (type == null) {
                continue;
            }
            for (SchemaSamples.Mode mode : SchemaSamples.Mode.values()) {
                for (JsonNode sample : samples.samplesOf(name, mode)) {
                    counts.merge("definition samples", 1, Integer::sum);
                    roundTrip(mapper, type, name + " " + mode, sample, false, failures);
                }
            }
            JsonNode s = e.getValue();
            String tag = SchemaSamples.tagOf(s);
            if (tag != null) {
                ObjectNode unknown = SchemaSamples.F.objectNode().put(tag, "zzUnknownTag").put("extra", 1);
                unknown.putObject("nested").putArray("x").add(true);
                counts.merge("unknown-tag samples", 1, Integer::sum);
                roundTrip(mapper, type, name + " unknown tag", unknown, true, failures);
            } else if (s.has("oneOf") || s.has("anyOf")) {
                boolean hasStrings = false;
                for (JsonNode a : s.has("oneOf") ? s.get("oneOf") : s.get("anyOf")) {
                    hasStrings |= a.has("enum");
                }
                if (hasStrings && type.isInterface()) {
                    counts.merge("unknown-variant samples", 2, Integer::sum);
                    roundTrip(mapper, type, name + " unknown string", SchemaSamples.F.textNode("zzUnknown"), true, failures);
                    ObjectNode o = SchemaSamples.F.objectNode();
                    o.putObject("zzUnknown").put("a", 1);
                    roundTrip(mapper, type, name + " unknown key", o, true, failures);
                } else if (type.isInterface() && !name.equals("RequestId")) {
                    counts.merge("unknown-variant samples", 1, Integer::sum);
                    roundTrip(mapper, type, name + " unmatched value", SchemaSamples.F.booleanNode(true), true, failures);
                } else if (SchemaSamples.isOpenEnum(type)) {
                    counts.merge("unknown-enum samples", 1, Integer::sum);
                    unknownEnumValue(mapper, name, type, failures);
                }
            } else if (SchemaSamples.isOpenEnum(type)) {
                counts.merge("unknown-enum samples", 1, Integer::sum);
                unknownEnumValue(mapper, name, type, failures);
            }
        }
        long defsDone = System.nanoTime();
        counts.merge("method samples", methodSamples(mapper, failures), Integer::sum);
        System.out.println("[" + label + "] round-trip samples: " + counts + ", failures: " + failures.size()
                + " (definitions " + (defsDone - start) / 1_000_000 + " ms, methods "
                + (System.nanoTime() - defsDone) / 1_000_000 + " ms)");
        assertThat(failures).as("round-trip failures with " + label).isEmpty();
        assertThat(counts.get("definition samples")).isGreaterThan(2_500);
    }

    /** An unknown enum value reads as not known, keeps its string and writes it back unchanged. */
    private static void unknownEnumValue(ObjectMapper mapper, String name, Class<?> type, List<String> failures)
            throws Exception {
        Object v = mapper.readValue("\"zz-Unknown/value\"", type);
        if (!SchemaSamples.unrecognized(v).equals(List.of("$ (" + type.getName() + ")"))
                || !mapper.writeValueAsString(v).equals("\"zz-Unknown/value\"")) {
            failures.add(name + ": unknown enum value gave " + v + ", written " + mapper.writeValueAsString(v));
        }
    }

    private int methodSamples(ObjectMapper mapper, List<String> failures) throws Exception {
        int n = 0;
        for (MethodDescriptor<?, ?> d : ClientRequestMethods.ALL) {
            for (boolean withParams : d.paramsPresence() == ParamsPresence.OPTIONAL ? new boolean[] {true, false}
                    : new boolean[] {d.paramsPresence() == ParamsPresence.REQUIRED}) {
                for (SchemaSamples.Mode mode : SchemaSamples.Mode.values()) {
                    ObjectNode msg = SchemaSamples.F.objectNode().put("id", n).put("method", d.method());
                    if (withParams) {
                        msg.set("params", samples.samplesOf(d.paramsType().getSimpleName(), mode).get(0));
                    }
                    roundTrip(mapper, ClientRequest.class, "request " + d.method() + " " + mode, msg, false, failures);
                    n++;
                }
            }
            for (SchemaSamples.Mode mode : SchemaSamples.Mode.values()) {
                for (JsonNode result : samples.samplesOf(d.resultType().getSimpleName(), mode)) {
                    roundTrip(mapper, d.resultType(), "result of " + d.method() + " " + mode, result, false, failures);
                    n++;
                }
            }
        }
        for (MethodDescriptor<?, ?> d : ServerRequestMethods.ALL) {
            for (SchemaSamples.Mode mode : SchemaSamples.Mode.values()) {
                ObjectNode msg = SchemaSamples.F.objectNode().put("id", "srv-" + n).put("method", d.method());
                msg.set("params", samples.samplesOf(d.paramsType().getSimpleName(), mode).get(0));
                roundTrip(mapper, ServerRequest.class, "server request " + d.method() + " " + mode, msg, false, failures);
                n++;
                for (JsonNode result : samples.samplesOf(d.resultType().getSimpleName(), mode)) {
                    roundTrip(mapper, d.resultType(), "result of " + d.method() + " " + mode, result, false, failures);
                    n++;
                }
            }
        }
        for (NotificationDescriptor<?> d : ServerNotificationMethods.ALL) {
            for (SchemaSamples.Mode mode : SchemaSamples.Mode.values()) {
                ObjectNode msg = SchemaSamples.F.objectNode().put("method", d.method());
                msg.set("params", samples.samplesOf(d.paramsType().getSimpleName(), mode).get(0));
                if (mode == SchemaSamples.Mode.FULL) {
                    msg.put("emittedAtMs", 1_763_000_000_000L);
                }
                roundTrip(mapper, ServerNotification.class, "notification " + d.method() + " " + mode, msg, false, failures);
                n++;
            }
        }
        for (NotificationDescriptor<?> d : ClientNotificationMethods.ALL) {
            roundTrip(mapper, ClientNotification.class, "client notification " + d.method(),
                    SchemaSamples.F.objectNode().put("method", d.method()), false, failures);
            n++;
        }
        ObjectNode unknown = SchemaSamples.F.objectNode().put("id", 9).put("method", "zz/unknown");
        unknown.putObject("params").put("a", 1);
        for (Class<?> union : List.of(ClientRequest.class, ServerRequest.class, ServerNotification.class,
                ClientNotification.class)) {
            roundTrip(mapper, union, union.getSimpleName() + " unknown method", unknown, true, failures);
            n++;
        }
        return n;
    }

    private static void roundTrip(ObjectMapper mapper, Class<?> type, String what, JsonNode input, boolean expectUnknown,
                                  List<String> failures) {
        try {
            String json = mapper.writeValueAsString(input);
            Object decoded = mapper.readValue(json, type);
            List<String> unrec = SchemaSamples.unrecognized(decoded);
            if (expectUnknown) {
                if (unrec.isEmpty() || !decoded.getClass().getSimpleName().equals("Unrecognized")) {
                    failures.add(what + ": expected the Unrecognized fallback, got " + decoded);
                    return;
                }
            } else if (!unrec.isEmpty()) {
                failures.add(what + ": fell back to Unrecognized at " + unrec + " for " + json);
                return;
            }
            JsonNode back = mapper.readTree(mapper.writeValueAsString(decoded));
            JsonNode want = expectUnknown ? input : SchemaSamples.normalize(input);
            JsonNode got = expectUnknown ? back : SchemaSamples.normalize(back);
            if (!want.equals(got)) {
                failures.add(what + ":\n  in : " + input + "\n  out: " + back);
            }
        } catch (Exception ex) {
            failures.add(what + ": " + ex.getClass().getSimpleName() + ": " + ex.getMessage().lines().findFirst().orElse("")
                    + " for " + input);
        }
    }

    private static volatile JsonNode renames;

    /** The Java class of a schema definition (renamed ones per the overrides' {@code typeNames}), or null. */
    static Class<?> javaType(String name) {
        try {
            if (renames == null) {
                renames = new ObjectMapper().readTree(
                        SchemaSamples.schemaDir().resolve("codegen-overrides.json").toFile()).path("typeNames");
            }
            return Class.forName("dev.codexclient.protocol." + renames.path(name).asText(name));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }
}

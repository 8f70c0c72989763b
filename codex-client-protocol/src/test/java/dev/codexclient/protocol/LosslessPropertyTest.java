package dev.codexclient.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a newer codex sends survives decode and encode: for every sample the schema yields, and for mutations of
 * it that add a member the schema does not declare to one object at a time (and to every object at once) and
 * that replace one string at a time with a value no enum of the schema has, decoding into the generated type
 * and encoding again gives the same members with the same values (a {@code null} of a declared optional member
 * may be dropped: the protocol treats it as absent).
 */
class LosslessPropertyTest {
    private static final ObjectMapper M = ProtocolJson.mapper();
    private static final List<String> METHOD_UNIONS = List.of("ClientRequest", "ServerRequest", "ServerNotification",
            "ClientNotification");
    private static SchemaSamples samples;

    @BeforeAll
    static void load() throws Exception {
        samples = new SchemaSamples();
    }

    @Test
    void everySampleWithUnknownMembersAndEnumValuesAtEveryLevelRoundTrips() throws Exception {
        List<String> failures = new ArrayList<>();
        Map<String, Integer> counts = new TreeMap<>();
        for (String name : samples.defs.keySet()) {
            Class<?> type = SchemaRoundTripTest.javaType(name);
            if (type == null || name.equals("RequestId")) {
                continue;
            }
            for (JsonNode sample : samples.samplesOf(name, SchemaSamples.Mode.FULL)) {
                check(type, name + " as sampled", sample, failures, counts, "samples");
                List<JsonNode> objects = new ArrayList<>();
                List<JsonNode> strings = new ArrayList<>();
                collect(sample, objects, strings);
                // The envelope of the method unions ({id, method, params, emittedAtMs}) is the JSON-RPC layer's; its
                // own members beyond the schema are not kept. Everything inside params is.
                boolean envelope = METHOD_UNIONS.contains(name);
                for (int i = envelope ? 1 : 0; i < objects.size(); i++) {
                    int at = i;
                    check(type, name + " + unknown member in object #" + i,
                            mutate(sample, (copy) -> addUnknown(nth(copy, at, true))), failures, counts,
                            "unknown members");
                }
                check(type, name + " + unknown members everywhere", mutate(sample, copy -> {
                    addEverywhere(copy);
                    if (envelope) {
                        ((ObjectNode) copy).remove("zzFutureMember");
                    }
                }), failures, counts, "unknown members everywhere");
                for (int i = 0; i < strings.size(); i++) {
                    int at = i;
                    check(type, name + " string #" + i + " replaced", mutate(sample, copy -> replaceString(copy, at)),
                            failures, counts, "replaced strings");
                }
            }
        }
        System.out.println("lossless round trips: " + counts + ", failures: " + failures.size());
        assertThat(failures).as("values that changed in a round trip").isEmpty();
        assertThat(counts.get("unknown members")).isGreaterThan(2_000);
        assertThat(counts.get("replaced strings")).isGreaterThan(5_000);
    }

    @Test
    void anUnknownEnumValueInARequestIsWrittenBackAsSent() throws Exception {
        ThreadStartParams p = M.readValue("{\"sandbox\":\"network-only-future-mode\"}", ThreadStartParams.class);
        assertThat(p.sandbox().isKnown()).isFalse();
        assertThat(p.sandbox().asString()).isEqualTo("network-only-future-mode");
        assertThat(M.writeValueAsString(p)).isEqualTo("{\"sandbox\":\"network-only-future-mode\"}");
    }

    @Test
    void unknownMembersAreKeptInOrderReadableAndPrintedWithoutValues() throws Exception {
        String json = "{\"delta\":\"hi\",\"itemId\":\"i\",\"threadId\":\"t\",\"turnId\":\"u\","
                + "\"apiKey\":\"sk-secret-value\",\"limits\":{\"max\":3,\"min\":1}}";
        AgentMessageDeltaNotification n = M.readValue(json, AgentMessageDeltaNotification.class);
        assertThat(n.unknownMembers().names()).containsExactly("apiKey", "limits");
        assertThat(n.unknownMembers().get("limits").get("max").intValue()).isEqualTo(3);
        assertThat(M.readTree(M.writeValueAsString(n))).isEqualTo(M.readTree(json));
        assertThat(n.toString()).doesNotContain("sk-secret-value").contains("apiKey=string(15)")
                .contains("limits=object[max, min]");
        // the copy from toBuilder keeps them too
        assertThat(n.unknownMembers().asMap()).isUnmodifiable();
        AgentMessageDeltaNotification plain = new AgentMessageDeltaNotification("hi", "i", "t", "u");
        assertThat(plain.unknownMembers().isEmpty()).isTrue();
        assertThat(M.writeValueAsString(plain)).isEqualTo("{\"delta\":\"hi\",\"itemId\":\"i\",\"threadId\":\"t\",\"turnId\":\"u\"}");
    }

    @Test
    void unrecognizedValuesPrintTheirShapeNotTheirContent() throws Exception {
        Object item = M.readValue("{\"type\":\"futureItem\",\"id\":\"x\",\"token\":\"sk-secret-value\"}", ThreadItem.class);
        assertThat(item).isInstanceOf(ThreadItem.Unrecognized.class);
        assertThat(item.toString()).doesNotContain("sk-secret-value").contains("futureItem").contains("token");
        Object decision = M.readValue("{\"futureDecision\":{\"secret\":\"sk-secret-value\"}}",
                CommandExecutionApprovalDecision.class);
        assertThat(decision.toString()).doesNotContain("sk-secret-value").contains("futureDecision");
        Object notification = M.readValue("{\"method\":\"future/thing\",\"params\":{\"secret\":\"sk-secret-value\"}}",
                ServerNotification.class);
        assertThat(notification.toString()).doesNotContain("sk-secret-value").contains("future/thing");
        assertThat(SandboxMode.of("sk-secret-value").toString()).doesNotContain("sk-secret-value");
    }

    // ---------------------------------------------------------------------------------------------------------

    private static void check(Class<?> type, String what, JsonNode input, List<String> failures,
                              Map<String, Integer> counts, String kind) {
        counts.merge(kind, 1, Integer::sum);
        try {
            Object decoded = M.readValue(M.writeValueAsString(input), type);
            JsonNode back = M.readTree(M.writeValueAsString(decoded));
            if (!SchemaSamples.normalize(input).equals(SchemaSamples.normalize(back))) {
                failures.add(what + ":\n  in : " + input + "\n  out: " + back);
            }
        } catch (Exception e) {
            failures.add(what + ": " + e.getClass().getSimpleName() + ": "
                    + String.valueOf(e.getMessage()).lines().findFirst().orElse("") + " for " + input);
        }
    }

    private static JsonNode mutate(JsonNode sample, Consumer<JsonNode> change) {
        JsonNode copy = sample.deepCopy();
        change.accept(copy);
        return copy;
    }

    /** Objects and strings of a tree, depth first, in document order. */
    private static void collect(JsonNode n, List<JsonNode> objects, List<JsonNode> strings) {
        if (n.isObject()) {
            objects.add(n);
            n.fields().forEachRemaining(e -> collect(e.getValue(), objects, strings));
        } else if (n.isArray()) {
            n.forEach(x -> collect(x, objects, strings));
        } else if (n.isTextual()) {
            strings.add(n);
        }
    }

    private static JsonNode nth(JsonNode root, int index, boolean objects) {
        List<JsonNode> os = new ArrayList<>();
        List<JsonNode> ss = new ArrayList<>();
        collect(root, os, ss);
        return objects ? os.get(index) : ss.get(index);
    }

    /**
     * Adds a member the schema does not declare. Its value is a copy of the object's first member, so that where
     * the object is a map (whose every key is a member) the new entry has the map's value type; an empty object is
     * left alone, as it may be an empty map of anything.
     */
    private static void addUnknown(JsonNode object) {
        ObjectNode o = (ObjectNode) object;
        if (o.isEmpty()) {
            return;
        }
        o.set("zzFutureMember", o.elements().next().deepCopy());
    }

    private static void addEverywhere(JsonNode root) {
        List<JsonNode> os = new ArrayList<>();
        collect(root, os, new ArrayList<>());
        os.forEach(LosslessPropertyTest::addUnknown);
    }

    /** Replaces the {@code index}-th string (in document order) with a value no enum of the schema has. */
    private static void replaceString(JsonNode root, int index) {
        int[] seen = {0};
        replace(root, index, seen);
    }

    private static boolean replace(JsonNode n, int index, int[] seen) {
        if (n.isObject()) {
            ObjectNode o = (ObjectNode) n;
            for (var it = o.fields(); it.hasNext(); ) {
                var e = it.next();
                if (e.getValue().isTextual()) {
                    if (seen[0]++ == index) {
                        e.setValue(TextNode.valueOf("zz-future-value"));
                        return true;
                    }
                } else if (replace(e.getValue(), index, seen)) {
                    return true;
                }
            }
        } else if (n.isArray()) {
            ArrayNode a = (ArrayNode) n;
            for (int i = 0; i < a.size(); i++) {
                if (a.get(i).isTextual()) {
                    if (seen[0]++ == index) {
                        a.set(i, TextNode.valueOf("zz-future-value"));
                        return true;
                    }
                } else if (replace(a.get(i), index, seen)) {
                    return true;
                }
            }
        }
        return false;
    }
}

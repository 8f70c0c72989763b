package dev.codexclient.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordDeserializer} must give exactly what Jackson's own record path gives: the same value for every
 * sample the schema yields and for mutations of them (type mismatches, explicit nulls, empty objects, unknown
 * members), and the same kind of error with the same path where Jackson fails.
 */
class RecordDeserializerTest {
    private static SchemaSamples samples;
    private static final ObjectMapper FAST = ProtocolJson.newMapper(true);
    private static final ObjectMapper PLAIN = ProtocolJson.newMapper(false);

    @BeforeAll
    static void load() throws Exception {
        samples = new SchemaSamples();
    }

    @Test
    void everySampleAndMutationDecodesAsJacksonDoes() throws Exception {
        List<String> differences = new ArrayList<>();
        int compared = 0;
        int failedBoth = 0;
        for (Map.Entry<String, JsonNode> e : samples.defs.entrySet()) {
            Class<?> type = SchemaRoundTripTest.javaType(e.getKey());
            if (type == null) {
                continue;
            }
            for (SchemaSamples.Mode mode : SchemaSamples.Mode.values()) {
                for (JsonNode sample : samples.samplesOf(e.getKey(), mode)) {
                    for (JsonNode input : mutations(sample)) {
                        compared++;
                        failedBoth += compare(type, e.getKey() + " " + mode, input, differences);
                    }
                }
            }
        }
        for (NotificationDescriptor<?> d : ServerNotificationMethods.ALL) {
            ObjectNode msg = SchemaSamples.F.objectNode().put("method", d.method());
            msg.set("params", samples.samplesOf(d.paramsType().getSimpleName(), SchemaSamples.Mode.FULL).get(0));
            compared++;
            compare(ServerNotification.class, "notification " + d.method(), msg, differences);
        }
        assertThat(differences).as("inputs that decode differently").isEmpty();
        assertThat(compared).isGreaterThan(10_000);
        // The mutations must reach Jackson's error paths too, or the comparison proves little about them.
        assertThat(failedBoth).isGreaterThan(500);
    }

    @Test
    void bindsMostRecordsAndLeavesAnnotatedOnesToJackson() throws Exception {
        DefaultDeserializationContext ctxt = ((DefaultDeserializationContext) FAST.getDeserializationContext())
                .createDummyInstance(FAST.getDeserializationConfig());
        int records = 0;
        int plain = 0;
        for (String name : samples.defs.keySet()) {
            Class<?> type = SchemaRoundTripTest.javaType(name);
            if (type == null || !type.isRecord()) {
                continue;
            }
            records++;
            JsonDeserializer<Object> d = ctxt.findRootValueDeserializer(FAST.constructType(type));
            if (d instanceof RecordDeserializer) {
                plain++;
            }
        }
        assertThat(plain).as("records bound by RecordDeserializer, of " + records).isGreaterThan(records * 3 / 4);
        assertThat(ctxt.findRootValueDeserializer(FAST.constructType(AgentMessageDeltaNotification.class)))
                .isInstanceOf(RecordDeserializer.class);
        assertThat(ctxt.findContextualValueDeserializer(FAST.constructType(ThreadItem.class), null))
                .isInstanceOf(UnionDeserializer.class);
        // Tristate components keep their absent/null/value distinction.
        assertThat(ctxt.findRootValueDeserializer(FAST.constructType(ThreadMetadataGitInfoUpdateParams.class)))
                .isInstanceOf(RecordDeserializer.class);
    }

    @Test
    void duplicatesKeepTheLastValueAndUnknownMembersAreSkipped() throws Exception {
        String json = "{\"delta\":\"a\",\"x\":{\"deep\":[1,{\"y\":null}]},\"itemId\":\"i\",\"delta\":\"b\","
                + "\"threadId\":\"t\",\"turnId\":\"u\"}";
        AgentMessageDeltaNotification fast = FAST.readValue(json, AgentMessageDeltaNotification.class);
        assertThat(fast).isEqualTo(PLAIN.readValue(json, AgentMessageDeltaNotification.class));
        assertThat(fast.delta()).isEqualTo("b");
    }

    @Test
    void errorsCarryTheMemberPath() {
        assertThatThrownBy(() -> FAST.readValue("{\"threadId\":\"t\",\"turn\":{\"id\":[1]}}",
                TurnStartedNotification.class))
                .isInstanceOf(JsonMappingException.class)
                .satisfies(e -> assertThat(((JsonMappingException) e).getPathReference())
                        .isEqualTo(pathOf(() -> PLAIN.readValue("{\"threadId\":\"t\",\"turn\":{\"id\":[1]}}",
                                TurnStartedNotification.class))));
    }

    @Test
    void strictCreatorFeaturesGoToJackson() {
        ObjectMapper strict = ProtocolJson.newMapper(true)
                .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES);
        assertThatThrownBy(() -> strict.readValue("{\"delta\":\"a\"}", AgentMessageDeltaNotification.class))
                .isInstanceOf(JsonMappingException.class)
                .hasMessageContaining("Missing creator property");
    }

    private static String pathOf(ThrowingRunnable r) {
        try {
            r.run();
        } catch (JsonMappingException e) {
            return e.getPathReference();
        } catch (Exception e) {
            return "unexpected " + e;
        }
        return "no error";
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Returns 1 when both mappers rejected the input (with the same error kind and path), else 0. */
    private static int compare(Class<?> type, String what, JsonNode input, List<String> differences) {
        String json = input.toString();
        Object fast;
        Object plain;
        Exception fastError = null;
        Exception plainError = null;
        try {
            fast = FAST.readValue(json, type);
        } catch (Exception e) {
            fast = null;
            fastError = e;
        }
        try {
            plain = PLAIN.readValue(json, type);
        } catch (Exception e) {
            plain = null;
            plainError = e;
        }
        if (fastError == null && plainError == null) {
            if (!fast.equals(plain)) {
                differences.add(what + ": " + json + "\n  fast : " + fast + "\n  plain: " + plain);
            }
            return 0;
        }
        if (fastError == null || plainError == null) {
            differences.add(what + ": " + json + "\n  fast : " + (fastError != null ? fastError : fast)
                    + "\n  plain: " + (plainError != null ? plainError : plain));
            return 0;
        }
        String fastPath = fastError instanceof JsonMappingException m ? m.getPathReference() : "";
        String plainPath = plainError instanceof JsonMappingException m ? m.getPathReference() : "";
        if (fastError.getClass() != plainError.getClass() || !fastPath.equals(plainPath)) {
            differences.add(what + ": " + json + "\n  fast : " + fastError.getClass().getSimpleName() + " at "
                    + fastPath + "\n  plain: " + plainError.getClass().getSimpleName() + " at " + plainPath);
        }
        return 1;
    }

    /** The sample itself, and for objects: empty, with an unknown member, and each member given a wrong type. */
    private static List<JsonNode> mutations(JsonNode sample) {
        List<JsonNode> out = new ArrayList<>();
        out.add(sample);
        if (!(sample instanceof ObjectNode o)) {
            return out;
        }
        out.add(SchemaSamples.F.objectNode());
        if (o.has("type")) {
            // Codex writes a union's tag first: the path that reads it without buffering.
            ObjectNode tagFirst = SchemaSamples.F.objectNode();
            tagFirst.set("type", o.get("type"));
            tagFirst.setAll(o);
            out.add(tagFirst);
            out.add(tagFirst.deepCopy().put("type", "zzUnknownTag"));
            out.add(tagFirst.deepCopy().put("type", 3));
        }
        ObjectNode unknown = o.deepCopy();
        unknown.putObject("zzUnknownMember").putArray("nested").add(1).add("two");
        out.add(unknown);
        for (Iterator<String> names = o.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            JsonNode value = o.get(name);
            for (JsonNode wrong : wrongValues(value)) {
                ObjectNode m = o.deepCopy();
                m.set(name, wrong);
                out.add(m);
            }
        }
        return out;
    }

    private static List<JsonNode> wrongValues(JsonNode value) {
        ArrayNode array = SchemaSamples.F.arrayNode().add(1);
        ObjectNode object = SchemaSamples.F.objectNode().put("k", "v");
        if (value.isTextual()) {
            return List.of(SchemaSamples.F.numberNode(12), object);
        }
        if (value.isNumber()) {
            return List.of(SchemaSamples.F.textNode("12"), SchemaSamples.F.textNode("x"),
                    SchemaSamples.F.numberNode(1.5), SchemaSamples.F.numberNode(Long.MAX_VALUE));
        }
        if (value.isBoolean()) {
            return List.of(SchemaSamples.F.textNode("true"), SchemaSamples.F.numberNode(0));
        }
        if (value.isObject()) {
            return List.of(SchemaSamples.F.textNode("s"), array);
        }
        if (value.isArray()) {
            return List.of(object, SchemaSamples.F.textNode("s"));
        }
        return List.of(SchemaSamples.F.textNode("s"));
    }
}

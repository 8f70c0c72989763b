package dev.codexclient.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Methods an older codex has and the pinned one lacks: which ones {@link Retain} keeps, with which definitions, and
 * how the generator puts them back ({@link Retained}).
 */
class RetainTest {
    private static final ObjectMapper M = new ObjectMapper();

    @TempDir
    Path dir;

    /** A bundle with the four method unions; {@code serverRequests} and {@code defs} are JSON fragments. */
    private static Map<String, JsonNode> bundle(String serverRequests, String defs) throws Exception {
        String json = """
                {"definitions": {
                  "ClientRequest": {"oneOf": [%s]},
                  "ServerRequest": {"oneOf": [%s]},
                  "ServerNotification": {"oneOf": []},
                  "ClientNotification": {"oneOf": []},
                  "RequestId": {"anyOf": [{"type": "string"}, {"format": "int64", "type": "integer"}]},
                  "ABParams": {"type": "object", "properties": {"x": {"type": "string"}}},
                  "ABResponse": {"type": "object"}%s
                }}""".formatted(request("a/b", "ABParams"), serverRequests, defs.isEmpty() ? "" : "," + defs);
        return Generator.flatten(M.readTree(json), "test");
    }

    private static String request(String method, String params) {
        return """
                {"type": "object", "required": ["id", "method", "params"], "properties": {
                  "id": {"$ref": "#/definitions/v2/RequestId"}, "method": {"enum": ["%s"], "type": "string"},
                  "params": {"$ref": "#/definitions/%s"}}}""".formatted(method, params);
    }

    private static final String TIME_DEFS = """
            "TimeReadParams": {"type": "object", "required": ["threadId"], "properties": {"threadId": {"type": "string"}}},
            "TimeReadResponse": {"type": "object", "required": ["at"], "properties": {
              "at": {"format": "int64", "type": "integer"}, "zone": {"$ref": "#/definitions/Zone"}}},
            "Zone": {"type": "string", "enum": ["utc", "local"]}""";

    @Test
    void aRemovedServerRequestIsKeptWithTheTypesTheNewSchemaLacks() throws Exception {
        Map<String, JsonNode> old = bundle(request("time/read", "TimeReadParams"), TIME_DEFS);
        Map<String, JsonNode> neu = bundle("", "");
        StringBuilder out = new StringBuilder();
        Retained r = Retain.update(Retained.NONE, old, old, "0.169.0", neu, true, List.of(), Map.of(), out);

        assertThat(r.methods()).singleElement().satisfies(m -> {
            assertThat(m.union()).isEqualTo("ServerRequest");
            assertThat(m.method()).isEqualTo("time/read");
            assertThat(m.from()).isEqualTo("0.169.0");
            assertThat(m.experimental()).isFalse();
        });
        // the params, the response (by the XParams -> XResponse rule) and what they refer to; not RequestId,
        // which the new schema has in the same shape
        assertThat(r.definitions()).containsOnlyKeys("TimeReadParams", "TimeReadResponse", "Zone");
        assertThat(out).contains("ServerRequest time/read (removed after codex 0.169.0) is kept");

        // merged back, the generator sees the method as if the schema had it
        Path file = dir.resolve("retained.json");
        Files.writeString(file, M.writeValueAsString(r.toJson()));
        Map<String, JsonNode> defs = bundle("", "");
        Map<String, JsonNode> stable = bundle("", "");
        Retained.read(M.readTree(file.toFile()), file.toString()).mergeInto(defs, stable);
        assertThat(Retain.methodsOf(defs, "ServerRequest")).containsOnlyKeys("time/read");
        assertThat(Retain.methodsOf(stable, "ServerRequest")).containsOnlyKeys("time/read");
        assertThat(defs).containsKeys("TimeReadParams", "TimeReadResponse", "Zone");
    }

    @Test
    void otherRemovedMethodsAreListedAndKeptOnlyWhenNamed() throws Exception {
        Map<String, JsonNode> old = bundle("", "\"CDParams\": {\"type\": \"object\"}, \"CDResponse\": {\"type\": \"object\"}");
        ((com.fasterxml.jackson.databind.node.ArrayNode) old.get("ClientRequest").get("oneOf"))
                .add(M.readTree(request("c/d", "CDParams")));
        Map<String, JsonNode> neu = bundle("", "");
        StringBuilder out = new StringBuilder();
        Retained dropped = Retain.update(Retained.NONE, old, old, "0.169.0", neu, true, List.of(), Map.of(), out);
        assertThat(dropped.methods()).isEmpty();
        assertThat(out).contains("ClientRequest c/d (removed after codex 0.169.0) is dropped; keep it with "
                + "--method ClientRequest:c/d");

        Retained kept = Retain.update(Retained.NONE, old, old, "0.169.0", neu, true, List.of("ClientRequest:c/d"),
                Map.of(), new StringBuilder());
        assertThat(kept.methods()).extracting(Retained.Method::method).containsExactly("c/d");
        assertThatThrownBy(() -> Retain.update(Retained.NONE, old, old, "0.169.0", neu, true,
                List.of("ClientRequest:a/b"), Map.of(), new StringBuilder()))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("ClientRequest:a/b");
    }

    @Test
    void aRetainedMethodLeavesWhenTheSchemaHasItAgainAndStaysOtherwise() throws Exception {
        Map<String, JsonNode> old = bundle(request("time/read", "TimeReadParams"), TIME_DEFS);
        Retained first = Retain.update(Retained.NONE, old, old, "0.169.0", bundle("", ""), true, List.of(), Map.of(),
                new StringBuilder());
        // the next release: the old schema is the one without the method; the file still has it
        Retained kept = Retain.update(first, bundle("", ""), bundle("", ""), "0.171.0", bundle("", ""), true,
                List.of(), Map.of(), new StringBuilder());
        assertThat(kept).isEqualTo(first);
        StringBuilder out = new StringBuilder();
        Retained back = Retain.update(first, bundle("", ""), bundle("", ""), "0.171.0",
                bundle(request("time/read", "TimeReadParams"), TIME_DEFS), true, List.of(), Map.of(), out);
        assertThat(back.methods()).isEmpty();
        assertThat(back.definitions()).isEmpty();
        assertThat(out).contains("time/read is in the new schema again; no longer retained");
    }

    @Test
    void aTypeTheNewSchemaReshapedCannotBeRetainedSilently() throws Exception {
        Map<String, JsonNode> old = bundle(request("time/read", "TimeReadParams"), TIME_DEFS);
        Map<String, JsonNode> neu = bundle("", "\"Zone\": {\"type\": \"string\", \"enum\": [\"utc\"]}");
        assertThatThrownBy(() -> Retain.update(Retained.NONE, old, old, "0.169.0", neu, true, List.of(), Map.of(),
                new StringBuilder()))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("time/read")
                .hasMessageContaining("Zone");
    }

    @Test
    void anExperimentalMethodStaysExperimental() throws Exception {
        Map<String, JsonNode> old = bundle(request("time/read", "TimeReadParams"), TIME_DEFS);
        Map<String, JsonNode> oldStable = bundle("", "");
        Retained r = Retain.update(Retained.NONE, old, oldStable, "0.169.0", bundle("", ""), true, List.of(),
                Map.of(), new StringBuilder());
        assertThat(r.methods().get(0).experimental()).isTrue();
        assertThat(r.experimentalDefinitions()).containsOnlyKeys("TimeReadParams", "TimeReadResponse", "Zone");
        Map<String, JsonNode> defs = bundle("", "");
        Map<String, JsonNode> stable = bundle("", "");
        r.mergeInto(defs, stable);
        assertThat(Retain.methodsOf(defs, "ServerRequest")).containsOnlyKeys("time/read");
        assertThat(Retain.methodsOf(stable, "ServerRequest")).isEmpty();
    }
}

package dev.codexclient.internal.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RecordSchemasTest {
    private final ObjectMapper mapper = new ObjectMapper();

    enum Severity { LOW, HIGH }

    record Step(String title, boolean done) {
    }

    record Plan(@JsonProperty("plan_name") String name, int count, long big, double score, Severity severity,
                List<Step> steps, Map<String, Integer> tally, Optional<String> note, String[] tags, JsonNode extra) {
    }

    @Test
    void recordBecomesAStrictObjectSchema() throws Exception {
        ObjectNode s = RecordSchemas.schemaOf(Plan.class);
        JsonNode expected = mapper.readTree("""
                {"type":"object","properties":{
                  "plan_name":{"type":"string"},
                  "count":{"type":"integer"},
                  "big":{"type":"integer"},
                  "score":{"type":"number"},
                  "severity":{"type":"string","enum":["LOW","HIGH"]},
                  "steps":{"type":"array","items":{"type":"object","properties":{
                      "title":{"type":"string"},"done":{"type":"boolean"}},
                      "required":["title","done"],"additionalProperties":false}},
                  "tally":{"type":"object","additionalProperties":{"type":"integer"}},
                  "note":{"anyOf":[{"type":"string"},{"type":"null"}]},
                  "tags":{"type":"array","items":{"type":"string"}},
                  "extra":{}},
                 "required":["plan_name","count","big","score","severity","steps","tally","note","tags","extra"],
                 "additionalProperties":false}
                """);
        assertThat(s).isEqualTo(expected);
    }

    record Node(String name, List<Node> children) {
    }

    record BadKey(Map<Integer, String> byId) {
    }

    record Unsupported(Thread thread) {
    }

    @Test
    void unsupportedShapesFailWithThePathOfTheComponent() {
        assertThatThrownBy(() -> RecordSchemas.schemaOf(Node.class))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("recursive");
        assertThatThrownBy(() -> RecordSchemas.schemaOf(BadKey.class))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(".byId")
                .hasMessageContaining("map keys must be String");
        assertThatThrownBy(() -> RecordSchemas.schemaOf(Unsupported.class))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(".thread")
                .hasMessageContaining("java.lang.Thread");
    }
}

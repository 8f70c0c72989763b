package com.example.codexclient.consumer.drift;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.drift.SchemaDrift;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Iterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DriftGateTest {
    /** Where the artifact ships the schema it compares with (docs/COMPATIBILITY.md). */
    private static final String PINNED = "/META-INF/codex-client/schema/experimental/codex_app_server_protocol.schemas.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void thePinnedSchemaPassesAndOneWithoutTurnSteerFails() throws Exception {
        ObjectNode bundle;
        try (InputStream in = SchemaDrift.class.getResourceAsStream(PINNED)) {
            assertTrue(in != null, "the artifact ships " + PINNED);
            bundle = (ObjectNode) JSON.readTree(in);
        }
        Path same = dir.resolve("same.json");
        JSON.writeValue(same.toFile(), bundle);
        DriftGate.Outcome ok = DriftGate.check(same);
        assertEquals(SchemaDrift.COMPATIBLE, ok.status(), ok.report());

        Iterator<JsonNode> requests = bundle.path("definitions").path("ClientRequest").path("oneOf").elements();
        while (requests.hasNext()) {
            if (requests.next().path("properties").path("method").path("enum").path(0).asText().equals("turn/steer")) {
                requests.remove();
            }
        }
        Path older = dir.resolve("older.json");
        JSON.writeValue(older.toFile(), bundle);
        DriftGate.Outcome missing = DriftGate.check(older);
        assertEquals(SchemaDrift.INCOMPATIBLE, missing.status(), missing.report());
        assertTrue(missing.report().contains("turn/steer"), missing.report());

        boolean named = Boolean.getBoolean("consumer.namedModule");
        assertEquals(named, DriftGate.class.getModule().isNamed(), "the consumer's module");
        assertEquals(named, SchemaDrift.class.getModule().isNamed(), "codex-client-schema-drift's module");
    }
}

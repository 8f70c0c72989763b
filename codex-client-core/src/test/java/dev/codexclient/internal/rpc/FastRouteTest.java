package dev.codexclient.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class FastRouteTest {
    private final JsonFactory factory = new JsonFactory();
    private final ObjectMapper mapper = new ObjectMapper();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Whatever the byte scan accepts, it routes exactly as the full scan does. */
    private void assertSameAsScan(String json) throws IOException {
        byte[] line = utf8(json);
        Envelope fast = FastRoute.notification(line);
        if (fast == null) {
            return;
        }
        Envelope full = Envelope.scan(factory, line);
        assertThat(full).as(json).isNotNull();
        assertThat(fast).as(json).isEqualTo(full);
    }

    @Test
    void routesCommonNotificationsLikeTheFullScan() throws IOException {
        List<String> lines = List.of(
                "{\"method\":\"item/agentMessage/delta\",\"params\":{\"x\":{\"threadId\":\"nested\"},"
                        + "\"threadId\":\"T\",\"turnId\":\"U\",\"delta\":\"d \\\"q\\\" \\\\ }]\"},\"emittedAtMs\":1}",
                "{\"params\":{\"turn\":{\"items\":[{\"id\":\"i\"}],\"id\":\"U\"},"
                        + "\"thread\":{\"id\":\"T\",\"name\":null}},\"method\":\"turn/started\"}",
                "{\"method\":\"m\",\"params\":{\"thread\":{\"id\":\"obj\"},\"threadId\":\"member\",\"turnId\":7}}",
                "{\"method\":\"m\",\"params\":{\"threadId\":\"a\"},\"params\":5}",
                "{\"method\":\"m\",\"params\":{\"threadId\":\"a\"},\"params\":{\"turnId\":\"b\"}}",
                "{\"method\":\"m\",\"params\":{\"threadId\":null,\"thread\":[1],\"turn\":{\"id\":3}}}",
                " { \"method\" : \"m\" , \"id\" : null , \"params\" : { \"threadId\" : \"t\" } } ",
                "{\"method\":\"m\",\"params\":{},\"emittedAtMs\":-1.5e3,\"x\":[true,false,null,{}]}",
                "{\"method\":\"m\"}",
                "{\"method\":\"m\",\"params\":[]}",
                "{\"method\":\"m\",\"params\":{\"threadId\":\"ü\"}}",
                "{\"method\":\"m\",\"params\":{\"thread\\u0049d\":\"t\"}}",
                "{\"method\":\"m\",\"params\":{\"threadId\":\"t\\u0041\"}}");
        for (String l : lines) {
            assertSameAsScan(l);
        }
        assertThat(FastRoute.notification(utf8(lines.get(0)))).isNotNull();
        assertThat(FastRoute.notification(utf8(lines.get(1)))).isNotNull();
        assertThat(FastRoute.notification(utf8(lines.get(3)))).isNotNull();
    }

    @Test
    void leavesEverythingElseToTheFullScan() {
        for (String l : List.of(
                "{\"id\":1,\"method\":\"item/tool/call\",\"params\":{}}",
                "{\"id\":1,\"result\":{}}",
                "{\"method\":5}",
                "{\"method\":\"serverRequest/resolved\",\"params\":{\"requestId\":42}}",
                "{\"method\":\"m\",\"params\":{\"requestId\":42}}",
                "[1,2]",
                "\"text\"",
                "{}",
                "",
                "{\"method\":\"m\"",
                "{\"method\":\"m\",\"params\":{\"a\":}}",
                "{\"method\":\"m\" \"params\":{}}",
                "{\"method\":\"m\\u0041\"}",
                "{\"method\":\"m\",\"params\":{\"threadId\":\"ü\"}}",
                "{\"method\":\"m\",\"params\":{\"thread\\u0049d\":\"t\"}}")) {
            assertThat(FastRoute.notification(utf8(l))).as(l).isNull();
        }
    }

    @Test
    void routesTheRecordedSessionLikeTheFullScan() throws IOException {
        Path file = Path.of("..", "codex-client-protocol", "src", "test", "resources", "real-traffic",
                "codex-0.169.0.jsonl");
        int routed = 0;
        for (String l : Files.readAllLines(file)) {
            if (l.isBlank()) {
                continue;
            }
            JsonNode entry = mapper.readTree(l);
            if (!"received".equals(entry.path("dir").asText())) {
                continue;
            }
            byte[] line = mapper.writeValueAsBytes(entry.get("message"));
            Envelope full = Envelope.scan(factory, line);
            Envelope fast = FastRoute.notification(line);
            if (fast != null) {
                routed++;
                assertThat(fast).as(l).isEqualTo(full);
            } else if (full != null && full.isNotification()) {
                assertThat(full.method()).as(l).isEqualTo("serverRequest/resolved");
            }
        }
        assertThat(routed).isGreaterThan(50);
    }
}

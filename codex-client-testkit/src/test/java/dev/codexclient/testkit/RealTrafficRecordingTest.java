package dev.codexclient.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Guards the committed real-traffic recording: well-formed, complete for its scenario, and free of leaks. */
class RealTrafficRecordingTest {

    private static final Path RECORDING = Path.of("..", "codex-client-protocol", "src", "test", "resources",
            "real-traffic", "codex-" + CodexBinary.PINNED_VERSION + ".jsonl");

    private static List<String> lines;
    private static List<JsonNode> entries;

    @BeforeAll
    static void read() throws Exception {
        lines = Files.readAllLines(RECORDING, StandardCharsets.UTF_8);
        entries = new ArrayList<>();
        for (String line : lines) {
            entries.add(RawAppServer.JSON.readTree(line));
        }
    }

    @Test
    void everyLineIsADirectionAndAMessage() {
        assertThat(entries).isNotEmpty().allSatisfy(entry -> {
            assertThat(entry.size()).isEqualTo(2);
            assertThat(entry.path("dir").asText()).isIn("sent", "received");
            assertThat(entry.path("message").isObject()).isTrue();
            assertThat(entry.path("message").has("jsonrpc")).isFalse();
        });
        assertThat(entries.get(0).path("message").path("method").asText()).isEqualTo("initialize");
    }

    @Test
    void coversTheWholeScenario() {
        Set<String> sent = methods("sent");
        Set<String> received = methods("received");
        assertThat(sent).contains("initialize", "initialized", "thread/start", "turn/start", "turn/interrupt",
                "thread/read", "thread/list");
        assertThat(received).contains("item/agentMessage/delta", "item/commandExecution/requestApproval",
                "item/fileChange/requestApproval", "item/tool/call", "serverRequest/resolved", "turn/completed",
                "thread/tokenUsage/updated");
        assertThat(entries.stream().map(e -> e.path("message"))
                .filter(m -> "turn/completed".equals(m.path("method").asText()))
                .map(m -> m.path("params").path("turn").path("status").asText()))
                .contains("completed", "interrupted", "failed");
        // Each server request is answered by a sent response with the same id.
        List<JsonNode> serverRequests = entries.stream().filter(e -> e.path("dir").asText().equals("received"))
                .map(e -> e.path("message")).filter(m -> m.has("method") && m.has("id")).toList();
        assertThat(serverRequests).hasSize(3);
        for (JsonNode request : serverRequests) {
            assertThat(entries).anySatisfy(e -> {
                assertThat(e.path("dir").asText()).isEqualTo("sent");
                assertThat(e.path("message").has("result")).isTrue();
                assertThat(e.path("message").path("id")).isEqualTo(request.path("id"));
            });
        }
    }

    @Test
    void leaksNoMachinePaths() {
        String all = String.join("\n", lines);
        assertThat(all).doesNotContain(System.getProperty("user.home") + "/")
                .doesNotContainPattern("/tmp/codex-home-[0-9]")
                .doesNotContainPattern("/tmp/codex-workspace-")
                .doesNotContainIgnoringCase("bearer ")
                .contains("/tmp/workspace").contains("/tmp/codex-home");
    }

    private static Set<String> methods(String dir) {
        return entries.stream().filter(e -> e.path("dir").asText().equals(dir))
                .map(e -> e.path("message").path("method").asText()).filter(m -> !m.isEmpty())
                .collect(Collectors.toSet());
    }
}

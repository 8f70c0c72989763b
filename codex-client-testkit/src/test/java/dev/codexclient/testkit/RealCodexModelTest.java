package dev.codexclient.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives the real {@code codex app-server} (pinned version, or {@code -Dcodex.binary}) against the
 * {@link ScriptedModelServer} over raw stdio, proving that every kind of {@link ModelStep} does what it claims.
 */
@Tag("real-codex")
@Timeout(30)
class RealCodexModelTest {

    private static Path codex;

    @TempDir
    Path workspace;

    private ScriptedModelServer model;
    private RawAppServer server;

    @BeforeAll
    static void findCodex() {
        // No codex (npm missing, the install failing) fails the class: a real-codex test that skips itself would
        // hide exactly what it is there to show. Leave these tests out with -DexcludedGroups=real-codex instead.
        String configured = System.getProperty("codex.binary");
        codex = configured != null ? Path.of(configured) : CodexBinary.pinned();
    }

    @BeforeEach
    void start() throws Exception {
        model = ScriptedModelServer.start();
        server = RawAppServer.start(codex, model, workspace);
        server.handshake();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            // Only what belongs to the tree at close time: a login shell's profile may detach its own background
            // jobs (e.g. a version manager's rehash), which are then no longer codex's descendants.
            server.close();
            assertThat(server.killedProcesses()).isNotEmpty();
            assertThat(server.killedProcesses().stream().filter(ProcessHandle::isAlive)
                    .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")))
                    .isEmpty();
        }
        model.close();
    }

    private String startThread(String approvalPolicy, String sandbox, ObjectNode... dynamicTools) throws Exception {
        ObjectNode params = RawAppServer.JSON.createObjectNode()
                .put("cwd", workspace.toString())
                .put("approvalPolicy", approvalPolicy)
                .put("sandbox", sandbox);
        if (dynamicTools.length > 0) {
            params.putArray("dynamicTools").addAll(List.of(dynamicTools));
        }
        return server.call("thread/start", params).path("thread").path("id").asText();
    }

    private String startTurn(String threadId, String text) throws Exception {
        return startTurn(threadId, text, null);
    }

    private String startTurn(String threadId, String text, JsonNode outputSchema) throws Exception {
        ObjectNode params = RawAppServer.JSON.createObjectNode().put("threadId", threadId);
        params.putArray("input").addObject().put("type", "text").put("text", text);
        if (outputSchema != null) {
            params.set("outputSchema", outputSchema);
        }
        return server.call("turn/start", params).path("turn").path("id").asText();
    }

    private static ObjectNode tool(String name) {
        ObjectNode tool = RawAppServer.JSON.createObjectNode().put("name", name)
                .put("description", "Test tool " + name + ".");
        ObjectNode schema = tool.putObject("inputSchema").put("type", "object");
        schema.putObject("properties").putObject("q").put("type", "string");
        return tool;
    }

    private List<JsonNode> completedItems(String type) {
        return server.drain(m -> "item/completed".equals(m.path("method").asText())
                        && type.equals(m.path("params").path("item").path("type").asText()))
                .stream().map(m -> m.path("params").path("item")).toList();
    }

    private static ObjectNode toolResult(String text) {
        ObjectNode result = RawAppServer.JSON.createObjectNode().put("success", true);
        result.putArray("contentItems").addObject().put("type", "inputText").put("text", text);
        return result;
    }

    @Test
    void streamedDeltasConcatenateToTheFinalMessage() throws Exception {
        String text = "Héllo wörld — naïve café 👋🏽🎉 中文字符 end";
        model.enqueue(ModelStep.reply(text).withChunkSize(3).withUsage(321, 12));
        String thread = startThread("never", "read-only");

        String turn = startTurn(thread, "Say hello, s'il vous plaît");
        JsonNode completed = server.awaitTurnCompleted(turn);

        List<JsonNode> deltas = server.drain(m -> "item/agentMessage/delta".equals(m.path("method").asText()));
        assertThat(deltas).hasSizeGreaterThan(5);
        assertThat(deltas.stream().map(d -> d.path("params").path("delta").asText()).collect(Collectors.joining()))
                .isEqualTo(text);
        assertThat(completed.path("status").asText()).isEqualTo("completed");
        assertThat(completedItems("agentMessage")).extracting(i -> i.path("text").asText()).containsExactly(text);
        JsonNode usage = server.awaitMethod("thread/tokenUsage/updated").path("params").path("tokenUsage");
        assertThat(usage.path("last").path("inputTokens").asLong()).isEqualTo(321);
        assertThat(usage.path("last").path("outputTokens").asLong()).isEqualTo(12);
        assertThat(model.takeRequest(Duration.ofSeconds(1)).orElseThrow().lastUserText())
                .isEqualTo("Say hello, s'il vous plaît");
    }

    @Test
    void acceptedCommandRunsAndItsOutputReachesTheModel() throws Exception {
        model.enqueue(ModelStep.callTool("exec_command",
                        Map.of("cmd", "printf 'accepted-output\\n' | tee out.txt", "login", false)),
                ModelStep.reply("done"));
        String thread = startThread("untrusted", "workspace-write");

        String turn = startTurn(thread, "write out.txt");
        JsonNode approval = server.awaitMethod("item/commandExecution/requestApproval");
        assertThat(approval.path("params").path("command").asText()).contains("tee out.txt");
        server.respond(approval.get("id"), Map.of("decision", "accept"));
        JsonNode completed = server.awaitTurnCompleted(turn);

        assertThat(completed.path("status").asText()).isEqualTo("completed");
        JsonNode item = completedItems("commandExecution").get(0);
        assertThat(item.path("status").asText()).isEqualTo("completed");
        assertThat(item.path("aggregatedOutput").asText()).isEqualTo("accepted-output\n");
        assertThat(item.path("exitCode").asInt()).isZero();
        assertThat(workspace.resolve("out.txt")).hasContent("accepted-output");
        List<ModelRequest> requests = model.requests();
        assertThat(requests).hasSize(2);
        assertThat(requests.get(1).functionCallOutputs().get(item.path("id").asText()))
                .contains("accepted-output");
    }

    @Test
    void declinedCommandIsReportedDeclinedAndDoesNotRun() throws Exception {
        model.enqueue(ModelStep.exec("printf 'nope\\n' | tee declined.txt"), ModelStep.reply("ok, not running it"));
        String thread = startThread("untrusted", "workspace-write");

        String turn = startTurn(thread, "write declined.txt");
        JsonNode approval = server.awaitMethod("item/commandExecution/requestApproval");
        server.respond(approval.get("id"), Map.of("decision", "decline"));
        JsonNode completed = server.awaitTurnCompleted(turn);

        assertThat(completed.path("status").asText()).isEqualTo("completed");
        assertThat(completedItems("commandExecution")).extracting(i -> i.path("status").asText())
                .containsExactly("declined");
        assertThat(workspace.resolve("declined.txt")).doesNotExist();
        assertThat(model.requestCount()).isEqualTo(2);
    }

    @Test
    void applyPatchBecomesAnApprovedFileChange() throws Exception {
        model.enqueue(ModelStep.applyPatch(ModelStep.addFilePatch("docs/readme.txt", "Grüße ✓\nsecond line")),
                ModelStep.reply("patched"));
        String thread = startThread("untrusted", "workspace-write");

        String turn = startTurn(thread, "create docs/readme.txt");
        JsonNode approval = server.awaitMethod("item/fileChange/requestApproval");
        server.respond(approval.get("id"), Map.of("decision", "accept"));
        JsonNode completed = server.awaitTurnCompleted(turn);

        assertThat(completed.path("status").asText()).isEqualTo("completed");
        JsonNode change = completedItems("fileChange").get(0);
        assertThat(change.path("status").asText()).isEqualTo("completed");
        assertThat(change.path("changes").get(0).path("path").asText()).endsWith("docs/readme.txt");
        assertThat(Files.readString(workspace.resolve("docs/readme.txt"))).isEqualTo("Grüße ✓\nsecond line\n");
    }

    @Test
    void dynamicToolCallGoesToTheClientAndItsResultToTheModel() throws Exception {
        model.enqueue(ModelStep.callTool("lookup_city", Map.of("q", "Zürich")), ModelStep.reply("sunny"));
        String thread = startThread("never", "read-only", tool("lookup_city"));

        String turn = startTurn(thread, "weather?");
        JsonNode call = server.awaitMethod("item/tool/call");
        assertThat(call.path("params").path("tool").asText()).isEqualTo("lookup_city");
        assertThat(call.path("params").path("arguments").path("q").asText()).isEqualTo("Zürich");
        server.respond(call.get("id"), toolResult("21 °C and sunny"));
        assertThat(server.awaitTurnCompleted(turn).path("status").asText()).isEqualTo("completed");

        List<ModelRequest> requests = model.requests();
        assertThat(requests.get(0).tools()).contains("lookup_city", "exec_command");
        assertThat(requests.get(1).functionCallOutputs())
                .containsEntry(call.path("params").path("callId").asText(), "21 °C and sunny");
    }

    @Test
    void twoToolCallsInOneResponseAreBothExecuted() throws Exception {
        model.enqueue(ModelStep.of(ModelStep.callTool("tool_a", Map.of("q", "1")),
                ModelStep.callTool("tool_b", Map.of("q", "2"))), ModelStep.reply("both done"));
        String thread = startThread("never", "read-only", tool("tool_a"), tool("tool_b"));

        String turn = startTurn(thread, "use both tools");
        for (int i = 0; i < 2; i++) {
            JsonNode call = server.awaitMethod("item/tool/call");
            server.respond(call.get("id"), toolResult("result of " + call.path("params").path("tool").asText()));
        }
        assertThat(server.awaitTurnCompleted(turn).path("status").asText()).isEqualTo("completed");

        assertThat(model.requests()).hasSize(2);
        assertThat(model.requests().get(1).functionCallOutputs().values())
                .containsExactlyInAnyOrder("result of tool_a", "result of tool_b");
    }

    @Test
    void outputSchemaReachesTheTextFormat() throws Exception {
        model.enqueue(ModelStep.json(Map.of("answer", "42")));
        String thread = startThread("never", "read-only");
        ObjectNode schema = RawAppServer.JSON.createObjectNode().put("type", "object")
                .put("additionalProperties", false);
        schema.putObject("properties").putObject("answer").put("type", "string");
        schema.putArray("required").add("answer");

        String turn = startTurn(thread, "answer in JSON", schema);
        assertThat(server.awaitTurnCompleted(turn).path("status").asText()).isEqualTo("completed");

        JsonNode format = model.requests().get(0).textFormat().orElseThrow();
        assertThat(format.path("type").asText()).isEqualTo("json_schema");
        assertThat(format.path("schema").path("properties").path("answer").path("type").asText())
                .isEqualTo("string");
        assertThat(completedItems("agentMessage")).extracting(i -> i.path("text").asText())
                .containsExactly("{\"answer\":\"42\"}");
    }

    @Test
    void http500FailsTheTurnWithAnError() throws Exception {
        model.enqueue(ModelStep.fail(500, "{\"error\":{\"message\":\"scripted failure\"}}"));
        String thread = startThread("never", "read-only");

        JsonNode completed = server.awaitTurnCompleted(startTurn(thread, "fail please"));

        assertThat(completed.path("status").asText()).isEqualTo("failed");
        assertThat(completed.path("error").path("message").asText()).isNotEmpty();
        assertThat(model.requestCount()).isEqualTo(1);
    }

    @Test
    void anEmptyScriptFailsTheTurnInsteadOfHanging() throws Exception {
        String thread = startThread("never", "read-only");

        JsonNode completed = server.awaitTurnCompleted(startTurn(thread, "nothing scripted"));

        assertThat(completed.path("status").asText()).isEqualTo("failed");
        assertThat(model.unmatchedRequests()).hasSize(1);
    }

    @Test
    void stalledTurnIsInterrupted() throws Exception {
        model.enqueue(ModelStep.stall(Duration.ofMinutes(2)));
        String thread = startThread("never", "read-only");

        String turn = startTurn(thread, "take your time");
        assertThat(model.takeRequest(Duration.ofSeconds(10))).isPresent();
        server.call("turn/interrupt", Map.of("threadId", thread, "turnId", turn));

        assertThat(server.awaitTurnCompleted(turn).path("status").asText()).isEqualTo("interrupted");
    }

    @Test
    void parallelThreadsAreRoutedByRules() throws Exception {
        model.when(r -> r.lastUserText().contains("alpha"), ModelStep.reply("answer for alpha"));
        model.when(r -> r.lastUserText().contains("beta"), ModelStep.reply("answer for beta"));
        String threadA = startThread("never", "read-only");
        String threadB = startThread("never", "read-only");

        String turnB = startTurn(threadB, "beta question");
        String turnA = startTurn(threadA, "alpha question");
        server.awaitTurnCompleted(turnA);
        server.awaitTurnCompleted(turnB);

        Map<String, String> textByThread = server.drain(m -> "item/completed".equals(m.path("method").asText())
                        && "agentMessage".equals(m.path("params").path("item").path("type").asText()))
                .stream().collect(Collectors.toMap(m -> m.path("params").path("threadId").asText(),
                        m -> m.path("params").path("item").path("text").asText()));
        assertThat(textByThread).containsEntry(threadA, "answer for alpha").containsEntry(threadB, "answer for beta");
    }
}

package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Records one real codex app-server session, driven over raw stdio against a {@link ScriptedModelServer}, as test
 * data for the protocol module: every message in both directions, in wire order, one JSON line each
 * ({@code {"dir":"sent"|"received","message":{...}}}).
 *
 * <p>The session covers the handshake, {@code thread/start} with a dynamic tool, a turn with streamed non-ASCII
 * text, an accepted command approval, an accepted file change, a dynamic tool call, an interrupted turn, a failed
 * turn (HTTP 500), {@code thread/read} with turns and {@code thread/list}. Temporary paths are replaced by the
 * stable placeholders {@code /tmp/codex-home} and {@code /tmp/workspace}.
 *
 * <p>Run from the repository root (uses the pinned codex from the cache, or {@code -Dcodex.binary=...}):
 *
 * <pre>
 * mvn -B -o -q install -pl codex-client-testkit -am -DskipTests \
 *   &amp;&amp; mvn -B -o -q -pl codex-client-testkit dependency:build-classpath -Dmdep.includeScope=test \
 *        -Dmdep.outputFile=target/test-classpath.txt \
 *   &amp;&amp; java -cp "codex-client-testkit/target/test-classes:codex-client-testkit/target/classes:$(cat \
 *        codex-client-testkit/target/test-classpath.txt)" dev.codexclient.testkit.RecordRealTraffic
 * </pre>
 *
 * An optional argument names the output file; the default is
 * {@code codex-client-protocol/src/test/resources/real-traffic/codex-VERSION.jsonl} under the repository root.
 */
public final class RecordRealTraffic {

    static final String HOME_PLACEHOLDER = "/tmp/codex-home";
    static final String WORKSPACE_PLACEHOLDER = "/tmp/workspace";

    private RecordRealTraffic() {
    }

    public static void main(String[] args) throws Exception {
        String configured = System.getProperty("codex.binary");
        Path codex = configured != null ? Path.of(configured) : CodexBinary.pinned();
        String version = CodexBinary.versionOf(codex);
        Path out = args.length > 0 ? Path.of(args[0])
                : repositoryRoot().resolve("codex-client-protocol/src/test/resources/real-traffic/codex-" + version
                        + ".jsonl");
        List<String> lines = record(codex);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.write(out, lines, StandardCharsets.UTF_8);
        System.out.println("wrote " + lines.size() + " messages to " + out);
    }

    static List<String> record(Path codex) throws Exception {
        Path workspace = Files.createTempDirectory("codex-workspace-");
        try (ScriptedModelServer model = ScriptedModelServer.start()) {
            Path home = model.codexHome();
            script(model);
            List<RawAppServer.Traffic> traffic;
            try (RawAppServer server = RawAppServer.start(codex, model, workspace)) {
                drive(server, workspace);
                // Lets trailing notifications (e.g. thread status changes) arrive before the transcript is taken.
                Thread.sleep(300);
                traffic = server.transcript();
            }
            Map<String, String> replacements = new LinkedHashMap<>();
            replacements.put(home.toRealPath().toString(), HOME_PLACEHOLDER);
            replacements.put(home.toString(), HOME_PLACEHOLDER);
            replacements.put(workspace.toRealPath().toString(), WORKSPACE_PLACEHOLDER);
            replacements.put(workspace.toString(), WORKSPACE_PLACEHOLDER);
            String host = hostName();
            List<String> lines = new ArrayList<>();
            for (RawAppServer.Traffic t : traffic) {
                ObjectNode line = RawAppServer.JSON.createObjectNode().put("dir", t.sent() ? "sent" : "received");
                line.set("message", sanitize(t.message(), replacements, host));
                lines.add(RawAppServer.JSON.writeValueAsString(line));
            }
            String userHome = System.getProperty("user.home");
            for (String line : lines) {
                if (userHome != null && userHome.length() > 1 && line.contains(userHome + "/")) {
                    throw new IllegalStateException("the recording would leak the home directory: " + line);
                }
            }
            return lines;
        } finally {
            deleteTree(workspace);
        }
    }

    private static void script(ScriptedModelServer model) {
        model.enqueue(
                // Turn 1: streamed text.
                ModelStep.reply("Grüße! Café ☕, naïve façade, emoji 👋🏽🎉, 中文字符 and done.").withChunkSize(5)
                        .withUsage(1200, 40),
                // Turn 2: a command that writes, so it needs approval; then a final answer.
                // Not a login shell, so the machine's shell profile cannot add output to the recording.
                ModelStep.callTool("exec_command", Map.of("cmd", "printf 'recorded\\n' | tee recorded.txt",
                        "login", false)),
                ModelStep.reply("The command wrote recorded.txt."),
                // Turn 3: a file change through apply_patch.
                ModelStep.applyPatch(ModelStep.addFilePatch("notes/hello.txt", "Hello from a patch ✓\nline two")),
                ModelStep.reply("Created notes/hello.txt."),
                // Turn 4: a dynamic tool call.
                ModelStep.callTool("lookup_weather", Map.of("city", "Zürich")),
                ModelStep.reply("It is sunny in Zürich."),
                // Turn 5: the model stalls until the turn is interrupted.
                ModelStep.stall(Duration.ofSeconds(60)),
                // Turn 6: the model endpoint fails.
                ModelStep.fail(500, "{\"error\":{\"message\":\"scripted internal error\",\"type\":\"server_error\"}}"));
    }

    private static void drive(RawAppServer server, Path workspace) throws Exception {
        server.handshake();

        ObjectNode start = RawAppServer.JSON.createObjectNode()
                .put("cwd", workspace.toString())
                .put("approvalPolicy", "untrusted")
                .put("sandbox", "workspace-write");
        ObjectNode tool = start.putArray("dynamicTools").addObject()
                .put("type", "function")
                .put("name", "lookup_weather")
                .put("description", "Looks up the current weather for a city.");
        ObjectNode schema = tool.putObject("inputSchema").put("type", "object");
        schema.putObject("properties").putObject("city").put("type", "string");
        schema.putArray("required").add("city");
        schema.put("additionalProperties", false);
        JsonNode thread = server.call("thread/start", start).path("thread");
        String threadId = thread.path("id").asText();

        // Turn 1: streamed text.
        String turn1 = startTurn(server, threadId, "Say hello in several scripts, bitte.");
        server.awaitTurnCompleted(turn1);

        // Turn 2: command approval, accepted.
        String turn2 = startTurn(server, threadId, "Write recorded.txt with a shell command.");
        JsonNode approval = server.awaitMethod("item/commandExecution/requestApproval");
        server.respond(approval.get("id"), Map.of("decision", "accept"));
        server.awaitTurnCompleted(turn2);

        // Turn 3: file change approval, accepted.
        String turn3 = startTurn(server, threadId, "Create notes/hello.txt with a patch.");
        JsonNode fileApproval = server.awaitMethod("item/fileChange/requestApproval");
        server.respond(fileApproval.get("id"), Map.of("decision", "accept"));
        server.awaitTurnCompleted(turn3);

        // Turn 4: dynamic tool call.
        String turn4 = startTurn(server, threadId, "What is the weather in Zürich?");
        JsonNode toolCall = server.awaitMethod("item/tool/call");
        ObjectNode toolResult = RawAppServer.JSON.createObjectNode().put("success", true);
        toolResult.putArray("contentItems").addObject().put("type", "inputText").put("text", "sunny, 21 °C");
        server.respond(toolCall.get("id"), toolResult);
        server.awaitTurnCompleted(turn4);

        // Turn 5: interrupted while the model stalls.
        String turn5 = startTurn(server, threadId, "Think for a long time.");
        server.awaitMethod("turn/started");
        Thread.sleep(500);
        server.call("turn/interrupt", Map.of("threadId", threadId, "turnId", turn5));
        server.awaitTurnCompleted(turn5);

        // Turn 6: the model endpoint fails.
        String turn6 = startTurn(server, threadId, "This one fails.");
        server.awaitTurnCompleted(turn6);

        server.call("thread/read", Map.of("threadId", threadId, "includeTurns", true));
        server.call("thread/list", Map.of("limit", 10));
    }

    private static String startTurn(RawAppServer server, String threadId, String text) throws Exception {
        ObjectNode params = RawAppServer.JSON.createObjectNode().put("threadId", threadId);
        ArrayNode input = params.putArray("input");
        input.addObject().put("type", "text").put("text", text);
        return server.call("turn/start", params).path("turn").path("id").asText();
    }

    /**
     * A copy of {@code node} with the temporary paths in every string replaced by their placeholders, and a string
     * that is exactly the machine's host name (e.g. {@code serverName}) replaced by {@code codex-host}.
     */
    static JsonNode sanitize(JsonNode node, Map<String, String> replacements, String host) {
        if (node.isTextual()) {
            String text = node.asText();
            if (!host.isEmpty() && text.equals(host)) {
                return RawAppServer.JSON.getNodeFactory().textNode("codex-host");
            }
            for (Map.Entry<String, String> r : replacements.entrySet()) {
                text = text.replace(r.getKey(), r.getValue());
            }
            return RawAppServer.JSON.getNodeFactory().textNode(text);
        }
        if (node.isObject()) {
            ObjectNode copy = RawAppServer.JSON.createObjectNode();
            node.fields().forEachRemaining(e -> copy.set(e.getKey(), sanitize(e.getValue(), replacements, host)));
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = RawAppServer.JSON.createArrayNode();
            node.forEach(child -> copy.add(sanitize(child, replacements, host)));
            return copy;
        }
        return node;
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "";
        }
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            if (Files.isDirectory(dir.resolve("codex-client-protocol")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException("run from inside the codex-client repository, or pass the output file");
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}

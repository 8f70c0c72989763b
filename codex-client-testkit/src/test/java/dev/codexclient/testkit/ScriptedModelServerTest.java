package dev.codexclient.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScriptedModelServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private ScriptedModelServer model;

    /** One parsed server-sent event. */
    record Event(String name, JsonNode data) {
    }

    @BeforeEach
    void start() {
        model = ScriptedModelServer.start();
    }

    @AfterEach
    void stop() {
        model.close();
    }

    private HttpResponse<String> post(String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(model.baseUrl() + "/responses"))
                .timeout(Duration.ofSeconds(10))
                .header("content-type", "application/json")
                .header("authorization", "Bearer secret-token")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private static String userBody(String text) {
        return JSON.createObjectNode().put("model", "mock-model").set("input", JSON.createArrayNode()
                .add(JSON.createObjectNode().put("type", "message").put("role", "user")
                        .set("content", JSON.createArrayNode().add(JSON.createObjectNode()
                                .put("type", "input_text").put("text", text))))).toString();
    }

    /** Parses an SSE body strictly: every frame must be exactly {@code event: X\ndata: JSON\n\n}. */
    private static List<Event> events(String body) throws Exception {
        assertThat(body).endsWith("\n\n");
        List<Event> events = new ArrayList<>();
        for (String frame : body.substring(0, body.length() - 2).split("\n\n", -1)) {
            String[] lines = frame.split("\n", -1);
            assertThat(lines).hasSize(2);
            assertThat(lines[0]).startsWith("event: ");
            assertThat(lines[1]).startsWith("data: ");
            String name = lines[0].substring("event: ".length());
            JsonNode data = JSON.readTree(lines[1].substring("data: ".length()));
            assertThat(data.path("type").asText()).isEqualTo(name);
            events.add(new Event(name, data));
        }
        return events;
    }

    @Test
    void replyStreamsTextInCodePointChunksBetweenCreatedAndCompleted() throws Exception {
        String text = "Grüße 👋🏽 中文字符 ok";
        model.enqueue(ModelStep.reply(text).withChunkSize(3).withUsage(100, 25));

        HttpResponse<String> response = post(userBody("hi"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
        List<Event> events = events(response.body());
        assertThat(events.get(0).name()).isEqualTo("response.created");
        assertThat(events.get(1).name()).isEqualTo("response.output_item.added");
        assertThat(events.get(events.size() - 2).name()).isEqualTo("response.output_item.done");
        assertThat(events.get(events.size() - 1).name()).isEqualTo("response.completed");
        String responseId = events.get(0).data().path("response").path("id").asText();
        assertThat(events.get(events.size() - 1).data().path("response").path("id").asText()).isEqualTo(responseId);

        List<String> deltas = events.stream().filter(e -> e.name().equals("response.output_text.delta"))
                .map(e -> e.data().path("delta").asText()).toList();
        assertThat(String.join("", deltas)).isEqualTo(text);
        assertThat(deltas).hasSize((int) Math.ceil(text.codePointCount(0, text.length()) / 3.0));
        for (String delta : deltas) {
            assertThat(delta.codePointCount(0, delta.length())).isBetween(1, 3);
            assertThat(Character.isLowSurrogate(delta.charAt(0))).isFalse();
            assertThat(Character.isHighSurrogate(delta.charAt(delta.length() - 1))).isFalse();
        }
        String itemId = events.get(1).data().path("item").path("id").asText();
        assertThat(events.stream().filter(e -> e.name().equals("response.output_text.delta"))
                .map(e -> e.data().path("item_id").asText())).containsOnly(itemId);
        JsonNode done = events.get(events.size() - 2).data().path("item");
        assertThat(done.path("type").asText()).isEqualTo("message");
        assertThat(done.path("role").asText()).isEqualTo("assistant");
        assertThat(done.path("content").get(0).path("type").asText()).isEqualTo("output_text");
        assertThat(done.path("content").get(0).path("text").asText()).isEqualTo(text);
        JsonNode usage = events.get(events.size() - 1).data().path("response").path("usage");
        assertThat(usage.path("input_tokens").asLong()).isEqualTo(100);
        assertThat(usage.path("output_tokens").asLong()).isEqualTo(25);
        assertThat(usage.path("total_tokens").asLong()).isEqualTo(125);
    }

    @Test
    void chunksNeverSplitASurrogatePair() {
        String text = "a😀b🎉c";
        assertThat(ModelStep.chunks(text, 1)).containsExactly("a", "😀", "b", "🎉", "c");
        assertThat(ModelStep.chunks(text, 2)).containsExactly("a😀", "b🎉", "c");
        assertThat(ModelStep.chunks("", 4)).isEmpty();
        assertThat(String.join("", ModelStep.chunks("中文字符とカタカナ", 4))).isEqualTo("中文字符とカタカナ");
        assertThatThrownBy(() -> ModelStep.reply("x").withChunkSize(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void toolStepsBecomeFunctionCallItemsWithJsonArguments() throws Exception {
        model.enqueue(ModelStep.of(
                ModelStep.exec("ls -la", "/tmp/w"),
                ModelStep.callTool("lookup", Map.of("city", "Zürich")),
                ModelStep.applyPatch(ModelStep.addFilePatch("a.txt", "one\ntwo"))));

        List<Event> events = events(post(userBody("go")).body());

        List<JsonNode> calls = events.stream().filter(e -> e.name().equals("response.output_item.done"))
                .map(e -> e.data().path("item")).toList();
        assertThat(calls).hasSize(3);
        assertThat(calls).allSatisfy(c -> assertThat(c.path("type").asText()).isEqualTo("function_call"));
        assertThat(calls.stream().map(c -> c.path("call_id").asText()).distinct()).hasSize(3);
        assertThat(calls.get(0).path("name").asText()).isEqualTo("exec_command");
        JsonNode execArgs = JSON.readTree(calls.get(0).path("arguments").asText());
        assertThat(execArgs.path("cmd").asText()).isEqualTo("ls -la");
        assertThat(execArgs.path("workdir").asText()).isEqualTo("/tmp/w");
        assertThat(calls.get(1).path("name").asText()).isEqualTo("lookup");
        assertThat(JSON.readTree(calls.get(1).path("arguments").asText()).path("city").asText()).isEqualTo("Zürich");
        assertThat(JSON.readTree(calls.get(2).path("arguments").asText()).path("cmd").asText()).isEqualTo(
                "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** End Patch\nEOF\n");
    }

    @Test
    void jsonReplySerializesValues() throws Exception {
        model.enqueue(ModelStep.json(Map.of("answer", 42)));
        List<Event> events = events(post(userBody("q")).body());
        JsonNode item = events.get(events.size() - 2).data().path("item");
        assertThat(JSON.readTree(item.path("content").get(0).path("text").asText()).path("answer").asInt())
                .isEqualTo(42);
    }

    @Test
    void failAnswersWithTheScriptedStatusAndBody() throws Exception {
        model.enqueue(ModelStep.fail(503, "{\"error\":{\"message\":\"busy\"}}"));
        HttpResponse<String> response = post(userBody("q"));
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).isEqualTo("{\"error\":{\"message\":\"busy\"}}");
        assertThatThrownBy(() -> ModelStep.fail(200, "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ModelStep.of(ModelStep.fail(500, ""))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rulesTakePrecedenceOverTheQueueAndUnmatchedRequestsGet500() throws Exception {
        model.enqueue(ModelStep.reply("from queue"));
        model.when(r -> r.lastUserText().contains("alpha"), ModelStep.reply("alpha 1"), ModelStep.reply("alpha 2"));
        model.whenAlways(r -> r.lastUserText().contains("beta"), ModelStep.reply("beta"));
        assertThat(model.pendingSteps()).isEqualTo(3);

        assertThat(finalText(post(userBody("beta")))).isEqualTo("beta");
        assertThat(finalText(post(userBody("alpha")))).isEqualTo("alpha 1");
        assertThat(finalText(post(userBody("gamma")))).isEqualTo("from queue");
        assertThat(finalText(post(userBody("alpha")))).isEqualTo("alpha 2");
        assertThat(finalText(post(userBody("beta")))).isEqualTo("beta");

        HttpResponse<String> unmatched = post(userBody("alpha"));
        assertThat(unmatched.statusCode()).isEqualTo(500);
        assertThat(unmatched.body()).contains("no rule matches request #5");
        assertThat(model.unmatchedRequests()).extracting(ModelRequest::sequence).containsExactly(5);
        assertThat(model.requestCount()).isEqualTo(6);
        assertThat(model.pendingSteps()).isZero();
    }

    @Test
    void aThrowingPredicateDoesNotMatch() throws Exception {
        model.when(r -> {
            throw new IllegalStateException("boom");
        }, ModelStep.reply("never"));
        model.enqueue(ModelStep.reply("queued"));
        assertThat(finalText(post(userBody("x")))).isEqualTo("queued");
    }

    @Test
    void otherPathsGet404AndAreRecorded() throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(model.baseUrl() + "/models"))
                .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(model.requests()).extracting(ModelRequest::path).containsExactly("/v1/models");
        assertThat(model.unmatchedRequests()).isEmpty();
    }

    @Test
    void stallHoldsTheResponseUntilTheServerCloses() throws Exception {
        model.enqueue(ModelStep.stall(Duration.ofMinutes(5)));
        CompletableFuture<HttpResponse<String>> pending = http.sendAsync(
                HttpRequest.newBuilder(URI.create(model.baseUrl() + "/responses"))
                        .POST(HttpRequest.BodyPublishers.ofString(userBody("wait"))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(model.takeRequest(Duration.ofSeconds(5))).isPresent();

        model.close();

        // Released by the close (the stall itself lasts 5 minutes): an empty stream or a closed connection,
        // never a completed response and never a hang.
        try {
            HttpResponse<String> response = pending.get(5, TimeUnit.SECONDS);
            assertThat(response.body()).doesNotContain("response.completed");
        } catch (java.util.concurrent.ExecutionException expected) {
            assertThat(expected.getCause()).isInstanceOf(java.io.IOException.class);
        }
    }

    @Test
    void aShortStallEndsTheStreamWithoutCompletion() throws Exception {
        model.enqueue(ModelStep.stall(Duration.ofMillis(100)));
        HttpResponse<String> response = post(userBody("x"));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEmpty();
    }

    @Test
    void recordsTypedViewsOfEveryRequest() throws Exception {
        String body = """
                {"model":"mock-model","instructions":"be brief",
                 "input":[
                   {"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context/>"}]},
                   {"type":"message","role":"user","content":[{"type":"input_text","text":"first "},
                                                             {"type":"input_text","text":"question"}]},
                   {"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{}"},
                   {"type":"function_call_output","call_id":"c1","output":"plain output"},
                   {"type":"function_call_output","call_id":"c2","output":[{"type":"input_text","text":"part "},
                                                                        {"type":"input_text","text":"two"}]}
                 ],
                 "tools":[{"type":"function","name":"exec_command"},{"type":"web_search"}],
                 "text":{"format":{"type":"json_schema","name":"answer","schema":{"type":"object"}}}}
                """;
        model.enqueue(ModelStep.reply("ok"));
        post(body);

        ModelRequest request = model.takeRequest(Duration.ofSeconds(5)).orElseThrow();
        assertThat(request.sequence()).isZero();
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo("/v1/responses");
        assertThat(request.body()).isEqualTo(body);
        assertThat(request.model()).hasValue("mock-model");
        assertThat(request.instructions()).hasValue("be brief");
        assertThat(request.input()).hasSize(5);
        assertThat(request.lastUserText()).isEqualTo("first question");
        assertThat(request.functionCallOutputs()).containsExactly(Map.entry("c1", "plain output"),
                Map.entry("c2", "part two"));
        assertThat(request.functionCalls()).containsOnlyKeys("c1");
        assertThat(request.tools()).containsExactly("exec_command", "web_search");
        assertThat(request.textFormat()).map(f -> f.path("schema").path("type").asText()).hasValue("object");
        assertThat(request.inputContains("environment_context")).isTrue();
        assertThat(request.headers()).containsKey("content-type").doesNotContainKey("authorization");
        assertThat(model.takeRequest(Duration.ofMillis(50))).isEmpty();
        assertThat(model.requests()).containsExactly(request);
    }

    @Test
    void aRequestWithoutJsonStillGetsRecorded() throws Exception {
        ModelRequest request = ModelRequest.of("/v1/responses", "not json");
        assertThat(request.json().isMissingNode()).isTrue();
        assertThat(request.input()).isEmpty();
        assertThat(request.lastUserText()).isEmpty();
        assertThat(request.textFormat()).isEmpty();
        assertThat(request.tools()).isEmpty();
    }

    @Test
    void codexHomeHoldsAConfigPointingAtTheServerAndIsDeletedOnClose(@TempDir Path dir) throws Exception {
        Path home = model.codexHome();
        String config = Files.readString(home.resolve("config.toml"));
        assertThat(config).contains("base_url = \"http://127.0.0.1:" + model.port() + "/v1\"")
                .contains("wire_api = \"responses\"").contains("request_max_retries = 0")
                .contains("supports_websockets = false").contains("model_provider = \"mock\"");
        assertThat(model.codexHome()).isEqualTo(home);
        assertThat(model.home()).isEqualTo(home.getParent()).isNotEqualTo(Path.of(System.getProperty("user.home")));
        assertThat(model.environment()).containsOnly(Map.entry("CODEX_HOME", home.toString()),
                Map.entry("HOME", model.home().toString()),
                Map.entry("TMPDIR", model.home().resolve("tmp").toString()));
        Map<String, String> child = new java.util.HashMap<>(Map.of("OPENAI_API_KEY", "sk-user", "PATH", "/bin",
                "HOME", "/root", "XDG_CONFIG_HOME", "/root/.config"));
        model.applyEnvironment(child);
        assertThat(child).containsOnly(Map.entry("PATH", "/bin"), Map.entry("CODEX_HOME", home.toString()),
                Map.entry("HOME", model.home().toString()), Map.entry("TMPDIR", model.home().resolve("tmp").toString()));
        assertThat(model.writeCodexHome(dir.resolve("h")).resolve("config.toml")).hasContent(config.strip());

        Path privateHome = model.home();
        model.close();
        assertThat(home).doesNotExist();
        assertThat(privateHome).doesNotExist();
    }

    private static String finalText(HttpResponse<String> response) throws Exception {
        assertThat(response.statusCode()).isEqualTo(200);
        List<Event> events = events(response.body());
        return events.get(events.size() - 2).data().path("item").path("content").get(0).path("text").asText();
    }
}

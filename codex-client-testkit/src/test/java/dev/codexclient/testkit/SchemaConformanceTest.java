package dev.codexclient.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.testkit.internal.fake.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks every message the fake writes against the vendored codex 0.169.0 JSON schema, with a small validator
 * (type, enum, required, properties, items, $ref, oneOf/anyOf/allOf) that is enough for these shapes.
 */
class SchemaConformanceTest {
    private static JsonNode root;
    private static final Map<String, String> RESPONSES = Map.ofEntries(
            Map.entry("initialize", "InitializeResponse"),
            Map.entry("thread/start", "v2/ThreadStartResponse"),
            Map.entry("thread/resume", "v2/ThreadResumeResponse"),
            Map.entry("thread/fork", "v2/ThreadForkResponse"),
            Map.entry("thread/list", "v2/ThreadListResponse"),
            Map.entry("thread/read", "v2/ThreadReadResponse"),
            Map.entry("thread/name/set", "v2/ThreadSetNameResponse"),
            Map.entry("thread/archive", "v2/ThreadArchiveResponse"),
            Map.entry("thread/unarchive", "v2/ThreadUnarchiveResponse"),
            Map.entry("thread/compact/start", "v2/ThreadCompactStartResponse"),
            Map.entry("thread/unsubscribe", "v2/ThreadUnsubscribeResponse"),
            Map.entry("turn/start", "v2/TurnStartResponse"),
            Map.entry("turn/steer", "v2/TurnSteerResponse"),
            Map.entry("turn/interrupt", "v2/TurnInterruptResponse"));

    @BeforeAll
    static void loadSchema() throws IOException {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("schema/experimental"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("repository root with schema/").isNotNull();
        root = Json.MAPPER.readTree(dir.resolve("schema/experimental/codex_app_server_protocol.schemas.json")
                .toFile());
    }

    @Test
    void everythingTheFakeSendsMatchesTheSchema() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer(); RawClient c = RawClient.inMemory(fake)) {
            fake.enqueueTurn(turn -> turn.reasoning("think").agentMessage("Hello there")
                    .commandExecution("ls", "a\n", 0).fileChange("a.txt", "+a")
                    .planUpdate("p", TurnScript.PlanStep.inProgress("x")).diffUpdate("diff")
                    .tokenUsage(10, 2, 3, 1)
                    .commandApproval("rm -rf /", r -> { })
                    .fileChangeApproval("b.txt", "+b", r -> { })
                    .toolCall("lookup", Map.of("id", 1), r -> { })
                    .userInput("q", "Which?", r -> { })
                    .failed("boom", Map.of("httpConnectionFailed", Map.of("httpStatusCode", 502))));
            fake.enqueueTurn(turn -> turn.pause(java.time.Duration.ofSeconds(10)));
            c.initialize();
            String threadId = c.startThread();
            c.result("thread/resume", Map.of("threadId", threadId));
            c.result("thread/fork", Map.of("threadId", threadId));
            c.result("thread/list", Map.of());
            c.result("thread/name/set", Map.of("threadId", threadId, "name", "named"));
            c.result("thread/read", Map.of("threadId", threadId, "includeTurns", true));
            c.result("thread/archive", Map.of("threadId", threadId));
            c.result("thread/list", Map.of("archived", true));
            c.result("thread/unarchive", Map.of("threadId", threadId));
            c.result("thread/compact/start", Map.of("threadId", threadId));
            c.result("turn/start", Map.of("threadId", threadId, "input", List.of(
                    Map.of("type", "text", "text", "hi", "text_elements", List.of()))));
            for (String method : List.of("item/commandExecution/requestApproval", "item/fileChange/requestApproval",
                    "item/tool/call", "item/tool/requestUserInput")) {
                JsonNode request = c.serverRequest(method);
                String result = method.equals("item/tool/call")
                        ? "{\"success\":true,\"contentItems\":[]}"
                        : method.equals("item/tool/requestUserInput") ? "{\"answers\":{}}"
                        : "{\"decision\":\"accept\"}";
                c.send(Json.parseUnchecked("{\"id\":" + request.path("id") + ",\"result\":" + result + "}"));
            }
            c.notification("turn/completed");
            String turnId = c.result("turn/start", Map.of("threadId", threadId, "input", List.of()))
                    .path("turn").path("id").asText();
            c.result("turn/steer", Map.of("threadId", threadId, "expectedTurnId", turnId, "input", List.of()));
            c.result("turn/interrupt", Map.of("threadId", threadId, "turnId", turnId));
            c.notification("turn/completed");
            fake.requestElicitation(threadId, "srv", "Name?", Map.of("type", "object",
                    "properties", Map.of("name", Map.of("type", "string"))));
            fake.requestChatgptTokenRefresh();
            fake.requestCommandApproval(threadId, turnId, "make install");
            fake.apply(Fault.slowFragments(50, java.time.Duration.ZERO));
            c.serverRequest("item/commandExecution/requestApproval");
            c.result("thread/unsubscribe", Map.of("threadId", threadId));

            Map<String, String> requestMethods = new HashMap<>();
            fake.requests().forEach(r -> requestMethods.put(r.id().toString(), r.method()));
            List<String> errors = new ArrayList<>();
            int checked = 0;
            for (JsonNode msg : fake.sentMessages()) {
                String method = msg.path("method").asText(null);
                if (method != null && msg.has("id")) {
                    checked += validateVariant("ServerRequest", method, msg.path("params"), errors);
                } else if (method != null) {
                    if (!msg.path("emittedAtMs").isIntegralNumber()) {
                        errors.add(method + ": no emittedAtMs");
                    }
                    checked += validateVariant("ServerNotification", method, msg.path("params"), errors);
                } else if (msg.has("result")) {
                    String requestMethod = requestMethods.get(msg.path("id").toString());
                    String def = RESPONSES.get(requestMethod);
                    assertThat(def).as("response schema for %s", requestMethod).isNotNull();
                    validate(msg.get("result"), definition(def), "result of " + requestMethod, errors);
                    checked++;
                }
            }
            assertThat(errors).isEmpty();
            assertThat(checked).isGreaterThan(40);
        }
    }

    @Test
    void theValidatorCatchesWrongShapes() {
        List<String> errors = new ArrayList<>();
        validate(Json.parseUnchecked("{\"turn\":{\"id\":\"t\",\"items\":[],\"status\":\"bogus\"}}"),
                definition("v2/TurnStartResponse"), "r", errors);
        validate(Json.parseUnchecked("{\"threadId\":\"t\",\"turnId\":\"u\",\"startedAtMs\":1,"
                + "\"item\":{\"type\":\"agentMessage\",\"id\":\"i\"}}"),
                definition("v2/ItemStartedNotification"), "n", errors);
        validate(Json.parseUnchecked("{\"userAgent\":\"u\"}"), definition("InitializeResponse"), "i", errors);
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("bogus"))
                .anySatisfy(e -> assertThat(e).startsWith("n.item"))
                .anySatisfy(e -> assertThat(e).contains("missing required codexHome"));
    }

    private static int validateVariant(String union, String method, JsonNode params, List<String> errors) {
        for (JsonNode variant : definition(union).path("oneOf")) {
            if (variant.path("properties").path("method").path("enum").get(0).asText().equals(method)) {
                JsonNode schema = variant.path("properties").path("params");
                validate(params, schema, method, errors);
                return 1;
            }
        }
        errors.add(method + ": not a " + union + " method of the schema");
        return 0;
    }

    private static JsonNode definition(String name) {
        JsonNode node = root.path("definitions");
        for (String part : name.split("/")) {
            node = node.path(part);
        }
        assertThat(node.isMissingNode()).as("definition %s", name).isFalse();
        return node;
    }

    private static JsonNode resolve(JsonNode schema) {
        while (schema.has("$ref")) {
            schema = definition(schema.get("$ref").asText().substring("#/definitions/".length()));
        }
        return schema;
    }

    /** Adds what is wrong with {@code value} under {@code schema} to {@code errors}. */
    static void validate(JsonNode value, JsonNode schema, String path, List<String> errors) {
        schema = resolve(schema);
        if (schema.isBoolean() || schema.isEmpty()) {
            return;
        }
        if (schema.has("allOf")) {
            schema.get("allOf").forEach(s -> validate(value, s, path, errors));
        }
        if (schema.has("anyOf") || schema.has("oneOf")) {
            JsonNode options = schema.has("anyOf") ? schema.get("anyOf") : schema.get("oneOf");
            boolean any = false;
            List<String> firstErrors = null;
            for (JsonNode option : options) {
                List<String> local = new ArrayList<>();
                validate(value, option, path, local);
                if (local.isEmpty()) {
                    any = true;
                    break;
                }
                if (firstErrors == null || local.size() < firstErrors.size()) {
                    firstErrors = local;
                }
            }
            if (!any) {
                errors.add(path + ": matches no alternative, e.g. " + firstErrors);
                return;
            }
        }
        if (schema.has("type") && !typeMatches(value, schema.get("type"))) {
            errors.add(path + ": expected " + schema.get("type") + " but was " + Json.abbreviate(value));
            return;
        }
        if (schema.has("enum")) {
            boolean found = false;
            for (JsonNode e : schema.get("enum")) {
                found |= e.equals(value);
            }
            if (!found) {
                errors.add(path + ": " + value + " not in " + schema.get("enum"));
            }
        }
        if (value.isObject()) {
            for (JsonNode required : schema.path("required")) {
                if (!value.has(required.asText())) {
                    errors.add(path + ": missing required " + required.asText());
                }
            }
            Iterator<Map.Entry<String, JsonNode>> fields = schema.path("properties").fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                if (value.has(field.getKey())) {
                    validate(value.get(field.getKey()), field.getValue(), path + "." + field.getKey(), errors);
                }
            }
        }
        if (value.isArray() && schema.has("items")) {
            int i = 0;
            for (JsonNode item : value) {
                validate(item, schema.get("items"), path + "[" + i++ + "]", errors);
            }
        }
    }

    private static boolean typeMatches(JsonNode value, JsonNode type) {
        if (type.isArray()) {
            for (JsonNode t : type) {
                if (typeMatches(value, t)) {
                    return true;
                }
            }
            return false;
        }
        return switch (type.asText()) {
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            case "array" -> value.isArray();
            case "object" -> value.isObject();
            case "null" -> value.isNull();
            default -> true;
        };
    }
}

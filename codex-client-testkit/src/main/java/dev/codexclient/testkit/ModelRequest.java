package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One request codex sent to the {@link ScriptedModelServer}, with typed views of the parts of a Responses API body
 * that tests check: the conversation {@link #input() items}, the {@link #lastUserText() last user text}, the
 * {@link #functionCallOutputs() tool results}, the {@link #tools() tool names} and the
 * {@link #textFormat() structured output format}.
 */
public final class ModelRequest {

    private final int sequence;
    private final String method;
    private final String path;
    private final Map<String, List<String>> headers;
    private final String body;
    private final JsonNode json;
    /** The SHA-256 of the {@code Authorization} header, salted per server run; empty without the header. */
    private final byte[] authorizationDigest;

    ModelRequest(int sequence, String method, String path, Map<String, List<String>> headers, String body,
            JsonNode json) {
        this(sequence, method, path, headers, body, json, new byte[0]);
    }

    private ModelRequest(int sequence, String method, String path, Map<String, List<String>> headers, String body,
            JsonNode json, byte[] authorizationDigest) {
        this.sequence = sequence;
        this.method = method;
        this.path = path;
        this.headers = headers;
        this.body = body;
        this.json = json == null ? MissingNode.getInstance() : json;
        this.authorizationDigest = authorizationDigest;
    }

    /**
     * Creates a view of a request body, e.g. for tests of routing predicates.
     *
     * @param path the request path, e.g. {@code /v1/responses}
     * @param body the request body
     * @return the request
     */
    public static ModelRequest of(String path, String body) {
        JsonNode json;
        try {
            json = ModelStep.JSON.readTree(body);
        } catch (Exception e) {
            json = null;
        }
        return new ModelRequest(0, "POST", path, Map.of(), body, json);
    }

    /** {@return the 0-based position of this request among all requests the server received} */
    public int sequence() {
        return sequence;
    }

    /** {@return the HTTP method} */
    public String method() {
        return method;
    }

    /** {@return the request path, e.g. {@code /v1/responses}} */
    public String path() {
        return path;
    }

    /**
     * {@return the request headers with lower-case names} The {@code authorization} header is not kept, so that no
     * credential ends up in test output.
     */
    public Map<String, List<String>> headers() {
        return headers;
    }

    /**
     * Whether the request carried exactly this {@code Authorization} header, e.g. {@code "Bearer " + key}: the proof
     * that codex sent a credential, for tests that it is masked where it comes back. The header itself is not kept,
     * only a salted digest of it, so that no credential ends up in test output.
     *
     * @param value the whole header value
     * @return whether the request's {@code Authorization} header was {@code value}
     */
    public boolean hasAuthorization(String value) {
        Objects.requireNonNull(value, "value");
        return authorizationDigest.length > 0
                && MessageDigest.isEqual(authorizationDigest, digest(value));
    }

    /** {@return whether the request carried an {@code Authorization} header at all} */
    public boolean hasAuthorization() {
        return authorizationDigest.length > 0;
    }

    /** {@return the body exactly as received (UTF-8 decoded)} */
    public String body() {
        return body;
    }

    /** {@return the parsed body; a {@link MissingNode} if it was not JSON} */
    public JsonNode json() {
        return json;
    }

    /** {@return the {@code model} member} */
    public Optional<String> model() {
        return text(json.path("model"));
    }

    /** {@return the {@code input} items (the conversation so far), in order} */
    public List<JsonNode> input() {
        List<JsonNode> items = new ArrayList<>();
        json.path("input").forEach(items::add);
        return Collections.unmodifiableList(items);
    }

    /**
     * {@return the text of the last {@code message} input item with role {@code user} (its {@code input_text} parts
     * joined), or empty if there is none} Codex also sends context as user messages; the user's own turn input is the
     * last of them.
     */
    public String lastUserText() {
        List<JsonNode> items = input();
        for (int i = items.size() - 1; i >= 0; i--) {
            JsonNode item = items.get(i);
            if ("message".equals(item.path("type").asText("message")) && "user".equals(item.path("role").asText())) {
                return contentText(item.path("content"));
            }
        }
        return "";
    }

    /**
     * Whether any input item (of any kind) contains {@code text}; handy for routing rules.
     *
     * @param text the text to look for
     * @return whether some input item contains {@code text}
     */
    public boolean inputContains(String text) {
        return json.path("input").toString().contains(text);
    }

    /**
     * {@return the {@code function_call_output} items by {@code call_id}, in input order} A structured output (a list
     * of content items) is flattened to its text parts.
     */
    public Map<String, String> functionCallOutputs() {
        Map<String, String> outputs = new LinkedHashMap<>();
        for (JsonNode item : input()) {
            String type = item.path("type").asText();
            if ("function_call_output".equals(type) || "custom_tool_call_output".equals(type)) {
                JsonNode output = item.path("output");
                outputs.put(item.path("call_id").asText(), output.isTextual() ? output.asText()
                        : output.isArray() ? contentText(output) : output.path("content").isTextual()
                        ? output.path("content").asText() : output.toString());
            }
        }
        return Collections.unmodifiableMap(outputs);
    }

    /** {@return the {@code function_call} input items (calls the model made earlier in the turn) by {@code call_id}} */
    public Map<String, JsonNode> functionCalls() {
        Map<String, JsonNode> calls = new LinkedHashMap<>();
        for (JsonNode item : input()) {
            if ("function_call".equals(item.path("type").asText())) {
                calls.put(item.path("call_id").asText(), item);
            }
        }
        return Collections.unmodifiableMap(calls);
    }

    /** {@return the names of the offered tools ({@code name}, or {@code type} for built-in tools without one)} */
    public List<String> tools() {
        List<String> names = new ArrayList<>();
        for (JsonNode tool : json.path("tools")) {
            JsonNode name = tool.path("name");
            if (name.isTextual()) {
                names.add(name.asText());
            } else if (tool.path("function").path("name").isTextual()) {
                names.add(tool.path("function").path("name").asText());
            } else {
                names.add(tool.path("type").asText());
            }
        }
        return Collections.unmodifiableList(names);
    }

    /** {@return the {@code text.format} member: where codex puts a turn's {@code outputSchema}} */
    public Optional<JsonNode> textFormat() {
        JsonNode format = json.path("text").path("format");
        return format.isMissingNode() || format.isNull() ? Optional.empty() : Optional.of(format);
    }

    /** {@return the {@code instructions} member (codex's base instructions)} */
    public Optional<String> instructions() {
        return text(json.path("instructions"));
    }

    @Override
    public String toString() {
        return "ModelRequest#" + sequence + " " + method + " " + path + " lastUserText=" + abbreviate(lastUserText());
    }

    private static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }

    private static Optional<String> text(JsonNode node) {
        return node.isTextual() ? Optional.of(node.asText()) : Optional.empty();
    }

    private static String contentText(JsonNode content) {
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode part : content) {
            JsonNode t = part.path("text");
            if (t.isTextual()) {
                text.append(t.asText());
            }
        }
        return text.toString();
    }

    static Map<String, List<String>> sanitizedHeaders(Map<String, List<String>> raw) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        raw.forEach((name, values) -> {
            String lower = name.toLowerCase(java.util.Locale.ROOT);
            if (!lower.equals("authorization") && !lower.contains("api-key") && !lower.contains("cookie")) {
                out.put(lower, List.copyOf(values));
            }
        });
        return Collections.unmodifiableMap(out);
    }

    /** A salt per JVM: a digest in a heap dump or a debugger says nothing of the header it was made of. */
    private static final byte[] SALT = salt();

    private static byte[] salt() {
        byte[] salt = new byte[16];
        new java.security.SecureRandom().nextBytes(salt);
        return salt;
    }

    private static byte[] digest(String value) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(SALT);
            return sha.digest(value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    static ModelRequest create(int sequence, String method, String path, Map<String, List<String>> headers,
            String body) {
        Objects.requireNonNull(body, "body");
        String authorization = null;
        for (Map.Entry<String, List<String>> h : headers.entrySet()) {
            if (h.getKey().equalsIgnoreCase("authorization") && !h.getValue().isEmpty()) {
                authorization = h.getValue().get(0);
            }
        }
        JsonNode json;
        try {
            json = ModelStep.JSON.readTree(body);
        } catch (Exception e) {
            json = null;
        }
        return new ModelRequest(sequence, method, path, sanitizedHeaders(headers), body, json,
                authorization == null ? new byte[0] : digest(authorization));
    }
}

package dev.codexclient.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generator refuses what it does not understand instead of emitting something wrong. */
class GeneratorErrorsTest {
    @TempDir
    Path dir;

    private static final String UNIONS = """
            "ClientRequest": {"oneOf": [{"type": "object", "required": ["id", "method", "params"],
              "properties": {"id": {"$ref": "#/definitions/RequestId"}, "method": {"enum": ["a/b"], "type": "string"},
                             "params": {"$ref": "#/definitions/%s"}}}]},
            "ServerRequest": {"oneOf": []},
            "ServerNotification": {"oneOf": []},
            "ClientNotification": {"oneOf": []},
            "RequestId": {"anyOf": [{"type": "string"}, {"format": "int64", "type": "integer"}]},
            "ABParams": {"type": "object", "properties": {"x": {"type": "string"}}},
            "ABResponse": {"type": "object"}
            """;

    private Map<String, String> run(String params, String extraDefs, String overrides) throws Exception {
        String bundle = "{\"definitions\": {" + UNIONS.formatted(params) + (extraDefs.isEmpty() ? "" : "," + extraDefs)
                + "}}";
        Path schema = dir.resolve("bundle.json");
        Files.writeString(schema, bundle);
        Path ov = dir.resolve("overrides.json");
        Files.writeString(ov, overrides);
        return Generator.load(schema, schema, ov).generate();
    }

    private static final String MODES = """
            "Mode": {"oneOf": [
              {"type": "object", "required": ["mode"], "properties": {"mode": {"enum": ["openai/form"], "type": "string"}}},
              {"type": "object", "required": ["mode"], "properties": {"mode": {"enum": ["openaiForm"], "type": "string"}}}]}
            """;

    @Test
    void unresolvedVariantNameCollisionFails() {
        assertThatThrownBy(() -> run("ABParams", MODES, "{\"handwrittenTypes\": [\"RequestId\"]}"))
                .isInstanceOf(GeneratorException.class)
                .hasMessageContaining("Mode").hasMessageContaining("collision").hasMessageContaining("OpenaiForm");
    }

    @Test
    void variantNameOverrideResolvesTheCollision() throws Exception {
        Map<String, String> out = run("ABParams", MODES, """
                {"handwrittenTypes": ["RequestId"], "variantNames": {"Mode": {"openai/form": "OpenaiSlashForm"}}}""");
        assertThat(out.get("Mode")).contains("record OpenaiSlashForm(").contains("record OpenaiForm(");
        assertThat(out.get("ClientRequestMethods")).contains("MethodDescriptor<ABParams, ABResponse> AB =");
    }

    @Test
    void unknownSchemaKeywordFails() {
        assertThatThrownBy(() -> run("ABParams", """
                "Odd": {"type": "object", "properties": {"x": {"type": "string", "pattern": "^a"}}}""",
                "{\"handwrittenTypes\": [\"RequestId\"]}"))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("pattern");
    }

    @Test
    void requestWithoutResponseTypeFails() {
        assertThatThrownBy(() -> run("Other", "\"Other\": {\"type\": \"object\"}", "{\"handwrittenTypes\": [\"RequestId\"]}"))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("a/b");
        assertThatThrownBy(() -> run("ABParams", "", """
                {"handwrittenTypes": ["RequestId"], "responses": {"a/b": "Missing"}}"""))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("Missing");
    }

    @Test
    void integerWithoutFormatFails() {
        assertThatThrownBy(() -> run("ABParams", """
                "Odd": {"type": "object", "properties": {"n": {"type": "integer"}}}""",
                "{\"handwrittenTypes\": [\"RequestId\"]}"))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("format");
    }

    @Test
    void unknownOverrideKeyAndStaleOverridesFail() {
        assertThatThrownBy(() -> run("ABParams", "", "{\"handwrittenTypes\": [\"RequestId\"], \"typo\": 1}"))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("typo");
        assertThatThrownBy(() -> run("ABParams", "", """
                {"handwrittenTypes": ["RequestId"], "tristateFields": ["ABParams.nope"]}"""))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("ABParams.nope");
    }

    private static final String LOGIN = """
            "Login": {"oneOf": [
              {"type": "object", "required": ["type", "apiKey"], "properties": {
                "type": {"enum": ["apiKey"], "type": "string"}, "apiKey": {"type": "string"}}},
              {"type": "object", "required": ["type"], "properties": {"type": {"enum": ["none"], "type": "string"}}}]}
            """;

    @Test
    void secretComponentsGetAMaskingToString() throws Exception {
        Map<String, String> out = run("ABParams", LOGIN, """
                {"handwrittenTypes": ["RequestId"], "secretFields": ["ABParams.x", "Login.ApiKey.apiKey"]}""");
        assertThat(out.get("ABParams"))
                .contains("public String toString() {")
                .contains("\"ABParams[\"")
                .contains("+ \"x=\" + (x == null ? \"null\" : \"[REDACTED]\")");
        String login = out.get("Login");
        assertThat(login).contains("\"ApiKey[\"")
                .contains("+ \"apiKey=\" + (apiKey == null ? \"null\" : \"[REDACTED]\")");
        // only records holding a secret (and Unrecognized, which prints a shape) override toString;
        // equals/hashCode are never generated
        assertThat(login.split("public String toString\\(\\)", -1)).hasSize(3);
        assertThat(out.get("ABParams") + login).doesNotContain("equals(").doesNotContain("hashCode(");
        assertThat(out.get("ABResponse")).doesNotContain("toString");
        // the builder keeps no toString of its own
        String params = out.get("ABParams");
        assertThat(params.substring(params.indexOf("class Builder"))).doesNotContain("toString");
    }

    @Test
    void aTypeNamedLikeAJavaLangTypeFailsAndATypeNamesOverrideRenamesIt() throws Exception {
        String thread = "\"Thread\": {\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"string\"}}}";
        assertThatThrownBy(() -> run("ABParams", thread, "{\"handwrittenTypes\": [\"RequestId\"]}"))
                .isInstanceOf(GeneratorException.class)
                .hasMessageContaining("definition Thread")
                .hasMessageContaining("java.lang.Thread")
                .hasMessageContaining("typeNames");
        Map<String, String> out = run("ABParams", thread,
                "{\"handwrittenTypes\": [\"RequestId\"], \"typeNames\": {\"Thread\": \"ThreadInfo\"}}");
        assertThat(out).containsKey("ThreadInfo").containsKey("ThreadInfoJson").doesNotContainKey("Thread");
        assertThatThrownBy(() -> run("ABParams", "", "{\"handwrittenTypes\": [\"RequestId\"], \"typeNames\": {\"Gone\": \"X\"}}"))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("Gone");
        String list = "\"List\": {\"type\": \"object\"}";
        assertThatThrownBy(() -> run("ABParams", list, "{\"handwrittenTypes\": [\"RequestId\"]}"))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("java.util.List");
    }

    private static final String ITEMS = """
            "Item": {"oneOf": [
              {"type": "object", "required": ["type", "id", "raw", "k", "opt", "nul"], "properties": {
                "type": {"enum": ["a"], "type": "string"}, "id": {"type": "string"}, "raw": {"type": "string"},
                "k": {"type": "string"}, "opt": {"type": "string"}, "nul": {"type": "string"}}},
              {"type": "object", "required": ["type", "id", "raw", "k", "nul"], "properties": {
                "type": {"enum": ["b"], "type": "string"}, "id": {"type": "string"}, "raw": {"type": "string"},
                "k": {"format": "int64", "type": "integer"}, "opt": {"type": "string"},
                "nul": {"type": ["string", "null"]}}}]}
            """;

    @Test
    void aStringMemberEveryVariantRequiresIsDeclaredOnTheUnion() throws Exception {
        String item = run("ABParams", ITEMS, "{\"handwrittenTypes\": [\"RequestId\"]}").get("Item");
        String union = item.substring(0, item.indexOf("record A("));
        assertThat(union).contains("String id();");
        // optional in one variant, of another type in one, nullable in one, or the name of Unrecognized's raw:
        // not shared
        assertThat(union).doesNotContain("opt();").doesNotContain(" k();").doesNotContain("nul();")
                .doesNotContain("raw();");
        String unrecognized = item.substring(item.indexOf("record Unrecognized("));
        assertThat(unrecognized).contains("public String id() {").contains("return raw.path(\"id\").textValue();");
    }

    @Test
    void aMemberFixedToOneValueInEveryVariantIsNotTheTag() throws Exception {
        // codex 0.171.0's AgentMessageDisplay: mode tells the variants apart, version is 1 in all of them
        String display = """
                "Display": {"oneOf": [
                  {"type": "object", "required": ["mode", "version"], "properties": {
                    "mode": {"enum": ["show"], "type": "string"}, "version": {"enum": [1], "format": "uint8", "type": "integer"}}},
                  {"type": "object", "required": ["mode", "version"], "properties": {
                    "mode": {"enum": ["hide"], "type": "string"}, "version": {"enum": [1], "format": "uint8", "type": "integer"}}}]}
                """;
        String out = run("ABParams", display, "{\"handwrittenTypes\": [\"RequestId\"]}").get("Display");
        assertThat(out).contains("Variants are told apart by {@code mode}").contains("record Show(")
                .contains("int version");
        // two members that each tell every variant apart: no way to choose
        String twoTags = """
                "Two": {"oneOf": [
                  {"type": "object", "required": ["a", "b"], "properties": {
                    "a": {"enum": ["x"], "type": "string"}, "b": {"enum": ["p"], "type": "string"}}},
                  {"type": "object", "required": ["a", "b"], "properties": {
                    "a": {"enum": ["y"], "type": "string"}, "b": {"enum": ["q"], "type": "string"}}}]}
                """;
        assertThatThrownBy(() -> run("ABParams", twoTags, "{\"handwrittenTypes\": [\"RequestId\"]}"))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("ambiguous union discriminator [a, b]");
    }

    @Test
    void staleSecretOverrideFails() {
        assertThatThrownBy(() -> run("ABParams", LOGIN, """
                {"handwrittenTypes": ["RequestId"], "secretFields": ["Login.ApiKey.apiKey", "ABParams.token"]}"""))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("secret")
                .hasMessageContaining("ABParams.token").hasMessageNotContaining("Login.ApiKey.apiKey");
        assertThatThrownBy(() -> run("ABParams", LOGIN, """
                {"handwrittenTypes": ["RequestId"], "secretFields": ["Login.apiKey"]}"""))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("Login.apiKey");
    }

    @Test
    void namingRules() {
        assertThat(Names.pascal("thread/start")).isEqualTo("ThreadStart");
        assertThat(Names.pascal("input_text")).isEqualTo("InputText");
        assertThat(Names.pascal("openai/userVerification")).isEqualTo("OpenaiUserVerification");
        assertThat(Names.field("_meta")).isEqualTo("meta");
        assertThat(Names.field("otlp-http")).isEqualTo("otlpHttp");
        assertThat(Names.field("default")).isEqualTo("default_");
        assertThat(Names.field("PreToolUse")).isEqualTo("preToolUse");
        assertThat(Names.field("developer_instructions")).isEqualTo("developerInstructions");
        assertThat(Names.constant("on-request")).isEqualTo("ON_REQUEST");
        assertThat(Names.constant("acceptForSession")).isEqualTo("ACCEPT_FOR_SESSION");
        assertThat(Names.constant("NO_CONSTRAINT")).isEqualTo("NO_CONSTRAINT");
        assertThat(Names.constant("AccountRateLimitsRead")).isEqualTo("ACCOUNT_RATE_LIMITS_READ");
        assertThat(Names.lowerCamel("AccountRateLimitsRead")).isEqualTo("accountRateLimitsRead");
    }
}

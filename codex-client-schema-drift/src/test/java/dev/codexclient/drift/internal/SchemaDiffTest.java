package dev.codexclient.drift.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.drift.internal.ClientApiRequirements.Kind;
import dev.codexclient.drift.internal.ClientApiRequirements.Requirement;
import dev.codexclient.drift.internal.SchemaDiff.Aspect;
import dev.codexclient.drift.internal.SchemaDiff.Change;
import dev.codexclient.drift.internal.SchemaDiff.Drift;
import dev.codexclient.drift.internal.SchemaDiff.Op;
import dev.codexclient.drift.internal.SchemaDiff.TypeDiff;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The diff on small synthetic schemas shaped like codex's bundles. */
class SchemaDiffTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The SDK's side: two requests, a notification, a server request and a few kinds of types. */
    static final String SDK = """
            {"definitions": {
              "ClientRequest": {"oneOf": [
                {"type": "object", "required": ["id", "method", "params"], "properties": {
                  "id": {"$ref": "#/definitions/RequestId"},
                  "method": {"type": "string", "enum": ["thread/start"]},
                  "params": {"$ref": "#/definitions/v2/ThreadStartParams"}}},
                {"type": "object", "required": ["id", "method", "params"], "properties": {
                  "id": {"$ref": "#/definitions/RequestId"},
                  "method": {"type": "string", "enum": ["thread/revert"]},
                  "params": {"$ref": "#/definitions/v2/ThreadRevertParams"}}},
                {"type": "object", "required": ["id", "method"], "properties": {
                  "id": {"$ref": "#/definitions/RequestId"},
                  "method": {"type": "string", "enum": ["account/read"]},
                  "params": {"anyOf": [{"$ref": "#/definitions/v2/AccountReadParams"}, {"type": "null"}]}}}]},
              "ServerNotification": {"oneOf": [
                {"type": "object", "required": ["method", "params"], "properties": {
                  "method": {"type": "string", "enum": ["turn/completed"]},
                  "params": {"$ref": "#/definitions/v2/TurnCompletedNotification"}}}]},
              "ServerRequest": {"oneOf": [
                {"type": "object", "required": ["id", "method", "params"], "properties": {
                  "id": {"$ref": "#/definitions/RequestId"},
                  "method": {"type": "string", "enum": ["item/tool/call"]},
                  "params": {"$ref": "#/definitions/v2/DynamicToolCallParams"}}}]},
              "ClientNotification": {"oneOf": [
                {"type": "object", "required": ["method"], "properties": {
                  "method": {"type": "string", "enum": ["initialized"]}}}]},
              "RequestId": {"anyOf": [{"type": "string"}, {"type": "integer", "format": "int64"}]},
              "v2": {
                "ThreadStartParams": {"type": "object", "properties": {
                  "cwd": {"type": ["string", "null"], "description": "Where to run."},
                  "model": {"type": ["string", "null"]},
                  "sandbox": {"anyOf": [{"$ref": "#/definitions/v2/SandboxMode"}, {"type": "null"}]}}},
                "ThreadStartResponse": {"type": "object", "required": ["thread"], "properties": {
                  "thread": {"$ref": "#/definitions/v2/Thread"}}},
                "Thread": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}},
                "ThreadRevertParams": {"type": "object", "required": ["threadId"], "properties": {
                  "threadId": {"type": "string"}}},
                "AccountReadParams": {"type": "object", "properties": {}},
                "SandboxMode": {"type": "string", "enum": ["read-only", "workspace-write", "danger-full-access"]},
                "TurnCompletedNotification": {"type": "object", "required": ["turn"], "properties": {
                  "turn": {"$ref": "#/definitions/v2/Turn"}}},
                "Turn": {"type": "object", "required": ["id", "items"], "properties": {
                  "id": {"type": "string"},
                  "items": {"type": "array", "items": {"$ref": "#/definitions/v2/ThreadItem"}}}},
                "ThreadItem": {
                  "properties": {"startedAtMs": {"type": ["integer", "null"], "format": "int64"}},
                  "oneOf": [
                    {"type": "object", "required": ["type", "id", "text"], "properties": {
                      "type": {"type": "string", "enum": ["agentMessage"]},
                      "id": {"type": "string"}, "text": {"type": "string"}}},
                    {"type": "object", "required": ["type", "id"], "properties": {
                      "type": {"type": "string", "enum": ["plan"]}, "id": {"type": "string"}}}]},
                "DynamicToolCallParams": {"type": "object", "required": ["tool"], "properties": {
                  "tool": {"type": "string"}}},
                "Decision": {"oneOf": [
                  {"type": "string", "enum": ["accept"], "description": "Yes."},
                  {"type": "string", "enum": ["decline"]},
                  {"type": "object", "required": ["acceptWithAmendment"], "properties": {
                    "acceptWithAmendment": {"type": "object", "properties": {"rule": {"type": "string"}}}}}]},
                "OnlyInSdk": {"type": "object", "properties": {}}
              }}}
            """;

    /**
     * The other codex: {@code thread/revert} gone, a new request, a changed params type, fields and values moved
     * around, a variant gone and one added, and an old root-namespace type that shares a name with a v2 one.
     */
    static final String OTHER = """
            {"definitions": {
              "ClientRequest": {"oneOf": [
                {"type": "object", "required": ["id", "method", "params"], "properties": {
                  "id": {"$ref": "#/definitions/RequestId"},
                  "method": {"type": "string", "enum": ["thread/start"]},
                  "params": {"$ref": "#/definitions/v2/ThreadStartParams"}}},
                {"type": "object", "required": ["id", "method", "params"], "properties": {
                  "id": {"$ref": "#/definitions/RequestId"},
                  "method": {"type": "string", "enum": ["thread/rollback"]},
                  "params": {"$ref": "#/definitions/v2/ThreadRollbackParams"}}},
                {"type": "object", "required": ["id", "method"], "properties": {
                  "id": {"$ref": "#/definitions/RequestId"},
                  "method": {"type": "string", "enum": ["account/read"]},
                  "params": {"type": "null"}}}]},
              "ServerNotification": {"oneOf": [
                {"type": "object", "required": ["method", "params"], "properties": {
                  "method": {"type": "string", "enum": ["turn/completed"]},
                  "params": {"$ref": "#/definitions/v2/TurnCompletedNotification"}}},
                {"type": "object", "required": ["method", "params"], "properties": {
                  "method": {"type": "string", "enum": ["codex/event"]},
                  "params": {"type": "object"}}}]},
              "ServerRequest": {"oneOf": []},
              "ClientNotification": {"oneOf": [
                {"type": "object", "required": ["method"], "properties": {
                  "method": {"type": "string", "enum": ["initialized"]}}}]},
              "RequestId": {"anyOf": [{"type": "string"}, {"type": "integer", "format": "int64"}]},
              "Thread": {"type": "object", "required": ["conversationId"], "properties": {
                "conversationId": {"type": "string"}}},
              "v2": {
                "ThreadStartParams": {"type": "object", "required": ["cwd"], "properties": {
                  "cwd": {"type": "string", "description": "Changed docs do not count."},
                  "sandbox": {"anyOf": [{"$ref": "#/definitions/v2/SandboxMode"}, {"type": "null"}]},
                  "profile": {"type": ["string", "null"]}}},
                "ThreadStartResponse": {"type": "object", "required": ["thread"], "properties": {
                  "thread": {"$ref": "#/definitions/v2/Thread"}}},
                "Thread": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}},
                "ThreadRollbackParams": {"type": "object", "required": ["threadId", "numTurns"], "properties": {
                  "threadId": {"type": "string"}, "numTurns": {"type": "integer", "format": "uint32"}}},
                "SandboxMode": {"type": "string", "enum": ["read-only", "workspace-write", "full-access"]},
                "TurnCompletedNotification": {"type": "object", "required": ["turn"], "properties": {
                  "turn": {"$ref": "#/definitions/v2/Turn"}}},
                "Turn": {"type": "object", "required": ["id", "items"], "properties": {
                  "id": {"type": "string"},
                  "items": {"type": "array", "items": {"$ref": "#/definitions/v2/ThreadItem"}}}},
                "ThreadItem": {"oneOf": [
                    {"type": "object", "required": ["type", "id", "text"], "properties": {
                      "type": {"type": "string", "enum": ["agentMessage"]},
                      "id": {"type": "string"}, "text": {"type": "string"}, "phase": {"type": "string"}}},
                    {"type": "object", "required": ["type", "id"], "properties": {
                      "type": {"type": "string", "enum": ["reasoning"]}, "id": {"type": "string"}}}]},
                "DynamicToolCallParams": {"type": "object", "required": ["tool"], "properties": {
                  "tool": {"type": "string"}}},
                "Decision": {"oneOf": [
                  {"type": "string", "enum": ["accept"], "description": "Yes, reworded."},
                  {"type": "object", "required": ["acceptWithAmendment"], "properties": {
                    "acceptWithAmendment": {"type": "object", "properties": {"rule": {"type": "string"}}}}},
                  {"type": "object", "required": ["reject"], "properties": {"reject": {"type": "boolean"}}}]},
                "OnlyInOther": {"type": "string"}
              }}}
            """;

    private static final List<Requirement> REQUIREMENTS = List.of(
            new Requirement(Kind.CLIENT_REQUEST, "thread/start", List.of("CodexClient.startThread")),
            new Requirement(Kind.CLIENT_REQUEST, "thread/revert", List.of("CodexThread.revertTo")),
            new Requirement(Kind.SERVER_NOTIFICATION, "turn/completed", List.of("CodexTurn.result")),
            new Requirement(Kind.SERVER_REQUEST, "item/tool/call", List.of("CodexClientBuilder.tool")),
            new Requirement(Kind.CLIENT_NOTIFICATION, "initialized", List.of("CodexClientBuilder.build")));

    static ProtocolSchema schema(String json) throws Exception {
        return ProtocolSchema.read(JSON.readTree(json));
    }

    static Drift drift() throws Exception {
        return SchemaDiff.compare(schema(SDK), schema(OTHER), REQUIREMENTS);
    }

    private static List<Change> changesOf(String type) throws Exception {
        return drift().typesChanged().stream().filter(t -> t.name().equals(type)).findFirst()
                .map(TypeDiff::changes).orElseThrow(() -> new AssertionError(type + " did not change"));
    }

    @Test
    void aSchemaHasNoDriftAgainstItself() throws Exception {
        Drift d = SchemaDiff.compare(schema(SDK), schema(SDK), REQUIREMENTS);
        assertThat(d.isEmpty()).isTrue();
        assertThat(d.compatible()).isTrue();
    }

    @Test
    void methodsAddedRemovedAndWithOtherParams() throws Exception {
        Drift d = drift();
        assertThat(d.methods().get(Kind.CLIENT_REQUEST).removed()).containsExactly("thread/revert");
        assertThat(d.methods().get(Kind.CLIENT_REQUEST).added()).containsExactly("thread/rollback");
        assertThat(d.methods().get(Kind.CLIENT_REQUEST).changed()).containsExactly(new Change(Op.CHANGED,
                Aspect.PARAMS, "account/read", "optional AccountReadParams | null", "optional null"));
        assertThat(d.methods().get(Kind.SERVER_NOTIFICATION).added()).containsExactly("codex/event");
        assertThat(d.methods().get(Kind.SERVER_REQUEST).removed()).containsExactly("item/tool/call");
        assertThat(d.methods().get(Kind.CLIENT_NOTIFICATION).isEmpty()).isTrue();
    }

    @Test
    void whatTheClientApiReliesOnAndTheOtherLacksMakesItIncompatible() throws Exception {
        Drift d = drift();
        assertThat(d.compatible()).isFalse();
        assertThat(d.missing()).extracting(Requirement::method).containsExactly("thread/revert", "item/tool/call");
    }

    @Test
    void fieldsAddedRemovedRetypedAndMadeRequired() throws Exception {
        assertThat(changesOf("ThreadStartParams")).containsExactly(
                new Change(Op.CHANGED, Aspect.FIELD, "cwd", "optional string | null", "required string"),
                new Change(Op.REMOVED, Aspect.FIELD, "model", "optional string | null", ""),
                new Change(Op.ADDED, Aspect.FIELD, "profile", "", "optional string | null"));
    }

    @Test
    void enumValues() throws Exception {
        assertThat(changesOf("SandboxMode")).containsExactly(
                new Change(Op.REMOVED, Aspect.VALUE, "danger-full-access", "", ""),
                new Change(Op.ADDED, Aspect.VALUE, "full-access", "", ""));
    }

    @Test
    void unionVariantsAndTheirFieldsIncludingSharedOnes() throws Exception {
        assertThat(changesOf("ThreadItem")).containsExactly(
                new Change(Op.REMOVED, Aspect.VARIANT, "plan", "", ""),
                new Change(Op.ADDED, Aspect.VARIANT, "reasoning", "", ""),
                new Change(Op.REMOVED, Aspect.FIELD, "agentMessage.startedAtMs",
                        "optional integer(int64) | null(int64)", ""),
                new Change(Op.ADDED, Aspect.FIELD, "agentMessage.phase", "", "optional string"));
    }

    @Test
    void externallyTaggedUnionsByStringsAndKeys() throws Exception {
        assertThat(changesOf("Decision")).containsExactly(
                new Change(Op.REMOVED, Aspect.VALUE, "decline", "", ""),
                new Change(Op.ADDED, Aspect.VARIANT, "reject", "", ""));
    }

    @Test
    void typesAddedAndRemovedWithOldRootTypesKeptApart() throws Exception {
        Drift d = drift();
        assertThat(d.typesAdded()).containsExactly("OnlyInOther", "ThreadRollbackParams", "root/Thread");
        assertThat(d.typesRemoved()).containsExactly("AccountReadParams", "OnlyInSdk", "ThreadRevertParams");
        assertThat(d.typesChanged()).extracting(TypeDiff::name)
                .containsExactly("Decision", "SandboxMode", "ThreadItem", "ThreadStartParams");
    }

    @Test
    void theTypesTheClientApiUsesAreThoseReachableFromItsMethods() throws Exception {
        assertThat(drift().clientApiTypes()).containsExactlyInAnyOrder("ThreadStartParams", "ThreadStartResponse",
                "Thread", "SandboxMode", "ThreadRevertParams", "TurnCompletedNotification", "Turn", "ThreadItem",
                "DynamicToolCallParams");
    }

    @Test
    void documentationAloneIsNoDrift() throws Exception {
        String reworded = SDK.replace("\"Where to run.\"", "\"Where the thread runs.\"");
        assertThat(SchemaDiff.compare(schema(SDK), schema(reworded), REQUIREMENTS).isEmpty()).isTrue();
    }

    @Test
    void somethingThatIsNotABundleIsRejected() {
        assertThatThrownBy(() -> schema("{\"type\": \"object\"}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a codex app-server schema bundle");
    }

    @Test
    void theTextReportLeadsWithWhatBreaksTheClientApi() throws Exception {
        String text = DriftReport.text(drift(), "0.169.0", new DriftReport.Subject("codex 0.98.0", "0.98.0",
                "/opt/codex"), false);
        assertThat(text).startsWith("Protocol drift: codex 0.98.0 (/opt/codex)\n"
                + "      against: codex 0.169.0, the schema this SDK was generated from\n\n"
                + "INCOMPATIBLE: codex 0.98.0 lacks 2 methods the client API relies on:\n"
                + "    client request      thread/revert   CodexThread.revertTo\n"
                + "    server request      item/tool/call  CodexClientBuilder.tool\n");
        assertThat(text)
                .contains("Client requests: 1 missing from codex 0.98.0, 1 only in codex 0.98.0, 1 with other params\n"
                        + "  - thread/revert\n  + thread/rollback\n"
                        + "  ~ account/read: params optional AccountReadParams | null -> optional null\n")
                .contains("Types the client API sends or reads: 3 changed, 1 missing from codex 0.98.0\n"
                        + "  ~ SandboxMode: -1 value, +1 value\n"
                        + "  ~ ThreadItem: -1 variant, +1 variant, -1 field, +1 field\n"
                        + "  ~ ThreadStartParams: ~1 field, -1 field, +1 field\n"
                        + "  - ThreadRevertParams\n")
                .contains("Other types: 1 changed, 2 missing from codex 0.98.0, 3 only in codex 0.98.0\n"
                        + "  ~ Decision: -1 value, +1 variant\n"
                        + "  - AccountReadParams, OnlyInSdk\n"
                        + "  + OnlyInOther, ThreadRollbackParams, root/Thread\n");
    }

    @Test
    void theDetailedTextReportListsEveryChange() throws Exception {
        String text = DriftReport.text(drift(), "0.169.0", new DriftReport.Subject("codex 0.98.0", "0.98.0",
                "/opt/codex"), true);
        assertThat(text)
                .contains("  ~ SandboxMode\n      - value danger-full-access\n      + value full-access\n")
                .contains("  ~ ThreadStartParams\n"
                        + "      ~ field cwd: optional string | null -> required string\n"
                        + "      - field model: optional string | null\n"
                        + "      + field profile: optional string | null\n")
                .contains("  ~ Decision\n      - value decline\n      + variant reject\n");
    }

    @Test
    void theJsonReportHasEveryDifference() throws Exception {
        JsonNode json = DriftReport.json(drift(), "0.169.0", new DriftReport.Subject("codex 0.98.0", "0.98.0",
                "/opt/codex"));
        assertThat(json.path("sdk").path("codexVersion").asText()).isEqualTo("0.169.0");
        assertThat(json.path("compared").path("codexVersion").asText()).isEqualTo("0.98.0");
        assertThat(json.path("compatible").asBoolean()).isFalse();
        assertThat(json.path("identical").asBoolean()).isFalse();
        assertThat(json.path("missing").get(0).path("kind").asText()).isEqualTo("clientRequest");
        assertThat(json.path("missing").get(0).path("usedBy").get(0).asText()).isEqualTo("CodexThread.revertTo");
        assertThat(json.path("methods").path("clientRequests").path("added").get(0).asText())
                .isEqualTo("thread/rollback");
        JsonNode start = json.path("types").path("changed").get(3);
        assertThat(start.path("name").asText()).isEqualTo("ThreadStartParams");
        assertThat(start.path("usedByClientApi").asBoolean()).isTrue();
        assertThat(start.path("changes").get(0).toString()).isEqualTo("{\"op\":\"changed\",\"aspect\":\"field\","
                + "\"name\":\"cwd\",\"from\":\"optional string | null\",\"to\":\"required string\"}");
        assertThat(json.path("types").path("removedUsedByClientApi").get(0).asText()).isEqualTo("ThreadRevertParams");
    }
}

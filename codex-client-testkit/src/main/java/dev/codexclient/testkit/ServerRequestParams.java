package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.testkit.internal.fake.Json;

/** The params of the server requests the fake sends on a test's behalf, shaped as codex 0.169.0 sends them. */
final class ServerRequestParams {
    private ServerRequestParams() {
    }

    /** {@code item/commandExecution/requestApproval} with codex's usual decisions. */
    static ObjectNode commandApproval(String itemId, String threadId, String turnId, String command) {
        ObjectNode params = Json.object().put("threadId", threadId).put("turnId", turnId)
                .put("itemId", itemId).put("startedAtMs", System.currentTimeMillis())
                .put("command", command).put("cwd", System.getProperty("user.dir"))
                .put("reason", "fake: command needs approval");
        ArrayNode decisions = params.putArray("availableDecisions");
        decisions.add("accept");
        decisions.addObject().putObject("acceptWithExecpolicyAmendment").putArray("execpolicy_amendment")
                .add(command.split(" ")[0]);
        decisions.add("cancel");
        return params;
    }

    /** {@code item/fileChange/requestApproval}; {@code reason} may be null. */
    static ObjectNode fileChangeApproval(String itemId, String threadId, String turnId, String reason) {
        return Json.object().put("threadId", threadId).put("turnId", turnId)
                .put("itemId", itemId).put("startedAtMs", System.currentTimeMillis())
                .put("reason", reason).putNull("grantRoot");
    }

    /** {@code item/tool/call}, a dynamic tool call. */
    static ObjectNode toolCall(String callId, String threadId, String turnId, String tool, JsonNode arguments) {
        ObjectNode params = Json.object().put("threadId", threadId).put("turnId", turnId)
                .put("callId", callId).put("tool", tool).putNull("namespace");
        params.set("arguments", arguments);
        return params;
    }

    /** {@code item/tool/requestUserInput} with one free-text question. */
    static ObjectNode userInput(String itemId, String threadId, String turnId, String questionId, String question) {
        ObjectNode params = Json.object().put("threadId", threadId).put("turnId", turnId)
                .put("itemId", itemId).put("isBlocking", true);
        params.putArray("questions").addObject().put("id", questionId).put("header", "Question")
                .put("question", question).put("isOther", false).put("isSecret", false).putNull("options");
        return params;
    }

    /** {@code mcpServer/elicitation/request} in {@code form} mode. */
    static ObjectNode elicitation(String threadId, String serverName, String message, JsonNode requestedSchema) {
        ObjectNode params = Json.object().put("threadId", threadId).putNull("turnId").put("serverName", serverName)
                .put("mode", "form").put("message", message);
        params.set("requestedSchema", requestedSchema);
        return params;
    }

    /** {@code account/chatgptAuthTokens/refresh} with reason {@code unauthorized}. */
    static ObjectNode chatgptTokenRefresh() {
        return Json.object().put("reason", "unauthorized").putNull("previousAccountId");
    }
}

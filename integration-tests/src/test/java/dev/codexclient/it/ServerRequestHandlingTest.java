package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.assertNoStackTrace;
import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static dev.codexclient.it.ClientTestSupport.inflightServerRequests;
import static dev.codexclient.it.ClientTestSupport.responseTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.protocol.ToolRequestUserInputResponse;
import dev.codexclient.testkit.ClientReply;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.PendingServerRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Requests the server sends to the client: defaults, policies, typed handlers, ids, failures, withdrawal, tools. */
@ExtendWith(CodexTestExtension.class)
class ServerRequestHandlingTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String TURN = "turn-1";

    record AddArgs(int a, int b) {
    }

    @Test
    void withoutHandlersEveryApprovalIsDeclinedAndEachDefaultIsLoggedOnce(FakeCodexAppServer fake) {
        String log = ClientTestSupport.captureStderr(() -> {
            try (CodexClient client = inMemory(fake).build()) {
                String threadId = client.startThread().id();
                for (int i = 0; i < 2; i++) {
                    assertThat(fake.requestCommandApproval(threadId, TURN, "rm -rf build").awaitResponse(WAIT)
                            .decision()).contains("decline");
                }
                assertThat(fake.requestFileChangeApproval(threadId, TURN, "edit README").awaitResponse(WAIT)
                        .decision()).contains("decline");
                ClientReply exec = fake.sendRequest("execCommandApproval", legacyExecParams(threadId))
                        .awaitResponse(WAIT);
                assertThat(exec.decision()).contains("denied");
                assertThat(exec.result().path("decision").path("denied").path("rejection").asText()).isNotBlank();
                ClientReply patch = fake.sendRequest("applyPatchApproval", legacyPatchParams(threadId))
                        .awaitResponse(WAIT);
                assertThat(patch.decision()).contains("denied");
                ClientReply permissions = fake.sendRequest("item/permissions/requestApproval",
                        permissionsParams(threadId)).awaitResponse(WAIT);
                assertThat(permissions.isError()).isFalse();
                assertThat(permissions.result().path("permissions").isObject()).isTrue();
                assertThat(permissions.result().path("permissions").size()).isZero();
                assertThat(permissions.result().path("scope").asText("turn")).isEqualTo("turn");
            }
        });
        assertThat(occurrences(log, "No handler registered for item/commandExecution/requestApproval"))
                .isEqualTo(1);
        assertThat(occurrences(log, "No handler registered for item/fileChange/requestApproval")).isEqualTo(1);
        assertThat(log).contains("WARN");
    }

    @Test
    void acceptAllPolicyAcceptsEveryKindOfApproval(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).approvals(ApprovalPolicy.acceptAll()).build()) {
            String threadId = client.startThread().id();
            assertThat(fake.requestCommandApproval(threadId, TURN, "make test").awaitResponse(WAIT).decision())
                    .contains("accept");
            assertThat(fake.requestFileChangeApproval(threadId, TURN, "edit").awaitResponse(WAIT).decision())
                    .contains("accept");
            assertThat(fake.sendRequest("execCommandApproval", legacyExecParams(threadId)).awaitResponse(WAIT)
                    .decision()).contains("approved");
            assertThat(fake.sendRequest("applyPatchApproval", legacyPatchParams(threadId)).awaitResponse(WAIT)
                    .decision()).contains("approved");
            JsonNode granted = fake.sendRequest("item/permissions/requestApproval", permissionsParams(threadId))
                    .awaitResponse(WAIT).result();
            assertThat(granted.path("permissions").path("network").path("enabled").asBoolean()).isTrue();
            assertThat(granted.path("scope").asText()).isEqualTo("turn");
        }
    }

    @Test
    void acceptForSessionPolicyAcceptsForTheSession(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).approvals(ApprovalPolicy.acceptForSession()).build()) {
            String threadId = client.startThread().id();
            assertThat(fake.requestCommandApproval(threadId, TURN, "make test").awaitResponse(WAIT).decision())
                    .contains("acceptForSession");
            assertThat(fake.requestFileChangeApproval(threadId, TURN, "edit").awaitResponse(WAIT).decision())
                    .contains("acceptForSession");
            assertThat(fake.sendRequest("execCommandApproval", legacyExecParams(threadId)).awaitResponse(WAIT)
                    .decision()).contains("approved_for_session");
            JsonNode granted = fake.sendRequest("item/permissions/requestApproval", permissionsParams(threadId))
                    .awaitResponse(WAIT).result();
            assertThat(granted.path("scope").asText()).isEqualTo("session");
        }
    }

    @Test
    void approvalsInsideAScriptedTurnAreAnswered(FakeCodexAppServer fake) {
        List<String> decisions = new CopyOnWriteArrayList<>();
        fake.onTurnStart(turn -> turn.commandApproval("rm -rf build", r -> decisions.add(r.decision().orElse("")))
                .agentMessage("ok").completed());
        try (CodexClient client = inMemory(fake).build()) {
            var result = client.startThread().startTurn("clean").await(WAIT);
            assertThat(result.isCompleted()).isTrue();
            assertThat(decisions).containsExactly("decline");
            assertThat(result.items()).anySatisfy(i -> assertThat(i.getClass().getSimpleName())
                    .isEqualTo("CommandExecution"));
        }
    }

    @Test
    void stringRequestIdsAreAnsweredWithTheSameStringIds(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            String threadId = client.startThread().id();
            ObjectNode params = json().put("threadId", threadId).put("turnId", TURN).put("itemId", "call-9")
                    .put("startedAtMs", System.currentTimeMillis()).put("command", "ls").put("cwd", "/tmp");
            ClientReply approval = fake.sendRequest(RequestId.of("req-7"),
                    "item/commandExecution/requestApproval", params).awaitResponse(WAIT);
            assertThat(approval.raw().get("id").isTextual()).isTrue();
            assertThat(approval.raw().get("id").asText()).isEqualTo("req-7");
            assertThat(approval.decision()).contains("decline");

            // A numeric-looking string stays a string; an error reply keeps the id type too.
            ClientReply unknown = fake.sendRequest(RequestId.of("42"), "fake/unknownRequest", Map.of())
                    .awaitResponse(WAIT);
            assertThat(unknown.raw().get("id").isTextual()).isTrue();
            assertThat(unknown.raw().get("id").asText()).isEqualTo("42");
            assertThat(unknown.errorCode()).hasValue(-32601);

            ClientReply numeric = fake.sendRequest(RequestId.of(42), "fake/unknownRequest", Map.of())
                    .awaitResponse(WAIT);
            assertThat(numeric.raw().get("id").isIntegralNumber()).isTrue();
        }
    }

    @Test
    void handlerThatThrowsGetsAJsonRpcErrorWithoutStackTrace(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake)
                .userInput(p -> {
                    throw new IllegalStateException("kaboom in the handler");
                })
                .elicitations(p -> CompletableFuture.failedFuture(new IllegalArgumentException("bad schema")))
                .build()) {
            String threadId = client.startThread().id();
            ClientReply reply = fake.requestUserInput(threadId, TURN, "q1", "Which branch?").awaitResponse(WAIT);
            assertThat(reply.isError()).isTrue();
            assertThat(reply.errorCode()).hasValue(-32603);
            assertThat(reply.errorMessage()).hasValueSatisfying(m -> assertThat(m).contains("kaboom in the handler"));
            assertNoStackTrace(reply.raw().toString());
            assertThat(reply.raw().path("error").has("data")).isFalse();

            ClientReply invalid = fake.requestElicitation(threadId, "github", "Pick", Map.of("type", "object"))
                    .awaitResponse(WAIT);
            assertThat(invalid.errorCode()).hasValue(-32602);
            assertThat(invalid.errorMessage()).hasValueSatisfying(m -> assertThat(m).contains("bad schema"));
            assertNoStackTrace(invalid.raw().toString());
            assertThat(inflightServerRequests(client)).isZero();
        }
    }

    @Test
    void withdrawnRequestCancelsItsHandlerAndGetsNoReply(FakeCodexAppServer fake) {
        AtomicReference<CompletableFuture<ToolRequestUserInputResponse>> handler = new AtomicReference<>();
        try (CodexClient client = inMemory(fake).userInput(p -> {
            CompletableFuture<ToolRequestUserInputResponse> never = new CompletableFuture<>();
            handler.set(never);
            return never;
        }).build()) {
            String threadId = client.startThread().id();
            PendingServerRequest question = fake.requestUserInput(threadId, TURN, "q1", "Continue?");
            awaitCondition("the handler runs", () -> handler.get() != null);
            assertThat(inflightServerRequests(client)).isEqualTo(1);
            question.resolve();
            awaitCondition("the handler's stage is cancelled", () -> handler.get().isCancelled());
            assertThat(inflightServerRequests(client)).isZero();
            // A later request is answered; the withdrawn one never is.
            ClientReply time = fake.sendRequest("currentTime/read", Map.of("threadId", threadId))
                    .awaitResponse(WAIT);
            assertThat(time.isError()).isFalse();
            assertThat(question.response()).isEmpty();
            assertThat(responseTo(fake, question.id().toString())).isNull();
        }
    }

    @Test
    void withdrawnToolCallCancelsTheToolsOwnStage(FakeCodexAppServer fake) {
        AtomicReference<CompletableFuture<ToolResult>> running = new AtomicReference<>();
        ObjectNode schema = json().put("type", "object");
        try (CodexClient client = inMemory(fake).experimentalApi(true)
                .tool(DynamicTool.ofAsync("wait_forever", "Never finishes", schema, (args, call, mapper) -> {
                    CompletableFuture<ToolResult> f = new CompletableFuture<>();
                    running.set(f);
                    return f;
                }))
                .build()) {
            String threadId = client.startThread().id();
            PendingServerRequest call = fake.requestToolCall(threadId, TURN, "wait_forever", Map.of());
            awaitCondition("the tool runs", () -> running.get() != null);
            call.resolve();
            awaitCondition("the tool's stage is cancelled", () -> running.get().isCancelled());
            assertThat(inflightServerRequests(client)).isZero();
            assertThat(call.response()).isEmpty();
        }
    }

    @Test
    void unknownServerRequestGetsMethodNotFound(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            ClientReply reply = fake.sendRequest("fake/unknownRequest", Map.of("x", 1)).awaitResponse(WAIT);
            assertThat(reply.errorCode()).hasValue(-32601);
            assertThat(reply.errorMessage()).hasValueSatisfying(m -> assertThat(m).contains("fake/unknownRequest"));
            // The ChatGPT token refresh has no safe default: without a handler it is refused, not left hanging.
            ClientReply refresh = fake.requestChatgptTokenRefresh().awaitResponse(WAIT);
            assertThat(refresh.isError()).isTrue();
        }
    }

    @Test
    void onUnknownServerRequestAnswersMethodsNewerThanTheSchema(FakeCodexAppServer fake) {
        List<JsonNode> seen = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake).unknownServerRequest("vendor/ping", params -> {
            seen.add(params);
            return CompletableFuture.completedFuture(Map.of("pong", params.path("n").asInt() + 1));
        }).build()) {
            ClientReply reply = fake.sendRequest("vendor/ping", Map.of("n", 41)).awaitResponse(WAIT);
            assertThat(reply.result().path("pong").asInt()).isEqualTo(42);
            assertThat(seen).singleElement().satisfies(p -> assertThat(p.path("n").asInt()).isEqualTo(41));
        }
    }

    @Test
    void userInputDefaultsToANonInteractiveAnswer(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            String threadId = client.startThread().id();
            JsonNode answers = fake.requestUserInput(threadId, TURN, "branch", "Which branch?")
                    .awaitResponse(WAIT).result().path("answers");
            assertThat(answers.path("branch").path("answers")).extracting(JsonNode::asText)
                    .singleElement().asString().contains("non-interactive");
        }
    }

    @Test
    void userInputHandlerAnswers(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).userInput(p -> CompletableFuture.completedFuture(
                ProtocolJson.mapper().convertValue(Map.of("answers", Map.of(p.questions().get(0).id(),
                        Map.of("answers", List.of("main")))), ToolRequestUserInputResponse.class))).build()) {
            String threadId = client.startThread().id();
            JsonNode answers = fake.requestUserInput(threadId, TURN, "branch", "Which branch?")
                    .awaitResponse(WAIT).result().path("answers");
            assertThat(answers.path("branch").path("answers").get(0).asText()).isEqualTo("main");
        }
    }

    @Test
    void elicitationIsDeclinedByDefault(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            String threadId = client.startThread().id();
            ClientReply reply = fake.requestElicitation(threadId, "github", "Pick a repository",
                    Map.of("type", "object", "properties", Map.of("repo", Map.of("type", "string"))))
                    .awaitResponse(WAIT);
            assertThat(reply.result().path("action").asText()).isEqualTo("decline");
        }
    }

    @Test
    void currentTimeIsAnsweredInWholeUnixSeconds(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            String threadId = client.startThread().id();
            long before = System.currentTimeMillis() / 1000;
            ClientReply reply = fake.sendRequest("currentTime/read", Map.of("threadId", threadId))
                    .awaitResponse(WAIT);
            long after = System.currentTimeMillis() / 1000 + 1;
            // The schema: "Current time as whole Unix seconds."
            assertThat(reply.result().path("currentTimeAt").asLong()).isBetween(before, after);
        }
    }

    @Test
    void dynamicToolCallsAreAnswered(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).experimentalApi(true)
                .tool(DynamicTool.of("add", "Adds two numbers", AddArgs.class,
                        a -> ToolResult.text(Integer.toString(a.a() + a.b()))))
                .tool(DynamicTool.of("explode", "Always fails", AddArgs.class, a -> {
                    throw new IllegalStateException("tool exploded");
                }))
                .build()) {
            String threadId = client.startThread().id();
            ClientReply sum = fake.requestToolCall(threadId, TURN, "add", Map.of("a", 2, "b", 3))
                    .awaitResponse(WAIT);
            assertThat(sum.result().path("success").asBoolean()).isTrue();
            assertThat(sum.result().path("contentItems")).singleElement()
                    .satisfies(i -> assertThat(i.path("text").asText()).isEqualTo("5"));

            ClientReply failed = fake.requestToolCall(threadId, TURN, "explode", Map.of("a", 1, "b", 1))
                    .awaitResponse(WAIT);
            assertThat(failed.isError()).isFalse();
            assertThat(failed.result().path("success").asBoolean(true)).isFalse();
            assertThat(failed.result().path("contentItems").get(0).path("text").asText())
                    .contains("tool exploded");
            assertNoStackTrace(failed.raw().toString());

            ClientReply unknown = fake.requestToolCall(threadId, TURN, "no_such_tool", Map.of())
                    .awaitResponse(WAIT);
            assertThat(unknown.isError()).isFalse();
            assertThat(unknown.result().path("success").asBoolean(true)).isFalse();
            assertThat(unknown.result().path("contentItems").get(0).path("text").asText())
                    .contains("no_such_tool");
        }
    }

    @Test
    void toolArgumentsThatDoNotBindAnswerSuccessFalse(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).experimentalApi(true)
                .tool(DynamicTool.of("add", "Adds", AddArgs.class, a -> ToolResult.text("" + (a.a() + a.b()))))
                .build()) {
            String threadId = client.startThread().id();
            ClientReply reply = fake.requestToolCall(threadId, TURN, "add", Map.of("a", Map.of("not", "a number")))
                    .awaitResponse(WAIT);
            assertThat(reply.isError()).isFalse();
            assertThat(reply.result().path("success").asBoolean(true)).isFalse();
            assertThat(reply.result().path("contentItems").get(0).path("text").asText()).contains("add");
            assertNoStackTrace(reply.raw().toString());
        }
    }

    @Test
    void requestWhoseParamsDoNotMatchTheSchemaGetsInvalidParams(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            ClientReply reply = fake.sendRequest("item/commandExecution/requestApproval",
                    Map.of("threadId", Map.of("nested", true), "turnId", List.of(1, 2))).awaitResponse(WAIT);
            assertThat(reply.errorCode()).hasValue(-32602);
            assertThat(reply.errorMessage()).hasValueSatisfying(m ->
                    assertThat(m).contains("item/commandExecution/requestApproval"));
            assertNoStackTrace(reply.raw().toString());
        }
    }

    @Test
    void dynamicToolCallInsideAScriptedTurn(FakeCodexAppServer fake) {
        List<JsonNode> replies = new CopyOnWriteArrayList<>();
        fake.onTurnStart(turn -> turn.toolCall("add", Map.of("a", 20, "b", 22), r -> replies.add(r.result()))
                .agentMessage("The answer is 42").completed());
        try (CodexClient client = inMemory(fake).experimentalApi(true)
                .tool(DynamicTool.of("add", "Adds", AddArgs.class, a -> ToolResult.text("" + (a.a() + a.b()))))
                .build()) {
            assertThat(client.startThread().startTurn("add").await(WAIT).finalText()).isEqualTo("The answer is 42");
            assertThat(replies).singleElement().satisfies(r -> {
                assertThat(r.path("success").asBoolean()).isTrue();
                assertThat(r.path("contentItems").get(0).path("text").asText()).isEqualTo("42");
            });
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static ObjectNode json() {
        return ProtocolJson.mapper().createObjectNode();
    }

    private static ObjectNode legacyExecParams(String threadId) {
        ObjectNode p = json().put("conversationId", threadId).put("callId", "exec-1").put("cwd", "/tmp")
                .putNull("reason").putNull("approvalId");
        p.putArray("command").add("rm").add("-rf").add("build");
        p.putArray("parsedCmd");
        return p;
    }

    private static ObjectNode legacyPatchParams(String threadId) {
        ObjectNode p = json().put("conversationId", threadId).put("callId", "patch-1").putNull("reason")
                .putNull("grantRoot");
        p.putObject("fileChanges").putObject("/tmp/notes.txt").put("type", "add").put("content", "hello\n");
        return p;
    }

    private static ObjectNode permissionsParams(String threadId) {
        ObjectNode p = json().put("threadId", threadId).put("turnId", TURN).put("itemId", "perm-1")
                .put("cwd", "/tmp").put("startedAtMs", System.currentTimeMillis()).put("reason", "needs network");
        p.putObject("permissions").putObject("network").put("enabled", true);
        return p;
    }

    private static int occurrences(String text, String needle) {
        int count = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) {
            count++;
        }
        return count;
    }

}

package dev.codexclient.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.testkit.internal.fake.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FakeCodexAppServerTest {
    private final FakeCodexAppServer fake = new FakeCodexAppServer();
    private RawClient client;

    /** A typed view, standing in for a generated protocol record. */
    record InitParams(Map<String, Object> clientInfo, Map<String, Object> capabilities) {
    }

    /** A typed tool result, as a client would send it. */
    record ToolResult(boolean success, List<Map<String, Object>> contentItems) {
    }

    @AfterEach
    void tearDown() {
        if (client != null) {
            client.close();
        }
        fake.close();
    }

    private RawClient connect() {
        client = RawClient.inMemory(fake);
        return client;
    }

    @Test
    void threadListPagesNewestFirstAndThreadReadReturnsTheTurnsAsCodexDoes() {
        RawClient c = connect();
        c.result("initialize", Map.of("clientInfo", Map.of("name", "raw", "version", "1")));
        c.notifyServer("initialized");
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            String id = c.result("thread/start", Map.of()).path("thread").path("id").asText();
            ids.add(id);
            c.result("turn/start", Json.parseUnchecked("{\"threadId\":\"" + id
                    + "\",\"input\":[{\"type\":\"text\",\"text\":\"question " + i + "\"}]}"));
            c.notification("turn/completed");
        }

        JsonNode first = c.result("thread/list", Map.of("limit", 2));
        assertThat(first.path("data")).extracting(t -> t.path("id").asText())
                .containsExactly(ids.get(2), ids.get(1));
        assertThat(first.path("data")).allSatisfy(t -> assertThat(t.path("turns")).isEmpty());
        assertThat(first.path("data").get(0).path("preview").asText()).isEqualTo("question 3");
        String cursor = first.path("nextCursor").asText();
        assertThat(cursor).isNotEmpty();
        JsonNode second = c.result("thread/list", Map.of("limit", 2, "cursor", cursor));
        assertThat(second.path("data")).extracting(t -> t.path("id").asText()).containsExactly(ids.get(0));
        assertThat(second.path("nextCursor").isNull()).isTrue();
        assertThat(c.result("thread/list", Map.of("sortDirection", "asc")).path("data"))
                .extracting(t -> t.path("id").asText()).containsExactlyElementsOf(ids);
        assertThat(c.call("thread/list", Map.of("cursor", "made-up")).path("error").path("message").asText())
                .contains("invalid cursor");

        JsonNode withTurns = c.result("thread/read", Map.of("threadId", ids.get(0), "includeTurns", true));
        JsonNode turns = withTurns.path("thread").path("turns");
        assertThat(turns).hasSize(1);
        assertThat(turns.get(0).path("status").asText()).isEqualTo("completed");
        assertThat(turns.get(0).path("items")).extracting(i -> i.path("type").asText())
                .containsExactly("userMessage", "agentMessage");
        assertThat(c.result("thread/read", Map.of("threadId", ids.get(0))).path("thread").path("turns")).isEmpty();
    }

    @Test
    void zeroScriptingRunsTheCommonFlow() {
        RawClient c = connect();
        JsonNode init = c.result("initialize", Json.parseUnchecked(
                "{\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"},\"capabilities\":{\"experimentalApi\":true}}"));
        assertThat(init.fieldNames()).toIterable()
                .contains("userAgent", "codexHome", "platformFamily", "platformOs");
        c.notifyServer("initialized");

        JsonNode thread = c.result("thread/start", Map.of("cwd", "/tmp/work", "sandbox", "read-only"));
        String threadId = thread.path("thread").path("id").asText();
        assertThat(fake.threadIds()).containsExactly(threadId);
        assertThat(thread.path("thread").path("cwd").asText()).isEqualTo("/tmp/work");
        assertThat(thread.path("sandbox").path("type").asText()).isEqualTo("readOnly");
        assertThat(thread.fieldNames()).toIterable().contains("approvalPolicy", "approvalsReviewer", "cwd",
                "model", "modelProvider", "sandbox", "thread");
        assertThat(c.notification("thread/started").path("params").path("thread").path("id").asText())
                .isEqualTo(threadId);

        JsonNode turn = c.result("turn/start", Json.parseUnchecked("{\"threadId\":\"" + threadId
                + "\",\"input\":[{\"type\":\"text\",\"text\":\"hi\",\"text_elements\":[]}]}")).path("turn");
        assertThat(turn.path("status").asText()).isEqualTo("inProgress");
        String turnId = turn.path("id").asText();

        JsonNode started = c.notification("turn/started");
        assertThat(started.path("params").path("turn").path("id").asText()).isEqualTo(turnId);
        JsonNode completed = c.notification("turn/completed");
        assertThat(completed.path("params").path("threadId").asText()).isEqualTo(threadId);
        JsonNode finalTurn = completed.path("params").path("turn");
        assertThat(finalTurn.path("status").asText()).isEqualTo("completed");
        assertThat(finalTurn.path("items")).extracting(i -> i.path("type").asText())
                .containsExactly("userMessage", "agentMessage");
        assertThat(finalTurn.path("items").get(0).path("content").get(0).path("text").asText()).isEqualTo("hi");
        assertThat(finalTurn.path("items").get(1).path("text").asText()).isEqualTo("Done.");
        assertThat(finalTurn.has("durationMs")).isTrue();

        // Every notification carries emittedAtMs, as codex's do.
        assertThat(c.all().stream().filter(m -> m.has("method") && !m.has("id")))
                .allSatisfy(m -> assertThat(m.path("emittedAtMs").isIntegralNumber()).isTrue());

        assertThat(fake.clientCapabilities()).hasValueSatisfying(
                caps -> assertThat(caps.path("experimentalApi").asBoolean()).isTrue());
        assertThat(fake.clientInfo()).hasValueSatisfying(i -> assertThat(i.path("name").asText()).isEqualTo("raw"));
        assertThat(fake.takeRequest(RawClient.WAIT).params(InitParams.class).clientInfo()).containsEntry("name",
                "raw");
        assertThat(fake.takeNotification(RawClient.WAIT).method()).isEqualTo("initialized");
        RecordedRequest threadStart = fake.takeRequest(RawClient.WAIT);
        assertThat(threadStart.method()).isEqualTo("thread/start");
        assertThat(threadStart.id()).isEqualTo(RequestId.of(2));
        assertThat(fake.takeRequest("turn/start", RawClient.WAIT).params().path("threadId").asText())
                .isEqualTo(threadId);
        assertThat(fake.requestCount()).isEqualTo(3);
        assertThat(fake.receivedMessages()).hasSize(4);
        assertThat(fake.threadIds()).containsExactly(threadId);
        fake.verifyNoFailures();
    }

    @Test
    void handshakeRulesOfCodex() {
        RawClient c = connect();
        JsonNode early = c.call("thread/start", Map.of());
        assertThat(early.path("error").path("code").asInt()).isEqualTo(-32600);
        assertThat(early.path("error").path("message").asText()).isEqualTo("Not initialized");
        c.initialize();
        JsonNode again = c.call("initialize", Map.of("clientInfo", Map.of("name", "x", "version", "1")));
        assertThat(again.path("error").path("message").asText()).isEqualTo("Already initialized");
        assertThat(c.call("no/such/method", Map.of()).path("error").path("code").asInt()).isEqualTo(-32601);
    }

    @Test
    void initializeCanBeRejectedThenDelayedAndCustomised() {
        fake.on("initialize").once().respondError(-32000, "no");
        fake.on("initialize").once().delay(Duration.ofMillis(200)).respondDefault();
        fake.initializeResult(Map.of("userAgent", "custom/1.0", "codexHome", "/h", "platformFamily", "unix",
                "platformOs", "linux"));
        RawClient c = connect();
        Map<String, Object> params = Map.of("clientInfo", Map.of("name", "x", "version", "1"));
        assertThat(c.call("initialize", params).path("error").path("message").asText()).isEqualTo("no");
        // A rejected initialize leaves the connection uninitialised.
        assertThat(c.call("thread/start", Map.of()).path("error").path("message").asText())
                .isEqualTo("Not initialized");
        long t0 = System.nanoTime();
        JsonNode ok = c.result("initialize", params);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(180));
        assertThat(ok.path("userAgent").asText()).isEqualTo("custom/1.0");
    }

    @Test
    void rulesMatchInOrderWithCounts() {
        fake.on("model/list").times(2).respond(Map.of("data", List.of("first")));
        fake.on("model/list").once().respondError(-32001, "busy", Map.of("retryAfterMs", 5));
        fake.on("model/list").respondWith(req -> Map.of("data", List.of("echo:" + req.id())));
        fake.on("config/read", req -> req.params().path("cwd").asText().equals("/a")).respond(Map.of("config", 1));
        fake.on(req -> req.method().startsWith("x/")).respondWith(
                req -> Reply.error(-32099, "computed " + req.method()));
        fake.on("boom").respondWith(req -> {
            throw new IllegalStateException("scripted failure");
        });
        fake.on("silent").noReply();
        RawClient c = connect();
        c.initialize();
        assertThat(c.result("model/list", Map.of()).path("data").get(0).asText()).isEqualTo("first");
        assertThat(c.result("model/list", Map.of()).path("data").get(0).asText()).isEqualTo("first");
        JsonNode busy = c.call("model/list", Map.of()).path("error");
        assertThat(busy.path("code").asInt()).isEqualTo(-32001);
        assertThat(busy.path("data").path("retryAfterMs").asInt()).isEqualTo(5);
        long id = c.request("model/list", Map.of());
        assertThat(c.response(id).path("result").path("data").get(0).asText()).isEqualTo("echo:" + id);
        assertThat(c.result("config/read", Map.of("cwd", "/a")).path("config").asInt()).isEqualTo(1);
        assertThat(c.call("config/read", Map.of("cwd", "/b")).path("error").path("code").asInt()).isEqualTo(-32601);
        assertThat(c.call("x/y", Map.of()).path("error").path("message").asText()).isEqualTo("computed x/y");
        assertThat(c.call("boom", Map.of()).path("error").path("code").asInt()).isEqualTo(-32603);
        long silent = c.request("silent", Map.of());
        assertThat(c.poll(m -> m.path("id").asLong() == silent, Duration.ofMillis(150))).isEmpty();
        assertThat(fake.takeRequest("silent", RawClient.WAIT).id()).isEqualTo(RequestId.of(silent));
        c.sendRaw("{\"id\":77,\"method\":\"silent\"}");
        RecordedRequest noParams = fake.takeRequest("silent", RawClient.WAIT);
        assertThat(noParams.params().isMissingNode()).isTrue();
        assertThatThrownBy(() -> noParams.params(InitParams.class)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no value");

        assertThat(fake.failures()).singleElement().satisfies(
                t -> assertThat(t).hasMessage("scripted failure"));
        assertThatThrownBy(fake::verifyNoFailures).isInstanceOf(AssertionError.class);
    }

    @Test
    void stringIdsAreEchoedWithTheirType() {
        RawClient c = connect();
        c.initialize();
        c.sendRaw("{\"id\":\"abc\",\"method\":\"thread/start\",\"params\":{}}");
        JsonNode r = c.take(m -> m.path("id").isTextual(), "string id response");
        assertThat(r.path("id").asText()).isEqualTo("abc");
        assertThat(fake.takeRequest("thread/start", RawClient.WAIT).id()).isEqualTo(RequestId.of("abc"));
    }

    @Test
    void scriptedTurnEmitsEveryKindOfEventWithConsistentIds() {
        fake.onTurnStart(turn -> turn
                .reasoning("Thinking about it")
                .agentMessageDeltas("Hel", "lo ", "wörld")
                .commandExecution("ls", "a\nb\n", 0)
                .commandExecution("false", "", 1)
                .fileChange("src/A.java", "@@ -1 +1 @@\n-a\n+b\n")
                .planUpdate("because", TurnScript.PlanStep.completed("read"), TurnScript.PlanStep.pending("write"))
                .diffUpdate("diff --git a/x b/x")
                .tokenUsage(100, 10, 20, 5)
                .completed());
        RawClient c = connect();
        c.initialize();
        String threadId = c.startThread();
        String turnId = c.result("turn/start", Map.of("threadId", threadId, "input", List.of()))
                .path("turn").path("id").asText();
        JsonNode done = c.notification("turn/completed");
        assertThat(done.path("params").path("turn").path("status").asText()).isEqualTo("completed");

        List<JsonNode> events = c.all().stream().filter(m -> m.path("params").has("turnId")).toList();
        assertThat(events).allSatisfy(m -> {
            assertThat(m.path("params").path("threadId").asText()).isEqualTo(threadId);
            assertThat(m.path("params").path("turnId").asText()).isEqualTo(turnId);
        });
        String deltas = String.join("", c.all("item/agentMessage/delta").stream()
                .map(m -> m.path("params").path("delta").asText()).toList());
        assertThat(deltas).isEqualTo("Hello wörld");
        List<JsonNode> completedItems = c.all("item/completed").stream().map(m -> m.path("params").path("item"))
                .toList();
        assertThat(completedItems).extracting(i -> i.path("type").asText()).containsExactly("userMessage",
                "reasoning", "agentMessage", "commandExecution", "commandExecution", "fileChange");
        assertThat(completedItems.get(2).path("text").asText()).isEqualTo("Hello wörld");
        assertThat(completedItems.get(3).path("status").asText()).isEqualTo("completed");
        assertThat(completedItems.get(3).path("aggregatedOutput").asText()).isEqualTo("a\nb\n");
        assertThat(completedItems.get(4).path("status").asText()).isEqualTo("failed");
        assertThat(completedItems.get(4).path("exitCode").asInt()).isEqualTo(1);
        assertThat(completedItems.get(5).path("changes").get(0).path("kind").path("type").asText())
                .isEqualTo("update");
        // item/started and item/completed pair up by id
        assertThat(c.all("item/started")).extracting(m -> m.path("params").path("item").path("id").asText())
                .containsExactlyElementsOf(completedItems.stream().map(i -> i.path("id").asText()).toList());
        assertThat(c.all("item/commandExecution/outputDelta")).extracting(m -> m.path("params").path("delta")
                .asText()).containsExactly("a\n", "b\n");
        assertThat(c.all("item/reasoning/summaryTextDelta")).isNotEmpty();
        assertThat(c.all("turn/plan/updated").get(0).path("params").path("plan").get(1).path("status").asText())
                .isEqualTo("pending");
        assertThat(c.all("turn/diff/updated").get(0).path("params").path("diff").asText())
                .startsWith("diff --git");
        JsonNode usage = c.all("thread/tokenUsage/updated").get(0).path("params").path("tokenUsage");
        assertThat(usage.path("last").path("inputTokens").asLong()).isEqualTo(100);
        assertThat(usage.path("total").path("totalTokens").asLong()).isEqualTo(120);
        assertThat(done.path("params").path("turn").path("items")).hasSize(6);
    }

    @Test
    void tokenTotalsAccumulateAndTurnsCanFailOrBeInterruptedByScript() {
        fake.enqueueTurn(turn -> turn.tokenUsage(10, 1).failed("Quota exceeded", "usageLimitExceeded"));
        fake.enqueueTurn(turn -> turn.tokenUsage(5, 2).interrupted());
        RawClient c = connect();
        c.initialize();
        String threadId = c.startThread();
        c.result("turn/start", Map.of("threadId", threadId, "input", List.of()));
        JsonNode failed = c.notification("turn/completed").path("params").path("turn");
        assertThat(failed.path("status").asText()).isEqualTo("failed");
        assertThat(failed.path("error").path("message").asText()).isEqualTo("Quota exceeded");
        assertThat(failed.path("error").path("codexErrorInfo").asText()).isEqualTo("usageLimitExceeded");
        assertThat(c.notification("error").path("params").path("willRetry").asBoolean()).isFalse();
        c.result("turn/start", Map.of("threadId", threadId, "input", List.of()));
        assertThat(c.notification("turn/completed").path("params").path("turn").path("status").asText())
                .isEqualTo("interrupted");
        List<JsonNode> usage = c.all("thread/tokenUsage/updated");
        assertThat(usage.get(1).path("params").path("tokenUsage").path("total").path("totalTokens").asLong())
                .isEqualTo(18);
        // the queue is used up: the default turn plays again
        c.result("turn/start", Map.of("threadId", threadId, "input", List.of()));
        assertThat(c.notification("turn/completed").path("params").path("turn").path("status").asText())
                .isEqualTo("completed");
        assertThat(c.call("turn/start", Map.of("threadId", "nope", "input", List.of())).path("error")
                .path("message").asText()).contains("thread not found");
    }

    @Test
    void aTurnCanDependOnItsRequest() {
        fake.onTurnStart((request, turn) -> turn.agentMessage(
                "echo: " + request.params().path("input").get(0).path("text").asText()));
        RawClient c = connect();
        c.initialize();
        String threadId = c.startThread();
        c.result("turn/start", Json.parseUnchecked("{\"threadId\":\"" + threadId
                + "\",\"input\":[{\"type\":\"text\",\"text\":\"ping\",\"text_elements\":[]}]}"));
        JsonNode items = c.notification("turn/completed").path("params").path("turn").path("items");
        assertThat(items.get(1).path("text").asText()).isEqualTo("echo: ping");
    }

    @Test
    void turnInterruptCompletesAnInFlightTurnAsInterrupted() {
        fake.onTurnStart(turn -> turn.agentMessage("working").pause(Duration.ofSeconds(30)).agentMessage("never"));
        RawClient c = connect();
        c.initialize();
        String threadId = c.startThread();
        String turnId = c.result("turn/start", Map.of("threadId", threadId, "input", List.of()))
                .path("turn").path("id").asText();
        c.take(m -> m.path("method").asText().equals("item/completed")
                && m.path("params").path("item").path("type").asText().equals("agentMessage"), "agent message");
        JsonNode steer = c.result("turn/steer", Map.of("threadId", threadId, "expectedTurnId", turnId,
                "input", List.of()));
        assertThat(steer.path("turnId").asText()).isEqualTo(turnId);
        c.result("turn/interrupt", Map.of("threadId", threadId, "turnId", turnId));
        // The turn pauses for 30 s: turn/completed within the client's wait shows the interrupt cut it short.
        JsonNode turn = c.notification("turn/completed").path("params").path("turn");
        assertThat(turn.path("status").asText()).isEqualTo("interrupted");
        assertThat(turn.path("items")).extracting(i -> i.path("text").asText("")).doesNotContain("never");
        assertThat(c.notification("thread/status/changed").path("params").path("status").path("type").asText())
                .isEqualTo("active");
    }

    @Test
    void approvalMidTurnWaitsForTheReplyAndContinues() {
        fake.onTurnStart(turn -> turn
                .agentMessage("Deleting…")
                .commandApproval("rm -rf /", reply -> assertThat(reply.decision()).contains("decline"))
                .fileChangeApproval("a.txt", "+x", reply -> assertThat(reply.decision()).contains("accept"))
                .agentMessage("ok")
                .completed());
        RawClient c = connect();
        c.initialize();
        String threadId = c.startThread();
        c.result("turn/start", Map.of("threadId", threadId, "input", List.of()));

        JsonNode approval = c.serverRequest("item/commandExecution/requestApproval");
        assertThat(approval.path("id").asLong()).isZero();
        JsonNode params = approval.path("params");
        assertThat(params.path("command").asText()).isEqualTo("rm -rf /");
        assertThat(params.path("threadId").asText()).isEqualTo(threadId);
        assertThat(params.path("availableDecisions")).isNotEmpty();
        JsonNode waiting = c.take(m -> m.path("method").asText().equals("thread/status/changed")
                && m.path("params").path("status").path("activeFlags").toString().contains("waitingOnApproval"),
                "waiting status");
        assertThat(waiting).isNotNull();
        // nothing else of the turn happens before the reply
        assertThat(c.poll(m -> m.path("method").asText().equals("turn/completed"), Duration.ofMillis(100)))
                .isEmpty();
        c.send(Json.parseUnchecked("{\"id\":0,\"result\":{\"decision\":\"decline\"}}"));
        JsonNode resolved = c.notification("serverRequest/resolved").path("params");
        assertThat(resolved.path("requestId").asLong()).isZero();
        assertThat(resolved.path("threadId").asText()).isEqualTo(threadId);

        JsonNode fileApproval = c.serverRequest("item/fileChange/requestApproval");
        assertThat(fileApproval.path("id").asLong()).isEqualTo(1);
        c.send(Json.parseUnchecked("{\"id\":1,\"result\":{\"decision\":\"accept\"}}"));
        JsonNode turn = c.notification("turn/completed").path("params").path("turn");
        assertThat(turn.path("status").asText()).isEqualTo("completed");
        assertThat(turn.path("items")).filteredOn(i -> i.path("type").asText().equals("commandExecution"))
                .singleElement().satisfies(i -> assertThat(i.path("status").asText()).isEqualTo("declined"));
        assertThat(turn.path("items")).filteredOn(i -> i.path("type").asText().equals("fileChange"))
                .singleElement().satisfies(i -> assertThat(i.path("status").asText()).isEqualTo("completed"));
        fake.verifyNoFailures();
    }

    @Test
    void aFailedAssertionInAReplyCallbackIsReported() {
        fake.serverRequestTimeout(Duration.ofMillis(300));
        fake.onTurnStart(turn -> turn
                .toolCall("lookup", Map.of("id", 1), reply -> assertThat(reply.isError()).isFalse())
                .userInput("q1", "Which?", reply -> { })
                .completed());
        RawClient c = connect();
        c.initialize();
        String threadId = c.startThread();
        c.result("turn/start", Map.of("threadId", threadId, "input", List.of()));
        JsonNode call = c.serverRequest("item/tool/call");
        assertThat(call.path("params").path("arguments").path("id").asInt()).isEqualTo(1);
        c.send(Json.parseUnchecked("{\"id\":0,\"error\":{\"code\":-32601,\"message\":\"unknown tool\"}}"));
        // the user-input question is never answered: the turn goes on after the timeout
        assertThat(c.serverRequest("item/tool/requestUserInput").path("params").path("questions").get(0)
                .path("id").asText()).isEqualTo("q1");
        assertThat(c.notification("turn/completed").path("params").path("turn").path("status").asText())
                .isEqualTo("completed");
        assertThat(fake.failures()).hasSize(2);
        assertThat(fake.failures().get(1)).hasMessageContaining("did not answer item/tool/requestUserInput");
    }

    @Test
    void serverRequestsFromTheTestThread() {
        RawClient c = connect();
        c.initialize();
        PendingServerRequest tool = fake.requestToolCall("t1", "u1", "lookup", Map.of("q", "x"));
        PendingServerRequest cmd = fake.requestCommandApproval("t1", "u1", "rm -rf /");
        PendingServerRequest file = fake.requestFileChangeApproval("t1", "u1", "writes a.txt");
        PendingServerRequest input = fake.requestUserInput("t1", "u1", "q", "Why?");
        PendingServerRequest elicit = fake.requestElicitation("t1", "srv", "Give a name",
                Map.of("type", "object", "properties", Map.of()));
        PendingServerRequest refresh = fake.requestChatgptTokenRefresh();
        assertThat(List.of(tool, cmd, file, input, elicit, refresh)).extracting(PendingServerRequest::id)
                .containsExactly(RequestId.of(0), RequestId.of(1), RequestId.of(2), RequestId.of(3),
                        RequestId.of(4), RequestId.of(5));
        assertThat(c.serverRequest("mcpServer/elicitation/request").path("params").path("mode").asText())
                .isEqualTo("form");
        assertThat(c.serverRequest("account/chatgptAuthTokens/refresh").path("params").path("reason").asText())
                .isEqualTo("unauthorized");
        assertThat(c.serverRequest("item/commandExecution/requestApproval").path("params")
                .path("availableDecisions").get(1).has("acceptWithExecpolicyAmendment")).isTrue();

        assertThat(tool.response()).isEmpty();
        c.send(Json.parseUnchecked("{\"id\":0,\"result\":{\"success\":true,\"contentItems\":"
                + "[{\"type\":\"inputText\",\"text\":\"open\"}]}}"));
        ClientReply reply = tool.awaitResponse(RawClient.WAIT);
        assertThat(reply.result(ToolResult.class).success()).isTrue();
        assertThat(reply.result(ToolResult.class).contentItems().get(0)).containsEntry("text", "open");
        assertThat(tool.isAnswered()).isTrue();
        tool.resolve();
        JsonNode resolved = c.notification("serverRequest/resolved").path("params");
        assertThat(resolved.path("threadId").asText()).isEqualTo("t1");
        assertThat(resolved.path("requestId").asInt()).isZero();

        c.send(Json.parseUnchecked("{\"id\":1,\"error\":{\"code\":-32000,\"message\":\"no\"}}"));
        ClientReply error = cmd.awaitResponse(RawClient.WAIT);
        assertThat(error.isError()).isTrue();
        assertThat(error.errorCode()).hasValue(-32000);
        assertThat(error.errorMessage()).contains("no");
        assertThatThrownBy(() -> error.result(ToolResult.class)).isInstanceOf(AssertionError.class);
        assertThatThrownBy(() -> file.awaitResponse(Duration.ofMillis(50))).isInstanceOf(AssertionError.class)
                .hasMessageContaining("did not answer");
    }

    @Test
    void notificationsAtAnyTimeAndTakeTimeouts() {
        RawClient c = connect();
        fake.notify("configWarning", Map.of("summary", "bubblewrap missing"));
        assertThat(c.notification("configWarning").path("params").path("summary").asText())
                .isEqualTo("bubblewrap missing");
        assertThatThrownBy(() -> fake.takeRequest(Duration.ofMillis(50))).isInstanceOf(AssertionError.class);
        assertThat(fake.pollRequest(Duration.ofMillis(10))).isEmpty();
        assertThatThrownBy(() -> fake.takeNotification(Duration.ofMillis(10))).isInstanceOf(AssertionError.class);
        assertThat(fake.sentMessages()).extracting(m -> m.path("method").asText()).contains("configWarning");
    }

    @Test
    void notifyWithoutAClientIsAClearError() {
        assertThatThrownBy(() -> fake.notify("x", Map.of())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no client");
    }
}

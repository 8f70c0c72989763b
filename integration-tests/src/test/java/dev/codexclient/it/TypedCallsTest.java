package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.failureOf;
import static dev.codexclient.it.ClientTestSupport.get;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static dev.codexclient.it.ClientTestSupport.pendingRequests;
import static dev.codexclient.it.ClientTestSupport.withClock;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ClientProbe;
import dev.codexclient.CodexClient;
import dev.codexclient.RetryPolicy;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexOverloadedException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.protocol.GetAccountRateLimitsResponse;
import dev.codexclient.protocol.ModelListParams;
import dev.codexclient.protocol.ModelListResponse;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.Fault;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.RecordedRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The generated typed facade ({@code client.rpc()}): params, results, timeouts, experimental gating, overloads. */
@ExtendWith(CodexTestExtension.class)
class TypedCallsTest {

    @Test
    void typedCallSendsItsParamsAndDecodesTheResult(FakeCodexAppServer fake) {
        fake.on("model/list").respond(Map.of("data", List.of(), "nextCursor", "page-2"));
        try (CodexClient client = inMemory(fake).build()) {
            ModelListResponse r = get(client.rpc().modelList(ModelListParams.builder().limit(5L)
                    .includeHidden(true).build()));
            assertThat(r.nextCursor()).isEqualTo("page-2");
            assertThat(r.data()).isEmpty();
            RecordedRequest sent = fake.takeRequest("model/list", Duration.ofSeconds(5));
            assertThat(sent.params().path("limit").asLong()).isEqualTo(5);
            assertThat(sent.params().path("includeHidden").asBoolean()).isTrue();
            // Unset optional params stay absent rather than being sent as null.
            assertThat(sent.params().has("cursor")).isFalse();
            assertThat(sent.raw().has("jsonrpc")).isFalse();
        }
    }

    @Test
    void theTypedThreadAndTurnStartsSendWhatTheyAreGivenAndNothingMore(FakeCodexAppServer fake) throws Exception {
        fake.onTurnStart(t -> t.agentMessage("working").neverComplete());
        CompletableFuture<String> completed = new CompletableFuture<>();
        try (CodexClient client = inMemory(fake).experimentalApi(true)
                .tool(dev.codexclient.DynamicTool.ofJson("lookup", "Looks up", com.fasterxml.jackson.databind.node
                        .JsonNodeFactory.instance.objectNode().put("type", "object"),
                        args -> dev.codexclient.ToolResult.text("x")))
                .onNotification(n -> {
                    if (n.method().equals("item/completed")) {
                        completed.complete(n.method());
                    }
                })
                .build()) {
            String threadId = get(client.rpc().threadStart(dev.codexclient.protocol.ThreadStartParams.builder()
                    .build())).thread().id();
            // The client's tools are declared by startThread only.
            assertThat(fake.takeRequest("thread/start", Duration.ofSeconds(5)).params().has("dynamicTools"))
                    .isFalse();
            get(client.rpc().turnStart(dev.codexclient.protocol.TurnStartParams.builder().threadId(threadId)
                    .input(List.of(dev.codexclient.Inputs.text("go"))).build()));
            // Its events reach the client's notification listeners; while it runs, no turn of the client's holds the
            // thread.
            assertThat(get(completed)).isEqualTo("item/completed");
            assertThat(client.thread(threadId)).isEmpty();
            assertThat(ClientProbe.heldThreads(client)).isZero();
            assertThat(client.startThread().id()).isNotEqualTo(threadId);
            assertThat(fake.takeRequest("thread/start", Duration.ofSeconds(5)).params().has("dynamicTools")).isTrue();
        }
    }

    @Test
    void methodWithoutParamsOmitsTheParamsMember(FakeCodexAppServer fake) {
        fake.on("account/logout").respond(Map.of());
        try (CodexClient client = inMemory(fake).build()) {
            assertThat(get(client.rpc().accountLogout())).isNotNull();
            RecordedRequest sent = fake.takeRequest("account/logout", Duration.ofSeconds(5));
            assertThat(sent.raw().has("params")).isFalse();
        }
    }

    @Test
    void optionalParamsMayBeLeftOut(FakeCodexAppServer fake) {
        Map<String, Object> limits = new HashMap<>();
        limits.put("accountId", "acct-1");
        limits.put("rateLimits", null);
        fake.on("account/rateLimits/read").respond(limits);
        try (CodexClient client = inMemory(fake).build()) {
            GetAccountRateLimitsResponse r = get(client.rpc().accountRateLimitsRead());
            assertThat(r.accountId()).isEqualTo("acct-1");
            assertThat(fake.takeRequest("account/rateLimits/read", Duration.ofSeconds(5)).raw().has("params"))
                    .isFalse();
        }
    }

    @Test
    void serverErrorIsATypedRpcException(FakeCodexAppServer fake) {
        fake.on("model/list").respondError(-32602, "limit must be positive", Map.of("field", "limit"));
        try (CodexClient client = inMemory(fake).build()) {
            Throwable failure = failureOf(client.rpc().modelList(ModelListParams.builder().limit(-1L).build()),
                    Duration.ofSeconds(5));
            assertThat(failure).isInstanceOfSatisfying(CodexRpcException.class, e -> {
                assertThat(e.method()).hasValue("model/list");
                assertThat(e.code()).isEqualTo(-32602);
                assertThat(e.serverMessage()).isEqualTo("limit must be positive");
                assertThat(e.data()).hasValueSatisfying(d -> assertThat(d.path("field").asText()).isEqualTo("limit"));
            });
            assertThat(pendingRequests(client)).isZero();
        }
    }

    @Test
    void perCallTimeoutNamesMethodAndIdAndForgetsTheRequest(FakeCodexAppServer fake) {
        fake.on("model/list").once().noReply();
        ManualScheduler clock = new ManualScheduler();
        try (CodexClient client = withClock(inMemory(fake), clock).build()) {
            CompletableFuture<ModelListResponse> call = client.rpc().withTimeout(Duration.ofMillis(200))
                    .modelList(ModelListParams.builder().build());
            RecordedRequest sent = fake.takeRequest("model/list", Duration.ofSeconds(5));
            clock.advance(Duration.ofMillis(199));
            assertThat(call).isNotDone();
            clock.advance(Duration.ofMillis(1));
            Throwable failure = failureOf(call, Duration.ofSeconds(5));
            assertThat(failure).isInstanceOfSatisfying(CodexTimeoutException.class, e -> {
                assertThat(e.method()).isEqualTo("model/list");
                assertThat(e.requestId()).hasValue(sent.id().toString());
                assertThat(e.timeout()).isEqualTo(Duration.ofMillis(200));
                assertThat(e.getMessage()).contains("model/list").contains(sent.id().toString());
            });
            assertThat(pendingRequests(client)).isZero();
            // The response arrives after the caller gave up: it is ignored, and the connection keeps working.
            fake.apply(Fault.garbageLine("{\"id\":" + sent.id() + ",\"result\":{\"data\":[]}}"));
            fake.on("model/list").respond(Map.of("data", List.of(), "nextCursor", "after"));
            assertThat(get(client.rpc().modelList(ModelListParams.builder().build())).nextCursor())
                    .isEqualTo("after");
            assertThat(client.rpc().timeout()).isEqualTo(Duration.ofSeconds(10));
        }
    }

    @Test
    void experimentalMethodWithoutOptInFailsFastAndSendsNothing(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            CompletableFuture<?> call = client.rpc().memoryReset();
            assertThat(call).isCompletedExceptionally();
            Throwable failure = failureOf(call, Duration.ofSeconds(1));
            assertThat(failure).isInstanceOf(CodexException.class)
                    .hasMessageContaining("memory/reset")
                    .hasMessageContaining("experimental")
                    .hasMessageContaining("experimentalApi(true)");
            // A request sent after it is the first one after the handshake: nothing went out for memory/reset.
            client.listThreads().iterator().hasNext();
            assertThat(fake.requests()).extracting(RecordedRequest::method)
                    .containsExactly("initialize", "thread/list");
        }
    }

    @Test
    void experimentalMethodIsSentWhenOptedIn(FakeCodexAppServer fake) {
        fake.on("memory/reset").respond(Map.of());
        try (CodexClient client = inMemory(fake).experimentalApi(true).build()) {
            assertThat(get(client.rpc().memoryReset())).isNotNull();
            assertThat(fake.takeRequest("memory/reset", Duration.ofSeconds(5)).raw().has("params")).isFalse();
        }
    }

    @Test
    void overloadIsRetriedUntilItSucceeds(FakeCodexAppServer fake) {
        fake.on("model/list").respond(Map.of("data", List.of(), "nextCursor", "ok"));
        fake.apply(Fault.overloaded("model/list", 2));
        try (CodexClient client = inMemory(fake)
                .retryPolicy(new RetryPolicy(5, Duration.ofMillis(5), Duration.ofMillis(20), Duration.ofSeconds(5)))
                .build()) {
            assertThat(get(client.rpc().modelList(ModelListParams.builder().build())).nextCursor())
                    .isEqualTo("ok");
            List<RecordedRequest> attempts = fake.requests().stream()
                    .filter(r -> r.method().equals("model/list")).toList();
            assertThat(attempts).hasSize(3);
            // Each attempt is a new request with its own id.
            assertThat(attempts).extracting(RecordedRequest::id).doesNotHaveDuplicates();
            assertThat(pendingRequests(client)).isZero();
        }
    }

    @Test
    void exhaustedOverloadRetriesEndInOverloadedException(FakeCodexAppServer fake) {
        fake.apply(Fault.overloaded("model/list", 100));
        try (CodexClient client = inMemory(fake)
                .retryPolicy(new RetryPolicy(3, Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofSeconds(5)))
                .build()) {
            Throwable failure = failureOf(client.rpc().modelList(ModelListParams.builder().build()),
                    Duration.ofSeconds(5));
            assertThat(failure).isInstanceOfSatisfying(CodexOverloadedException.class, e -> {
                assertThat(e.attempts()).isEqualTo(3);
                assertThat(e.code()).isEqualTo(-32001);
                assertThat(e.method()).hasValue("model/list");
                assertThat(e.serverMessage()).isEqualTo("Server overloaded; retry later.");
            });
            assertThat(fake.requests().stream().filter(r -> r.method().equals("model/list"))).hasSize(3);
            assertThat(pendingRequests(client)).isZero();
        }
    }

    @Test
    void overloadIsNotRetriedWithoutARetryPolicy(FakeCodexAppServer fake) {
        fake.apply(Fault.overloaded("model/list", 100));
        try (CodexClient client = inMemory(fake).retryPolicy(RetryPolicy.none()).build()) {
            Throwable failure = failureOf(client.rpc().modelList(ModelListParams.builder().build()),
                    Duration.ofSeconds(5));
            assertThat(failure).isInstanceOfSatisfying(CodexOverloadedException.class,
                    e -> assertThat(e.attempts()).isEqualTo(1));
        }
    }
}

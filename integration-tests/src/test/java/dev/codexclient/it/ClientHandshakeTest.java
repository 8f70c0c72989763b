package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexProtocolException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The {@code initialize} / {@code initialized} handshake, as the fake app-server sees it. */
@ExtendWith(CodexTestExtension.class)
class ClientHandshakeTest {

    @Test
    void sendsClientInfoAndCapabilitiesAsConfigured(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake)
                .clientInfo("acme-bot", "Acme Bot", "1.4.2")
                .experimentalApi(true)
                .optOutNotifications("item/reasoning/summaryTextDelta", "thread/started")
                .build()) {
            assertThat(client.isClosed()).isFalse();
            JsonNode info = fake.clientInfo().orElseThrow();
            assertThat(info.path("name").asText()).isEqualTo("acme-bot");
            assertThat(info.path("title").asText()).isEqualTo("Acme Bot");
            assertThat(info.path("version").asText()).isEqualTo("1.4.2");
            JsonNode caps = fake.clientCapabilities().orElseThrow();
            assertThat(caps.path("experimentalApi").isBoolean()).isTrue();
            assertThat(caps.path("experimentalApi").asBoolean()).isTrue();
            assertThat(caps.path("optOutNotificationMethods").isArray()).isTrue();
            assertThat(caps.path("optOutNotificationMethods")).extracting(JsonNode::asText)
                    .containsExactly("item/reasoning/summaryTextDelta", "thread/started");
        }
    }

    @Test
    void defaultCapabilitiesDoNotOptIntoExperimentalApi(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            JsonNode caps = fake.clientCapabilities().orElseThrow();
            assertThat(caps.path("experimentalApi").asBoolean(true)).isFalse();
            assertThat(caps.has("optOutNotificationMethods")).isFalse();
            assertThat(fake.clientInfo().orElseThrow().path("name").asText()).isNotBlank();
        }
    }

    @Test
    void initializeIsSentFirstAndInitializedSecond(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            client.startThread();
            List<JsonNode> received = fake.receivedMessages();
            assertThat(received).hasSizeGreaterThanOrEqualTo(3);
            assertThat(received.get(0).path("method").asText()).isEqualTo("initialize");
            assertThat(received.get(0).has("id")).isTrue();
            assertThat(received.get(1).path("method").asText()).isEqualTo("initialized");
            assertThat(received.get(1).has("id")).isFalse();
            assertThat(received.get(2).path("method").asText()).isEqualTo("thread/start");
            // No message of this protocol carries a "jsonrpc" member.
            assertThat(received).noneMatch(m -> m.has("jsonrpc"));
        }
    }

    @Test
    void serverInfoReflectsTheInitializeResult(FakeCodexAppServer fake) {
        fake.initializeResult(Map.of("userAgent", "codex_cli_rs/0.169.0 (Linux 6.1; x86_64) acme-bot",
                "codexHome", "/home/acme/.codex", "platformFamily", "unix", "platformOs", "linux"));
        try (CodexClient client = inMemory(fake).build()) {
            assertThat(client.serverInfo().userAgent()).hasValue("codex_cli_rs/0.169.0 (Linux 6.1; x86_64) acme-bot");
            assertThat(client.serverInfo().codexHome()).contains("/home/acme/.codex");
            assertThat(client.serverInfo().platformFamily()).contains("unix");
            assertThat(client.serverInfo().platformOs()).contains("linux");
        }
    }

    @Test
    void serverInfoOfAnOlderServerHasOnlyTheUserAgent(FakeCodexAppServer fake) {
        fake.initializeResult(Map.of("userAgent", "codex_cli_rs/0.100.0", "platformOs", NullNode.getInstance()));
        try (CodexClient client = inMemory(fake).build()) {
            assertThat(client.serverInfo().userAgent()).hasValue("codex_cli_rs/0.100.0");
            assertThat(client.serverInfo().codexHome()).isEmpty();
            assertThat(client.serverInfo().platformFamily()).isEmpty();
            assertThat(client.serverInfo().platformOs()).isEmpty();
        }
    }

    @Test
    void anInitializeResultOfTheWrongShapeFailsTheBuildWithAProtocolError(FakeCodexAppServer fake) {
        fake.initializeResult(Map.of("userAgent", Map.of("name", "codex")));
        assertThatThrownBy(() -> inMemory(fake).build()).isInstanceOf(CodexProtocolException.class)
                .hasMessageContaining("userAgent");
        fake.initializeResult(List.of("codex"));
        assertThatThrownBy(() -> inMemory(fake).build()).isInstanceOf(CodexProtocolException.class)
                .hasMessageContaining("not an object");
    }

    @Test
    void notificationsSentBeforeInitializedReachBuilderListeners(FakeCodexAppServer fake) {
        // The server talks before it answers initialize (and so before the client sends initialized).
        fake.on("initialize").once().respondWith(request -> {
            fake.notify("warning", Map.of("message", "early bird"));
            fake.notify("configWarning", Map.of("summary", "a config warning", "details", "line 3"));
            return Map.of("userAgent", "codex_fake/0.169.0", "codexHome", "/tmp/h", "platformFamily", "unix",
                    "platformOs", "linux");
        });
        List<ServerNotification> seen = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake).onNotification(seen::add).build()) {
            awaitCondition("both early notifications", () -> seen.size() >= 2);
            assertThat(seen.get(0)).isInstanceOfSatisfying(ServerNotification.Warning.class,
                    w -> assertThat(w.params().message()).isEqualTo("early bird"));
            assertThat(seen.get(1).method()).isEqualTo("configWarning");
            assertThat(client.serverInfo().userAgent()).hasValue("codex_fake/0.169.0");
        }
    }

    @Test
    void apiKeyLogsInRightAfterTheHandshake(FakeCodexAppServer fake) {
        fake.on("account/login/start").respond(Map.of("type", "apiKey"));
        try (CodexClient client = inMemory(fake).apiKey("sk-test-0123456789abcdef").build()) {
            List<JsonNode> received = fake.receivedMessages();
            assertThat(received.get(1).path("method").asText()).isEqualTo("initialized");
            assertThat(received.get(2).path("method").asText()).isEqualTo("account/login/start");
            JsonNode params = received.get(2).path("params");
            assertThat(params.path("type").asText()).isEqualTo("apiKey");
            assertThat(params.path("apiKey").asText()).isEqualTo("sk-test-0123456789abcdef");
        }
    }

    @Test
    void chatgptTokensLogInRightAfterTheHandshakeAndRefreshThroughTheHandler(FakeCodexAppServer fake) {
        fake.on("account/login/start").respond(Map.of("type", "chatgptAuthTokens"));
        try (CodexClient client = inMemory(fake)
                .chatgptAuthTokens("tok-initial-0123456789", "acct-1", null)
                .chatgptTokenRefresh(req -> java.util.concurrent.CompletableFuture.completedFuture(
                        dev.codexclient.protocol.ChatgptAuthTokensRefreshResponse.builder()
                                .accessToken("tok-refreshed-0123456789").chatgptAccountId("acct-1").build()))
                .build()) {
            JsonNode params = fake.receivedMessages().get(2).path("params");
            assertThat(params.path("type").asText()).isEqualTo("chatgptAuthTokens");
            assertThat(params.path("accessToken").asText()).isEqualTo("tok-initial-0123456789");
            assertThat(params.path("chatgptAccountId").asText()).isEqualTo("acct-1");
            assertThat(params.has("chatgptPlanType")).isFalse();

            var refresh = fake.requestChatgptTokenRefresh();
            assertThat(refresh.awaitResponse(java.time.Duration.ofSeconds(5)).result().path("accessToken").asText())
                    .isEqualTo("tok-refreshed-0123456789");
        }
    }

    @Test
    void rejectedLoginFailsTheBuildWithoutRevealingTheKey(FakeCodexAppServer fake) {
        String key = "sk-test-secret-9876543210";
        // The server echoes the key in its message and, structured, in the error's data.
        fake.on("account/login/start").respondError(-32600, "invalid API key " + key,
                Map.of("rejected", Map.of("kind", "apiKey", "value", key, "hint", "key " + key + " is revoked"),
                        "attempt", 1));
        assertThatThrownBy(() -> inMemory(fake).apiKey(key).build())
                .isInstanceOfSatisfying(CodexRpcException.class, e -> {
                    assertThat(e.method()).hasValue("account/login/start");
                    assertThat(e.getMessage()).doesNotContain(key);
                    assertThat(e.serverMessage()).doesNotContain(key);
                    assertThat(e.toString()).doesNotContain(key);
                    assertThat(e.data()).hasValueSatisfying(data -> {
                        assertThat(data.toString()).doesNotContain(key);
                        assertThat(data.path("rejected").path("value").asText()).isEqualTo("[REDACTED]");
                        assertThat(data.path("rejected").path("hint").asText()).isEqualTo("key [REDACTED] is revoked");
                        assertThat(data.path("rejected").path("kind").asText()).isEqualTo("apiKey");
                        assertThat(data.path("attempt").asInt()).isEqualTo(1);
                    });
                });
    }

    @Test
    void rejectedHandshakeIsATypedRpcException(FakeCodexAppServer fake) {
        fake.on("initialize").respondError(-32600, "unsupported client version");
        assertThatThrownBy(() -> inMemory(fake).build())
                .isInstanceOfSatisfying(CodexRpcException.class, e -> {
                    assertThat(e.method()).hasValue("initialize");
                    assertThat(e.code()).isEqualTo(-32600);
                    assertThat(e.serverMessage()).isEqualTo("unsupported client version");
                });
        // initialized is never sent after a rejected initialize.
        assertThat(fake.receivedMessages()).extracting(m -> m.path("method").asText())
                .containsExactly("initialize");
    }

    @Test
    void handshakeThatNeverAnswersTimesOut(FakeCodexAppServer fake) throws Exception {
        fake.on("initialize").noReply();
        ManualScheduler clock = new ManualScheduler();
        CompletableFuture<CodexClient> building = CompletableFuture.supplyAsync(() ->
                ClientTestSupport.withClock(inMemory(fake), clock).initializeTimeout(Duration.ofMillis(300)).build());
        fake.takeRequest("initialize", Duration.ofSeconds(5));
        clock.advance(Duration.ofMillis(299));
        assertThat(building).isNotDone();
        clock.advance(Duration.ofMillis(1));
        assertThat(ClientTestSupport.failureOf(building, Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(CodexTimeoutException.class, e -> {
                    assertThat(e.method()).isEqualTo("initialize");
                    assertThat(e.getMessage()).contains("initialize");
                });
    }
}

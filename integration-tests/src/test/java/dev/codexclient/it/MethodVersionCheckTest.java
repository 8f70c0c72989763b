package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexVersion;
import dev.codexclient.MethodSupport;
import dev.codexclient.errors.CodexMethodNotSupportedException;
import dev.codexclient.protocol.ClientRequestMethods;
import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.MethodVersions;
import dev.codexclient.protocol.ParamsPresence;
import dev.codexclient.protocol.ServerNotificationMethods;
import dev.codexclient.protocol.ServerRequestMethods;
import dev.codexclient.protocol.ThreadRevertParams;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request the server's codex version certainly lacks is refused before it is sent, naming the versions that have
 * the method; one that might exist goes to the server. The fake counts what reached the wire.
 */
@ExtendWith(CodexTestExtension.class)
class MethodVersionCheckTest {

    private static void serverIs(FakeCodexAppServer fake, String userAgent) {
        fake.initializeResult(Map.of("userAgent", userAgent, "codexHome", "/tmp/h", "platformFamily", "unix",
                "platformOs", "linux"));
    }

    private static long onTheWire(FakeCodexAppServer fake, String method) {
        return fake.receivedMessages().stream().filter(m -> method.equals(m.path("method").asText())).count();
    }

    @Test
    void aMethodACheckedVersionLacksFailsAtOnceAndNothingIsSent(FakeCodexAppServer fake) {
        serverIs(fake, "acme-bot/0.120.0 (Debian 12.0.0; x86_64) xterm (acme-bot; 1.0.0)");
        try (CodexClient client = inMemory(fake).build()) {
            CodexThread thread = client.startThread();
            int before = fake.receivedMessages().size();

            CompletableFuture<?> call = client.rpc().threadRevert(ThreadRevertParams.builder()
                    .threadId(thread.id()).beforeTurnId("t-1").build());
            // failed before anything could be sent: no wait, no answer needed
            assertThat(call).isCompletedExceptionally();
            assertThatThrownBy(call::join).cause().isInstanceOfSatisfying(CodexMethodNotSupportedException.class,
                    e -> {
                        assertThat(e.sent()).isFalse();
                        assertThat(e.method()).contains("thread/revert");
                        assertThat(e.serverVersion()).contains(CodexVersion.parse("0.120.0"));
                        assertThat(e.versionsWithMethod())
                                .isEqualTo(ClientRequestMethods.THREAD_REVERT.versions().versions())
                                .contains("0.169.0", "0.171.0").doesNotContain("0.120.0", "0.98.0");
                        // what 0.120.0 offers instead, from its method list
                        assertThat(e.serverMethods()).contains("thread/rollback", "thread/start")
                                .doesNotContain("thread/revert");
                        assertThat(e.code()).isEqualTo(-32601);
                        assertThat(e.getMessage()).startsWith("thread/revert is not supported by codex 0.120.0")
                                .contains("0.169.0, 0.171.0").contains("not sent");
                    });
            // the handle's call too
            assertThatThrownBy(() -> thread.revertTo("t-1")).isInstanceOf(CodexMethodNotSupportedException.class);

            assertThat(onTheWire(fake, "thread/revert")).isZero();
            assertThat(fake.receivedMessages()).hasSize(before);
            // a method 0.120.0 has still goes
            thread.read();
            assertThat(onTheWire(fake, "thread/read")).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "acme-bot/0.150.0 (Debian 12.0.0; x86_64) xterm (acme-bot; 1.0.0)",   // between checked versions
            "acme-bot/0.172.0 (Debian 12.0.0; x86_64) xterm (acme-bot; 1.0.0)",   // newer than any checked
            "acme-bot/0.120.0-alpha.3 (Debian 12.0.0; x86_64) xterm (acme-bot; 1)", // a pre-release: not 0.120.0
            "a proxy that names no version"})
    void aServerWhoseVersionIsNotCheckedGetsTheRequest(String userAgent, FakeCodexAppServer fake) {
        serverIs(fake, userAgent);
        fake.on("thread/revert").respondError(-32600,
                "Invalid request: unknown variant `thread/revert`, expected one of `initialize`, `thread/start`");
        try (CodexClient client = inMemory(fake).build()) {
            assertThat(client.serverInfo().supports(ClientRequestMethods.THREAD_REVERT))
                    .isEqualTo(MethodSupport.UNKNOWN);
            CodexThread thread = client.startThread();
            assertThatThrownBy(() -> thread.revertTo("t-1")).isInstanceOfSatisfying(
                    CodexMethodNotSupportedException.class, e -> assertThat(e.sent()).isTrue());
            assertThat(onTheWire(fake, "thread/revert")).isEqualTo(1);
        }
    }

    @Test
    void aMethodNoListRecordsIsSentToAnyServer(FakeCodexAppServer fake) {
        serverIs(fake, "acme-bot/0.98.0 (Debian 12.0.0; x86_64) xterm (acme-bot; 1.0.0)");
        fake.on("acme/ping").respond(Map.of("pong", true));
        MethodDescriptor<Object, JsonNode> own = new MethodDescriptor<>("acme/ping", Object.class, JsonNode.class,
                ParamsPresence.OPTIONAL, false);
        try (CodexClient client = inMemory(fake).build()) {
            assertThat(own.versions().recorded()).isFalse();
            assertThat(client.serverInfo().supports(own)).isEqualTo(MethodSupport.UNKNOWN);
            assertThat(client.rpc().call(own, Map.of()).join().path("pong").asBoolean()).isTrue();
            assertThat(onTheWire(fake, "acme/ping")).isEqualTo(1);
        }
    }

    @Test
    void serverInfoAnswersWhatTheServerHas(FakeCodexAppServer fake) {
        serverIs(fake, "acme-bot/0.98.0 (Debian 12.0.0; x86_64) xterm (acme-bot; 1.0.0)");
        try (CodexClient client = inMemory(fake).build()) {
            var info = client.serverInfo();
            assertThat(info.supports(ClientRequestMethods.THREAD_START)).isEqualTo(MethodSupport.SUPPORTED);
            assertThat(info.supports(ClientRequestMethods.TURN_STEER)).isEqualTo(MethodSupport.NOT_SUPPORTED);
            assertThat(info.supports(ClientRequestMethods.THREAD_SEARCH_STREAM))
                    .isEqualTo(MethodSupport.NOT_SUPPORTED);
            assertThat(info.supports(ServerNotificationMethods.SERVER_REQUEST_RESOLVED))
                    .isEqualTo(MethodSupport.NOT_SUPPORTED);
            assertThat(info.supports(ServerNotificationMethods.TURN_COMPLETED)).isEqualTo(MethodSupport.SUPPORTED);
            // notifications codex sends that no schema describes are not recorded
            assertThat(info.supports(ServerNotificationMethods.RAW_RESPONSE_ITEM_COMPLETED))
                    .isEqualTo(MethodSupport.UNKNOWN);
        }
    }

    @Test
    void theTableRecordsSinceAndUntil() {
        MethodVersions revert = ClientRequestMethods.THREAD_REVERT.versions();
        assertThat(revert.recorded()).isTrue();
        assertThat(revert.until()).isEmpty();
        assertThat(revert.isAbsentFrom("0.120.0")).isTrue();
        assertThat(revert.isAbsentFrom("0.150.0")).as("not checked: nothing is certain").isFalse();
        assertThat(revert.isPresentIn("0.171.0")).isTrue();
        // removed in 0.171.0, kept for the servers before it
        MethodVersions time = ServerRequestMethods.CURRENT_TIME_READ.versions();
        assertThat(time.until()).contains("0.169.0");
        assertThat(time.isAbsentFrom("0.171.0")).isTrue();
        assertThat(ClientRequestMethods.THREAD_SEARCH_STREAM.versions().since()).contains("0.171.0");
        assertThat(ClientRequestMethods.INITIALIZE.versions().since()).contains(MethodVersions.checked().get(0));
        assertThat(MethodVersions.checked()).contains("0.98.0", "0.120.0", "0.169.0", "0.171.0")
                .last().isEqualTo(CodexVersion.pinned().text());
    }
}

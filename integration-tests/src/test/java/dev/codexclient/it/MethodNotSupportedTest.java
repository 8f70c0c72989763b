package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.failureOf;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexVersion;
import dev.codexclient.errors.CodexMethodNotSupportedException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.protocol.ThreadRevertParams;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A method the server does not know fails with {@link CodexMethodNotSupportedException}, through the typed calls
 * and the handles alike, with the server's version from the handshake, when the client could not tell beforehand
 * and sent the request. The fake answers as codex 0.98.0 does (recorded from the real binary);
 * {@code CompatibilityTest} shows the refusal on the real versions.
 */
@ExtendWith(CodexTestExtension.class)
class MethodNotSupportedTest {
    private static final String UNKNOWN_REVERT = "Invalid request: unknown variant `thread/revert`, expected one of"
            + " `initialize`, `thread/start`, `thread/resume`, `thread/fork`, `thread/archive`, `thread/name/set`,"
            + " `thread/unarchive`, `thread/compact/start`, `thread/rollback`, `thread/list`, `thread/read`,"
            + " `turn/start`, `turn/interrupt`";

    /**
     * A codex between two versions whose method lists the SDK checked (0.99.0 and 0.104.0): the client cannot be sure
     * it lacks a method, so it sends the request and codex's answer decides (a checked version's lack is refused
     * unsent: {@link MethodVersionCheckTest}).
     */
    private static FakeCodexAppServer asUncheckedCodex(FakeCodexAppServer fake) {
        return fake.initializeResult(Map.of("userAgent",
                "codex-client-java/0.100.0 (Debian 12.0.0; x86_64) xterm (codex-client-java; 0.1.0)"));
    }

    @Test
    void theHandleThrowsTheTypedExceptionNamingMethodAndVersion(FakeCodexAppServer fake) {
        asUncheckedCodex(fake).on("thread/revert").respondError(-32600, UNKNOWN_REVERT);
        try (CodexClient client = inMemory(fake).build()) {
            assertThat(client.serverInfo().codexVersion()).contains(CodexVersion.parse("0.100.0"));
            CodexThread thread = client.startThread();

            assertThatThrownBy(() -> thread.revertTo("turn-1"))
                    .isInstanceOfSatisfying(CodexMethodNotSupportedException.class, e -> {
                        assertThat(e.method()).contains("thread/revert");
                        assertThat(e.serverVersion()).contains(CodexVersion.parse("0.100.0"));
                        assertThat(e.sent()).as("sent: the version is not one the SDK checked").isTrue();
                        assertThat(e.serverMethods()).contains("thread/rollback").doesNotContain("thread/revert");
                        assertThat(e.code()).isEqualTo(CodexRpcException.INVALID_REQUEST);
                        assertThat(e.serverMessage()).isEqualTo(UNKNOWN_REVERT);
                        assertThat(e).hasMessageStartingWith("thread/revert is not supported by codex 0.100.0");
                    });
        }
    }

    @Test
    void typedCallsFailWithItToo(FakeCodexAppServer fake) {
        asUncheckedCodex(fake).on("thread/revert").respondError(-32600, UNKNOWN_REVERT);
        try (CodexClient client = inMemory(fake).build()) {
            Throwable failure = failureOf(client.rpc().threadRevert(ThreadRevertParams.builder().threadId("t")
                    .beforeTurnId("turn-1").build()), Duration.ofSeconds(5));
            assertThat(failure).isInstanceOf(CodexMethodNotSupportedException.class);
        }
    }

    @Test
    void aStandardMethodNotFoundBecomesTheTypedException(FakeCodexAppServer fake) {
        // The fake answers methods it has no script for with -32601, as a JSON-RPC server would.
        try (CodexClient client = inMemory(fake).build()) {
            Throwable failure = failureOf(client.rpc().threadRevert(ThreadRevertParams.builder().threadId("t")
                    .beforeTurnId("turn-1").build()), Duration.ofSeconds(5));
            assertThat(failure).isInstanceOfSatisfying(CodexMethodNotSupportedException.class, e -> {
                assertThat(e.code()).isEqualTo(CodexRpcException.METHOD_NOT_FOUND);
                assertThat(e.serverVersion()).isEqualTo(client.serverInfo().codexVersion());
            });
        }
    }

    @Test
    void anInvalidRequestForAKnownMethodIsNot(FakeCodexAppServer fake) {
        asUncheckedCodex(fake).on("thread/revert").respondError(-32600, "Invalid request: missing field `threadId`");
        try (CodexClient client = inMemory(fake).build()) {
            Throwable failure = failureOf(client.rpc().threadRevert(ThreadRevertParams.builder().threadId("t")
                    .beforeTurnId("turn-1").build()), Duration.ofSeconds(5));
            assertThat(failure).isExactlyInstanceOf(CodexRpcException.class);
        }
    }
}

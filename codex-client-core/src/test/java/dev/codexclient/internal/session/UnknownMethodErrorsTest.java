package dev.codexclient.internal.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.CodexVersion;
import dev.codexclient.ServerInfo;
import dev.codexclient.errors.CodexMethodNotSupportedException;
import dev.codexclient.errors.CodexRpcException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Against the answers of the real binaries, recorded by sending each an unknown method and a known method whose
 * params hold an unknown enum value equal to a method name ({@code codex-VERSION-unknown-method.jsonl}: the
 * {@code initialize} result, the two error responses).
 */
class UnknownMethodErrorsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest(name = "codex {0}: {1}")
    @CsvSource({"0.98.0, thread/revert", "0.140.0, thread/revert", "0.169.0, thread/rollback"})
    void anUnknownMethodGetsItsOwnTypeNamingTheMethodAndTheServerVersion(String version, String method)
            throws IOException {
        List<JsonNode> recorded = recorded(version);
        ServerInfo server = new ServerInfo(Optional.of(recorded.get(0).path("result").path("userAgent").asText()),
                Optional.empty(), Optional.empty(), Optional.empty());
        JsonNode error = recorded.get(1).path("error");
        assertThat(error.path("code").asInt()).isEqualTo(-32600);

        CodexRpcException refined = UnknownMethodErrors.refine(rpc(method, error), server);

        assertThat(refined).isInstanceOfSatisfying(CodexMethodNotSupportedException.class, e -> {
            assertThat(e.method()).contains(method);
            assertThat(e.code()).isEqualTo(-32600);
            assertThat(e.serverMessage()).isEqualTo(error.path("message").asText());
            assertThat(e.serverVersion()).contains(CodexVersion.parse(version));
            assertThat(e.serverMethods()).contains("initialize", "thread/start", "turn/start").doesNotContain(method);
            assertThat(e.getMessage())
                    .startsWith(method + " is not supported by codex " + version + " (this SDK speaks the protocol"
                            + " of codex " + CodexVersion.pinned() + "): JSON-RPC error -32600 \"Invalid request:"
                            + " unknown variant `" + method + "`, …\"")
                    .hasSizeLessThan(300);
        });
    }

    @ParameterizedTest(name = "codex {0}")
    @CsvSource({"0.98.0", "0.140.0", "0.169.0"})
    void anUnknownEnumValueInTheParamsOfAKnownMethodStaysAnInvalidRequest(String version) throws IOException {
        // thread/start with approvalPolicy "thread/start": serde reports the same "unknown variant" text.
        JsonNode error = recorded(version).get(2).path("error");
        assertThat(error.path("message").asText()).startsWith("Invalid request: unknown variant `thread/start`");

        CodexRpcException original = rpc("thread/start", error);

        assertThat(UnknownMethodErrors.refine(original, null)).isSameAs(original);
    }

    @Test
    void aStandardMethodNotFoundIsTypedToo() {
        CodexRpcException original = new CodexRpcException("thread/revert", -32601, "Method not found", null);

        CodexRpcException refined = UnknownMethodErrors.refine(original, null);

        assertThat(refined).isInstanceOfSatisfying(CodexMethodNotSupportedException.class, e -> {
            assertThat(e.serverVersion()).isEmpty();
            assertThat(e.serverMethods()).isEmpty();
            assertThat(e.getMessage()).startsWith("thread/revert is not supported by this codex app-server");
        });
    }

    @Test
    void otherErrorsAreLeftAlone() {
        ServerInfo server = new ServerInfo(Optional.of("x/0.98.0 (Linux; x86_64)"), Optional.empty(), Optional.empty(),
                Optional.empty());
        for (CodexRpcException e : List.of(
                new CodexRpcException("thread/read", -32600, "Invalid request: missing field `threadId`", null),
                new CodexRpcException("thread/read", -32600, "thread not found: 1234", null),
                new CodexRpcException("turn/start", -32602, "Invalid request: unknown variant `turn/start`, "
                        + "expected one of `initialize`", null),
                new CodexRpcException("turn/start", -32603, "internal", null),
                // a local handler's error names no method
                new CodexRpcException(null, -32601, "Method not found", null))) {
            assertThat(UnknownMethodErrors.refine(e, server)).as(e.getMessage()).isSameAs(e);
        }
    }

    private static CodexRpcException rpc(String method, JsonNode error) {
        return new CodexRpcException(method, error.path("code").asInt(), error.path("message").asText(), null);
    }

    private static List<JsonNode> recorded(String version) throws IOException {
        try (InputStream in = UnknownMethodErrorsTest.class.getResourceAsStream(
                "codex-" + version + "-unknown-method.jsonl")) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return text.lines().map(line -> {
                try {
                    return JSON.readTree(line);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }).toList();
        }
    }
}

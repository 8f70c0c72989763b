package dev.codexclient.internal.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class NotificationDecoderTest {
    private final ObjectMapper mapper = ProtocolJson.mapper();
    private final NotificationDecoder decoder = new NotificationDecoder(mapper);

    @ParameterizedTest
    @ValueSource(strings = {
        // Shapes recorded from codex 0.169.0.
        "{\"method\":\"item/agentMessage/delta\",\"params\":{\"threadId\":\"t1\",\"turnId\":\"u1\",\"itemId\":\"msg_2\","
                + "\"delta\":\"Grüße \\\"x\\\"\\n\"},\"emittedAtMs\":1795312336697}",
        "{\"method\":\"item/started\",\"params\":{\"item\":{\"type\":\"agentMessage\",\"id\":\"msg_1\",\"text\":\"\","
                + "\"phase\":null,\"memoryCitation\":null},\"threadId\":\"t1\",\"turnId\":\"u1\","
                + "\"startedAtMs\":1795312336697},\"emittedAtMs\":1795312336697}",
        "{\"method\":\"thread/status/changed\",\"params\":{\"threadId\":\"t1\",\"status\":{\"type\":\"idle\"}}}",
        "{\"emittedAtMs\":5,\"params\":{\"threadId\":\"t1\",\"turnId\":\"u1\",\"itemId\":\"c\",\"delta\":\"out\"},"
                + "\"method\":\"item/commandExecution/outputDelta\",\"extra\":[1,{\"a\":2}]}",
        "{\"method\":\"item/agentMessage/delta\",\"params\":null,\"emittedAtMs\":null}",
        "{\"method\":\"item/agentMessage/delta\"}",
        "{\"method\":\"item/agentMessage/delta\",\"params\":{\"delta\":\"x\"},\"emittedAtMs\":\"17\"}",
        "{\"method\":\"some/future/method\",\"params\":{\"threadId\":\"t1\"}}",
    })
    void decodesLikeTheUnion(String json) throws Exception {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        String method = mapper.readTree(bytes).get("method").asText();

        ServerNotification fast = decoder.decode(method, bytes);
        ServerNotification union = mapper.readValue(bytes, ServerNotification.class);

        assertThat(fast).isEqualTo(union);
        assertThat(fast.getClass()).isEqualTo(union.getClass());
    }

    @Test
    void decodesTheTypedVariant() throws Exception {
        byte[] bytes = ("{\"method\":\"item/agentMessage/delta\",\"params\":{\"threadId\":\"t1\",\"turnId\":\"u1\","
                + "\"itemId\":\"m\",\"delta\":\"hi\"},\"emittedAtMs\":3}").getBytes(StandardCharsets.UTF_8);

        ServerNotification n = decoder.decode("item/agentMessage/delta", bytes);

        assertThat(n).isInstanceOfSatisfying(ServerNotification.ItemAgentMessageDelta.class, d -> {
            assertThat(d.params().delta()).isEqualTo("hi");
            assertThat(d.params().threadId()).isEqualTo("t1");
            assertThat(d.emittedAtMs()).isEqualTo(3L);
        });
    }

    @Test
    void paramsThatDoNotMatchTheSchemaFailLikeTheUnion() {
        byte[] bytes = "{\"method\":\"item/agentMessage/delta\",\"params\":[1,2]}".getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> mapper.readValue(bytes, ServerNotification.class))
                .isInstanceOf(java.io.IOException.class);
        assertThatThrownBy(() -> decoder.decode("item/agentMessage/delta", bytes))
                .isInstanceOf(java.io.IOException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"method\":\"item/agentMessage/delta\",\"params\":{\"threadId\":\"t1\",\"turnId\":\"u1\",\"itemId\":\"msg_2\","
                + "\"delta\":\"Grüße \\\"x\\\"\\n\"},\"emittedAtMs\":1795312336697}|t1|u1",
        "{\"method\":\"item/started\",\"params\":{\"item\":{\"type\":\"agentMessage\",\"id\":\"msg_1\",\"text\":\"\"},"
                + "\"threadId\":\"t1\",\"turnId\":\"u1\",\"startedAtMs\":1},\"emittedAtMs\":1,\"extra\":[1,{\"a\":2}]}|t1|u1",
        "{\"method\":\"turn/started\",\"params\":{\"threadId\":\"t1\",\"turn\":{\"id\":\"u9\",\"items\":[],"
                + "\"status\":\"inProgress\"}}}|t1|u9",
        "{\"method\":\"item/agentMessage/delta\",\"params\":{\"delta\":\"x\"}}|-|-",
        // The schema gives thread/status/changed no turn: a turnId the line carries is unknown data.
        "{\"method\":\"thread/status/changed\",\"params\":{\"threadId\":\"t1\",\"turnId\":\"u1\","
                + "\"status\":{\"type\":\"idle\"}}}|t1|-",
        "{\"method\":\"account/rateLimits/updated\",\"params\":{\"threadId\":\"t1\",\"rateLimits\":{}}}|-|-",
    })
    void decodesALineInOnePassLikeTheUnionWithItsRouting(String row) throws Exception {
        String[] parts = row.split("\\|");
        byte[] bytes = parts[0].getBytes(StandardCharsets.UTF_8);

        NotificationDecoder.Decoded d = decoder.decodeLine(bytes);

        assertThat(d).isNotNull();
        ServerNotification union = mapper.readValue(bytes, ServerNotification.class);
        assertThat(d.notification()).isEqualTo(union).hasSameClassAs(union);
        assertThat(d.method()).isEqualTo(mapper.readTree(bytes).get("method").asText());
        assertThat(d.threadId()).isEqualTo(parts[1].equals("-") ? java.util.Optional.empty()
                : java.util.Optional.of(parts[1]));
        assertThat(d.turnId()).isEqualTo(parts[2].equals("-") ? java.util.Optional.empty()
                : java.util.Optional.of(parts[2]));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        // method not first
        "{\"params\":{\"threadId\":\"t1\",\"turnId\":\"u1\",\"itemId\":\"c\",\"delta\":\"o\"},\"method\":\"item/agentMessage/delta\"}",
        // a request
        "{\"method\":\"item/agentMessage/delta\",\"id\":3,\"params\":{\"threadId\":\"t1\",\"delta\":\"o\"}}",
        // the connection reads its request id
        "{\"method\":\"serverRequest/resolved\",\"params\":{\"threadId\":\"t1\",\"requestId\":4}}",
        "{\"method\":\"some/future/method\",\"params\":{\"threadId\":\"t1\",\"turnId\":\"u1\"}}",
        "{\"method\":\"item/agentMessage/delta\"}",
        "{\"method\":\"item/agentMessage/delta\",\"params\":null}",
        "{\"method\":\"item/agentMessage/delta\",\"params\":[1,2]}",
        "{\"method\":\"item/agentMessage/delta\",\"params\":{\"delta\":\"x\"},\"emittedAtMs\":\"17\"}",
        "{\"method\":\"item/agentMessage/delta\",\"params\":{\"delta\":\"x\"",
        "not json at all",
        "[1,2]",
    })
    void declinesWhatTheGeneralPathMustDecide(String json) {
        assertThat(decoder.decodeLine(json.getBytes(StandardCharsets.UTF_8))).isNull();
    }
}

package dev.codexclient.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.protocol.RequestId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EnvelopeTest {
    private final JsonFactory factory = new JsonFactory();

    private Envelope scan(String json) throws IOException {
        return Envelope.scan(factory, json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void routesANotificationByItsThreadAndTurnMembers() throws IOException {
        Envelope e = scan("{\"method\":\"item/agentMessage/delta\",\"params\":{\"x\":{\"threadId\":\"nested\"},"
                + "\"threadId\":\"T\",\"turnId\":\"U\",\"delta\":\"d\"},\"emittedAtMs\":1}");

        assertThat(e.isNotification()).isTrue();
        assertThat(e.method()).isEqualTo("item/agentMessage/delta");
        assertThat(e.threadId()).hasValue("T");
        assertThat(e.turnId()).hasValue("U");
    }

    @Test
    void fallsBackToTheIdsOfThreadAndTurnObjects() throws IOException {
        Envelope e = scan("{\"params\":{\"turn\":{\"items\":[{\"id\":\"i\"}],\"id\":\"U\"},"
                + "\"thread\":{\"id\":\"T\",\"name\":null}},\"method\":\"turn/started\"}");

        assertThat(e.threadId()).hasValue("T");
        assertThat(e.turnId()).hasValue("U");
        assertThat(e.requestId()).isEmpty();
    }

    @Test
    void aMemberWinsOverAnObjectAndNonTextIdsAreIgnored() throws IOException {
        Envelope e = scan("{\"method\":\"m\",\"params\":{\"thread\":{\"id\":\"obj\"},\"threadId\":\"member\","
                + "\"turnId\":7}}");

        assertThat(e.threadId()).hasValue("member");
        assertThat(e.turnId()).isEmpty();
    }

    @Test
    void readsTheRequestIdOfAResolvedRequest() throws IOException {
        assertThat(scan("{\"method\":\"serverRequest/resolved\",\"params\":{\"requestId\":42}}").requestId())
                .hasValue(RequestId.of(42));
        assertThat(scan("{\"method\":\"serverRequest/resolved\",\"params\":{\"requestId\":\"r\"}}").requestId())
                .hasValue(RequestId.of("r"));
        assertThat(scan("{\"method\":\"serverRequest/resolved\",\"params\":{\"requestId\":1e99}}").requestId())
                .isEmpty();
    }

    @Test
    void requestsAndResponsesAreNotNotifications() throws IOException {
        assertThat(scan("{\"id\":1,\"method\":\"item/tool/call\",\"params\":{}}").isNotification()).isFalse();
        assertThat(scan("{\"id\":1,\"result\":{}}").isNotification()).isFalse();
        assertThat(scan("{\"id\":null,\"method\":\"n\"}").isNotification()).isTrue();
        assertThat(scan("{\"method\":5}").isNotification()).isFalse();
    }

    @Test
    void collectsTheMembersOfAResponseAndHandsTheResultToTheReaderInPlace() throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        List<String> seen = new ArrayList<>();
        Envelope.ResultReader reader = (id, p) -> {
            seen.add(String.valueOf(id));
            return mapper.<JsonNode>readTree(p).get("v").asText();
        };
        Envelope e = Envelope.scan(mapper, utf8("{\"id\":7,\"result\":{\"v\":\"a\"},\"x\":[1],"
                + "\"error\":{\"code\":1},\"result\":{\"v\":\"b\"}}"), reader);

        assertThat(seen).containsExactly("7", "7");
        assertThat(e.isNotification()).isFalse();
        assertThat(e.response().id().asLong()).isEqualTo(7);
        assertThat(e.response().hasResult()).isTrue();
        assertThat(e.response().result()).isEqualTo("b");
        assertThat(e.response().error().get("code").asInt()).isEqualTo(1);

        Envelope early = Envelope.scan(mapper, utf8("{\"result\":{\"v\":\"r\"},\"id\":\"s\"}"), reader);
        assertThat(seen).endsWith("null");
        assertThat(early.response().id().textValue()).isEqualTo("s");
        assertThat(Envelope.scan(mapper, utf8("{\"id\":1,\"method\":\"m\"}"), reader).response()).isNull();
        assertThat(Envelope.scan(mapper, utf8("{\"id\":null,\"error\":null}"), reader).response().id().isNull())
                .isTrue();
        assertThatThrownBy(() -> Envelope.scan(mapper, utf8("{\"id\":1,\"result\":{\"v\":1},\"x\":}"), reader))
                .isInstanceOf(IOException.class);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void rejectsWhatIsNotAJsonObject() throws IOException {
        assertThat(scan("[1,2]")).isNull();
        assertThat(scan("\"text\"")).isNull();
        assertThatThrownBy(() -> scan("{\"method\":\"m\",\"params\":{\"a\":}")).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> scan("{\"method\":\"m\"")).isInstanceOf(IOException.class);
    }
}

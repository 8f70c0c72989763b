package dev.codexclient.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.errors.CodexProtocolException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTransportException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How responses are read: in one pass where they have the usual shape, exactly as a tree would read them else. */
class ResponseDecodingTest {

    /** Counts the trees built of whole lines: a usual response must not need one. */
    private static final class CountingMapper extends ObjectMapper {
        final AtomicInteger lineTrees = new AtomicInteger();

        CountingMapper() {
            configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        }

        @Override
        public JsonNode readTree(byte[] content) throws IOException {
            lineTrees.incrementAndGet();
            return super.readTree(content);
        }
    }

    record Answer(String who, List<Integer> counts) {
    }

    /** A result type whose value is an empty object. */
    record Empty() {
    }

    private final CountingMapper mapper = new CountingMapper();
    private final ScriptedTransport transport = new ScriptedTransport();
    private RpcConnection rpc;

    private RpcConnection connect() {
        rpc = new RpcConnection(transport, mapper, new RpcSettings(Duration.ofSeconds(5), 1, Duration.ofMillis(5),
                Duration.ofMillis(20), Duration.ofSeconds(5)), Executors.newCachedThreadPool(), true,
                s -> s.replace("sk-SECRET", "[REDACTED]"), new RpcConnection.Handler() {
                    @Override
                    public void onNotification(IncomingNotification n) {
                    }

                    @Override
                    public CompletionStage<?> onRequest(IncomingRequest request) {
                        return CompletableFuture.failedFuture(new UnsupportedOperationException());
                    }

                    @Override
                    public void onClosed(CodexTransportException cause) {
                    }
                });
        rpc.start();
        return rpc;
    }

    @AfterEach
    void tearDown() {
        if (rpc != null) {
            rpc.close();
        }
    }

    private long sentId() throws Exception {
        return new ObjectMapper().readTree(transport.takeSent(Duration.ofSeconds(5))).get("id").asLong();
    }

    private <R> R answer(Class<R> type, String responseAfterId) throws Exception {
        CompletableFuture<R> f = rpc.call("m", null, type, null);
        transport.inject("{\"id\":" + sentId() + responseAfterId);
        return f.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aUsualResponseIsBoundWithoutATreeOfTheLine() throws Exception {
        connect();
        assertThat(answer(Answer.class, ",\"result\":{\"who\":\"x\",\"counts\":[1,2],\"extra\":{\"a\":[true]}}}"))
                .isEqualTo(new Answer("x", List.of(1, 2)));
        assertThat(answer(JsonNode.class, ",\"result\":{\"k\":[1,{\"n\":null}]}}").get("k").get(1).has("n"))
                .isTrue();
        assertThat(answer(Void.class, ",\"result\":{\"ignored\":1}}")).isNull();
        assertThat(answer(Empty.class, ",\"result\":{}}")).isEqualTo(new Empty());
        assertThat(mapper.lineTrees).hasValue(0);
    }

    @Test
    void aNullResultIsTheEmptyValueOfItsType() throws Exception {
        connect();
        assertThat(answer(Empty.class, ",\"result\":null}")).isEqualTo(new Empty());
        assertThat(answer(Answer.class, ",\"result\":null}")).isEqualTo(new Answer(null, null));
        assertThat(answer(JsonNode.class, ",\"result\":null}").isNull()).isTrue();
        assertThat(answer(Empty.class, ",\"error\":null}")).isEqualTo(new Empty());
        assertThat(answer(JsonNode.class, ",\"error\":null}").isNull()).isTrue();
    }

    @Test
    void membersInAnUnusualOrderReadLikeATree() throws Exception {
        connect();
        CompletableFuture<Answer> first = rpc.call("m", null, Answer.class, null);
        long firstId = sentId();
        transport.inject("{\"result\":{\"who\":\"before the id\"},\"id\":" + firstId + "}");
        assertThat(first.get(5, TimeUnit.SECONDS).who()).isEqualTo("before the id");

        CompletableFuture<Answer> a = rpc.call("m", null, Answer.class, null);
        long aId = sentId();
        CompletableFuture<JsonNode> b = rpc.call("m", null, JsonNode.class, null);
        long bId = sentId();
        // The last id wins, as in a tree: the result read for a's id belongs to b.
        transport.inject("{\"id\":" + aId + ",\"result\":{\"who\":\"for b\"},\"id\":" + bId + "}");
        assertThat(b.get(5, TimeUnit.SECONDS).get("who").asText()).isEqualTo("for b");
        assertThat(a).isNotDone();
        // The last result wins too.
        transport.inject("{\"id\":" + aId + ",\"result\":{\"who\":\"1\"},\"result\":{\"who\":\"2\"}}");
        assertThat(a.get(5, TimeUnit.SECONDS).who()).isEqualTo("2");
    }

    @Test
    void anErrorWinsOverAResultAndItsMessageIsRedacted() throws Exception {
        connect();
        CompletableFuture<Answer> f = rpc.call("account/login/start", null, Answer.class, null);
        transport.inject("{\"id\":" + sentId() + ",\"result\":{\"who\":\"x\"},\"error\":{\"code\":-32600,"
                + "\"message\":\"rejected key sk-SECRET\",\"data\":{\"d\":1}}}");
        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).cause().isInstanceOfSatisfying(CodexRpcException.class,
                e -> {
                    assertThat(e.code()).isEqualTo(-32600);
                    assertThat(e.serverMessage()).isEqualTo("rejected key [REDACTED]").doesNotContain("sk-SECRET");
                    assertThat(e.method()).hasValue("account/login/start");
                    assertThat(e.data()).hasValueSatisfying(d -> assertThat(d.get("d").asInt()).isEqualTo(1));
                });
        assertThat(rpc.pendingCount()).isZero();
    }

    @Test
    void theDataOfAnErrorHasEveryStringRedactedAndKeepsItsShape() throws Exception {
        connect();
        CompletableFuture<Answer> f = rpc.call("account/login/start", null, Answer.class, null);
        transport.inject("{\"id\":" + sentId() + ",\"error\":{\"code\":-32600,\"message\":\"rejected\","
                + "\"data\":{\"key\":\"sk-SECRET\",\"attempts\":[{\"sent\":\"Bearer sk-SECRET!\",\"n\":2}],"
                + "\"ok\":false,\"none\":null}}}");
        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).cause().isInstanceOfSatisfying(CodexRpcException.class,
                e -> assertThat(e.data()).hasValueSatisfying(d -> {
                    assertThat(d.toString()).doesNotContain("sk-SECRET");
                    assertThat(d.path("key").asText()).isEqualTo("[REDACTED]");
                    assertThat(d.path("attempts").get(0).path("sent").asText()).isEqualTo("Bearer [REDACTED]!");
                    assertThat(d.path("attempts").get(0).path("n").asInt()).isEqualTo(2);
                    assertThat(d.path("ok").isBoolean()).isTrue();
                    assertThat(d.has("none")).isTrue();
                }));
    }

    @Test
    void aResultThatDoesNotBindFailsTheCallWithItsRedactedText() throws Exception {
        connect();
        CompletableFuture<Answer> f = rpc.call("m", null, Answer.class, null);
        transport.inject("{\"id\":" + sentId() + ",\"result\":{\"who\":\"sk-SECRET\",\"counts\":{\"not\":\"a list\"}}}");
        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(CodexProtocolException.class)
                .hasMessageContaining("the result of m does not decode into Answer")
                .hasMessageContaining("[REDACTED]")
                .hasMessageNotContaining("sk-SECRET");
        // A tree node type that does not fit the result fails the same way instead of being lost.
        CompletableFuture<ObjectNode> g = rpc.call("m", null, ObjectNode.class, null);
        transport.inject("{\"id\":" + sentId() + ",\"result\":[1]}");
        assertThatThrownBy(() -> g.get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(CodexProtocolException.class).hasMessageContaining("ObjectNode");
        assertThat(rpc.pendingCount()).isZero();
    }

    @Test
    void aLineThatIsNotJsonAfterAGoodResultIsSkippedAndTheCallStillWaits() throws Exception {
        connect();
        CompletableFuture<Answer> f = rpc.call("m", null, Answer.class, null);
        long id = sentId();
        transport.inject("{\"id\":" + id + ",\"result\":{\"who\":\"early\"},\"extra\":[1,}");
        transport.inject("{\"id\":" + id + ",\"result\":{\"who\":\"broken\",}}");
        transport.inject("{\"id\":" + id + ",\"result\":{\"who\":\"unclosed\"}");
        assertThatThrownBy(() -> f.get(200, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(rpc.pendingCount()).isEqualTo(1);
        transport.inject("{\"id\":" + id + ",\"result\":{\"who\":\"good\"}}");
        assertThat(f.get(5, TimeUnit.SECONDS).who()).isEqualTo("good");
    }

    @Test
    void oddResponsesAreDroppedAndReadingContinues() throws Exception {
        connect();
        CompletableFuture<Answer> f = rpc.call("m", null, Answer.class, null);
        long id = sentId();
        transport.inject("{\"id\":null,\"result\":{\"who\":\"null id\"}}");
        transport.inject("{\"id\":\"" + id + "\",\"result\":{\"who\":\"text id\"}}");
        transport.inject("{\"id\":" + id + ".5,\"result\":{\"who\":\"fraction\"}}");
        transport.inject("{\"id\":123456789012345678901234567890,\"result\":{}}");
        transport.inject("{\"id\":" + id + "}");
        assertThat(f).isNotDone();
        assertThat(rpc.pendingCount()).isEqualTo(1);
        transport.inject("{\"id\":" + id + ",\"result\":{\"who\":\"numbered\"}}");
        assertThat(f.get(5, TimeUnit.SECONDS).who()).isEqualTo("numbered");
    }
}

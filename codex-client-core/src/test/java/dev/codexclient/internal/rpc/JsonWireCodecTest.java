package dev.codexclient.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.RangedBuffers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Lines to messages and back: every kind of line, each route, and the lines that are none of them. */
class JsonWireCodecTest {

    /** Counts the trees built of whole lines: the usual response must not need one. */
    static final class CountingMapper extends ObjectMapper {
        final AtomicInteger lineTrees = new AtomicInteger();

        CountingMapper() {
            configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        }

        @Override
        public JsonNode readTree(byte[] content) throws IOException {
            lineTrees.incrementAndGet();
            return super.readTree(content);
        }

        @Override
        public JsonNode readTree(byte[] content, int offset, int len) throws IOException {
            lineTrees.incrementAndGet();
            return super.readTree(content, offset, len);
        }
    }

    record Answer(String who, List<Integer> counts) {
    }

    /** A result type whose value is an empty object. */
    record Empty() {
    }

    private final CountingMapper mapper = new CountingMapper();
    private final JsonWireCodec codec = new JsonWireCodec(mapper);

    private Incoming decode(String line, Map<RequestId, Class<?>> pending) {
        return codec.decode(line.getBytes(StandardCharsets.UTF_8), pending::get);
    }

    private Object result(Class<?> type, String line) {
        Incoming in = decode(line, Map.of(RequestId.of(1), type));
        assertThat(in).isInstanceOf(Incoming.Result.class);
        return ((Incoming.Result) in).value();
    }

    /** Decodes the lines as one buffer, as a transport hands over the lines of one read. */
    private List<Incoming> decodeBuffer(Map<RequestId, Class<?>> pending, String... lines) {
        MessageBuffer buffer = new MessageBuffer();
        for (String line : lines) {
            byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            buffer.add(bytes, 0, bytes.length);
        }
        List<Incoming> out = new ArrayList<>();
        List<Integer> indexes = new ArrayList<>();
        codec.decode(buffer, pending::get, (in, messages, index) -> {
            assertThat(messages).isSameAs(buffer);
            out.add(in);
            indexes.add(index);
        });
        assertThat(indexes).as("every line once, in order").isEqualTo(
                java.util.stream.IntStream.range(0, lines.length).boxed().toList());
        return out;
    }

    // ------------------------------------------------------------------------------------------------ buffers

    private static final String DELTA = "{\"method\":\"item/agentMessage/delta\",\"params\":{\"threadId\":\"t1\","
            + "\"turnId\":\"u1\",\"itemId\":\"i1\",\"delta\":\"h\u00e9llo \\\"\u2603\ud83d\ude00\"}}";

    /** Lines of every kind, and lines that go wrong in every way a parser spanning several lines could trip over. */
    private static final List<String> HARD_LINES = List.of(
            DELTA,
            "{\"id\":1,\"result\":{\"who\":\"x\",\"counts\":[1,2]}}",
            "not json at all",
            DELTA,
            "{\"method\":\"item/agentMessage/delta\",\"params\":{\"threadId\":",  // runs on into the next line
            "\"t2\",\"delta\":\"x\"}}",
            "{\"method\":\"thread/started\"} {\"method\":\"turn/started\"}",  // two values on one line
            DELTA,
            "{\"params\":{\"threadId\":\"t3\",\"turnId\":\"u3\",\"itemId\":\"i\",\"delta\":\"d\"},"
                    + "\"method\":\"item/agentMessage/delta\"}",  // another member order
            "[1,2,3]",
            "{\"id\":7,\"method\":\"item/commandExecution/requestApproval\",\"params\":{\"threadId\":\"t1\"}}",
            "{\"id\":2,\"result\":{}}",
            "{\"id\":1,\"error\":{\"code\":-32000,\"message\":\"no\"}}",
            "{\"method\":\"item/agentMessage/delta\",\"params\":{\"threadId\":[1]}}",  // breaks the schema
            "{\"unterminated\": \"string",
            "{}",
            DELTA + " trailing",
            DELTA);

    @Test
    void aBufferOfLinesReadsLikeEachLineAlone() {
        Map<RequestId, Class<?>> pending = Map.of(RequestId.of(1), Answer.class, RequestId.of(2), Empty.class);
        List<Incoming> alone = new ArrayList<>();
        for (String line : HARD_LINES) {
            alone.add(decode(line, pending));
        }
        assertThat(alone).filteredOn(Incoming.Malformed.class::isInstance).hasSizeGreaterThanOrEqualTo(4);
        // Every start and length of a buffer, so that each kind of line is first, last and in the middle.
        for (int from = 0; from < HARD_LINES.size(); from++) {
            for (int to = from + 1; to <= HARD_LINES.size(); to++) {
                assertThat(decodeBuffer(pending, HARD_LINES.subList(from, to).toArray(String[]::new)))
                        .as("lines %d to %d", from, to).isEqualTo(alone.subList(from, to));
            }
        }
    }

    @Test
    void aBadLineInTheMiddleOfABufferCostsOnlyThatLine() {
        List<Incoming> read = decodeBuffer(Map.of(), DELTA, "{\"method\":\"x\",\"params\":{\"a\":", DELTA, "}}",
                DELTA);
        assertThat(read).hasSize(5);
        assertThat(read.get(1)).isEqualTo(new Incoming.Malformed("lines that are not JSON"));
        assertThat(read.get(3)).isInstanceOf(Incoming.Malformed.class);
        for (int i : new int[] {0, 2, 4}) {
            assertThat(read.get(i)).isInstanceOf(Incoming.Notification.class);
            IncomingNotification n = ((Incoming.Notification) read.get(i)).notification();
            assertThat(n.notification()).isInstanceOf(ServerNotification.ItemAgentMessageDelta.class);
            assertThat(((ServerNotification.ItemAgentMessageDelta) n.notification()).params().delta())
                    .isEqualTo("h\u00e9llo \"\u2603\ud83d\ude00");
            assertThat(n.threadId()).contains("t1");
        }
    }

    @Test
    void aResultInABufferIsBoundIntoTheTypeItsCallExpectsWhenItsLineIsRead() {
        Map<RequestId, Class<?>> pending = new java.util.HashMap<>();
        pending.put(RequestId.of(1), Answer.class);
        MessageBuffer buffer = MessageBuffer.of(
                "{\"id\":1,\"result\":{\"who\":\"a\",\"counts\":[]}}".getBytes(StandardCharsets.UTF_8),
                "{\"id\":2,\"result\":{}}".getBytes(StandardCharsets.UTF_8));
        List<Incoming> read = new ArrayList<>();
        codec.decode(buffer, pending::get, (in, messages, index) -> {
            read.add(in);
            // The call for id 2 is registered while line 0 is routed: line 1 must see it.
            pending.put(RequestId.of(2), Empty.class);
        });
        assertThat(read).containsExactly(new Incoming.Result(RequestId.of(1), new Answer("a", List.of())),
                new Incoming.Result(RequestId.of(2), new Empty()));
        assertThat(mapper.lineTrees).hasValue(0);
    }

    @Test
    void linesOfABufferAreReadInPlaceAtTheirOffsets() {
        byte[] array = ("xx" + DELTA + "\n{\"id\":1,\"result\":{}}yy").getBytes(StandardCharsets.UTF_8);
        int deltaEnd = 2 + DELTA.getBytes(StandardCharsets.UTF_8).length;
        MessageBuffer buffer = RangedBuffers.of(array, 2, deltaEnd, deltaEnd + 1, array.length - 2);
        List<Incoming> read = new ArrayList<>();
        codec.decode(buffer, Map.of(RequestId.of(1), Empty.class)::get, (in, messages, index) -> read.add(in));
        assertThat(read).hasSize(2);
        assertThat(read.get(0)).isInstanceOf(Incoming.Notification.class);
        assertThat(((Incoming.Notification) read.get(0)).notification().size()).isEqualTo(deltaEnd - 2);
        assertThat(read.get(1)).isEqualTo(new Incoming.Result(RequestId.of(1), new Empty()));
    }

    @Test
    void theByteOffsetOfATokenIsItsLocationsWithoutMakingTheLocation() throws IOException {
        for (com.fasterxml.jackson.core.JsonFactory factory : List.of(mapper.getFactory(),
                ProtocolJson.mapper().getFactory())) {
            assertThat(TokenOffsets.shift(factory)).isNotEqualTo(TokenOffsets.NO_SHIFT);
            TokenOffsets offsets = TokenOffsets.of(factory);
            byte[] bytes = ("xyz" + DELTA + "\n  " + HARD_LINES.get(1) + "\n" + HARD_LINES.get(8) + "\n[1, \"a\" ,{}]")
                    .getBytes(StandardCharsets.UTF_8);
            int tokens = 0;
            try (com.fasterxml.jackson.core.JsonParser p = factory.createParser(bytes, 3, bytes.length - 3)) {
                while (p.nextToken() != null) {
                    assertThat(offsets.of(p)).as("token %s", p.currentToken())
                            .isEqualTo(p.currentTokenLocation().getByteOffset());
                    tokens++;
                }
            }
            assertThat(tokens).isGreaterThan(30);
        }
    }

    private static String delta(String thread, String item) {
        return "{\"method\":\"item/agentMessage/delta\",\"params\":{\"threadId\":\"" + thread
                + "\",\"turnId\":\"u1\",\"itemId\":\"" + item + "\",\"delta\":\"d\"},\"emittedAtMs\":17}";
    }

    private static ServerNotification.ItemAgentMessageDelta delta(Incoming in) {
        return (ServerNotification.ItemAgentMessageDelta) ((Incoming.Notification) in).notification().notification();
    }

    @Test
    void theReaderGetsTheIdsAStreamRepeatsAsOneStringAcrossBuffers() {
        // A value's first sight keeps its characters, the second its string, which every later one gets back.
        List<Incoming> first = decodeBuffer(Map.of(), delta("t1", "i1"), delta("t1", "i1"), delta("t1", "i1"),
                delta("t2", "i1"), delta("t2", "i1"));
        List<Incoming> second = decodeBuffer(Map.of(), delta("t2", "i2"));
        assertThat(delta(first.get(2)).params().threadId()).isSameAs(delta(first.get(1)).params().threadId());
        assertThat(delta(first.get(2)).emittedAtMs()).isSameAs(delta(first.get(1)).emittedAtMs());
        assertThat(delta(first.get(3)).params().threadId()).isEqualTo("t2");
        assertThat(delta(second.get(0)).params().threadId()).isSameAs(delta(first.get(4)).params().threadId());
        assertThat(delta(second.get(0)).params().itemId()).isEqualTo("i2");
        assertThat(((Incoming.Notification) second.get(0)).notification().threadId()).contains("t2");
    }

    /** Decodes the lines as one buffer on a thread of its own, which has ended when this returns. */
    private List<Incoming> decodeOn(String... lines) throws InterruptedException {
        AtomicReference<List<Incoming>> read = new AtomicReference<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                read.set(decodeBuffer(Map.of(), lines));
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        t.start();
        t.join();
        assertThat(failed.get()).isNull();
        return read.get();
    }

    @Test
    void anotherThreadReadsPlainlyWhileTheReaderLivesAndTakesOverOnceItHasEnded() throws InterruptedException {
        List<Incoming> onReader = decodeBuffer(Map.of(), delta("t1", "i1"));
        List<Incoming> beside = decodeOn(delta("t1", "i1"), delta("t1", "i1"), delta("t1", "i1"));
        assertThat(delta(beside.get(0))).isEqualTo(delta(onReader.get(0)));
        assertThat(delta(beside.get(2)).params().threadId()).as("not the reader thread's strings")
                .isNotSameAs(delta(beside.get(1)).params().threadId());

        // The codec's reader thread has ended (a restart's old connection): the next reader gets the strings kept.
        JsonWireCodec fresh = new JsonWireCodec(mapper);
        Thread ended = new Thread(() -> fresh.decode(MessageBuffer.of(delta("t1", "i1").getBytes(
                StandardCharsets.UTF_8)), Map.<RequestId, Class<?>>of()::get, (in, m, i) -> { }));
        ended.start();
        ended.join();
        List<Incoming> next = new ArrayList<>();
        byte[] line = delta("t1", "i1").getBytes(StandardCharsets.UTF_8);
        fresh.decode(MessageBuffer.of(line, line, line), Map.<RequestId, Class<?>>of()::get, (in, m, i) -> next.add(in));
        assertThat(delta(next.get(2)).params().threadId()).isEqualTo("t1")
                .isSameAs(delta(next.get(1)).params().threadId());
    }

    // ------------------------------------------------------------------------------------------------ responses

    @Test
    void aUsualResponseIsBoundWithoutATreeOfTheLine() {
        assertThat(result(Answer.class, "{\"id\":1,\"result\":{\"who\":\"x\",\"counts\":[1,2],\"extra\":{\"a\":[true]}}}"))
                .isEqualTo(new Answer("x", List.of(1, 2)));
        assertThat(((JsonNode) result(JsonNode.class, "{\"id\":1,\"result\":{\"k\":[1,{\"n\":null}]}}"))
                .get("k").get(1).has("n")).isTrue();
        assertThat(result(Void.class, "{\"id\":1,\"result\":{\"ignored\":1}}")).isNull();
        assertThat(result(Empty.class, "{\"id\":1,\"result\":{}}")).isEqualTo(new Empty());
        assertThat(mapper.lineTrees).hasValue(0);
    }

    @Test
    void aNullOrMissingResultIsTheEmptyValueOfItsType() {
        assertThat(result(Empty.class, "{\"id\":1,\"result\":null}")).isEqualTo(new Empty());
        assertThat(result(Answer.class, "{\"id\":1,\"result\":null}")).isEqualTo(new Answer(null, null));
        assertThat(((JsonNode) result(JsonNode.class, "{\"id\":1,\"result\":null}")).isNull()).isTrue();
        assertThat(result(Empty.class, "{\"id\":1,\"error\":null}")).isEqualTo(new Empty());
        assertThat(((JsonNode) result(JsonNode.class, "{\"id\":1,\"error\":null}")).isNull()).isTrue();
    }

    @Test
    void membersInAnUnusualOrderReadLikeATree() {
        assertThat(result(Answer.class, "{\"result\":{\"who\":\"before the id\"},\"id\":1}"))
                .isEqualTo(new Answer("before the id", null));
        // The last id wins, as in a tree: the result read for id 2 belongs to id 1.
        Incoming in = decode("{\"id\":2,\"result\":{\"who\":\"for 1\"},\"id\":1}",
                Map.of(RequestId.of(1), JsonNode.class, RequestId.of(2), Answer.class));
        assertThat(in).isInstanceOfSatisfying(Incoming.Result.class, r -> {
            assertThat(r.id()).isEqualTo(RequestId.of(1));
            assertThat(((JsonNode) r.value()).get("who").asText()).isEqualTo("for 1");
        });
        // The last result wins too.
        assertThat(result(Answer.class, "{\"id\":1,\"result\":{\"who\":\"1\"},\"result\":{\"who\":\"2\"}}"))
                .isEqualTo(new Answer("2", null));
    }

    @Test
    void anErrorWinsOverAResult() {
        Incoming in = decode("{\"id\":1,\"result\":{\"who\":\"x\"},\"error\":{\"code\":-32600,\"message\":\"no\"}}",
                Map.of(RequestId.of(1), Answer.class));
        assertThat(in).isInstanceOfSatisfying(Incoming.Error.class, e -> {
            assertThat(e.id()).isEqualTo(RequestId.of(1));
            assertThat(e.error().get("code").asInt()).isEqualTo(-32600);
        });
    }

    @Test
    void aResultThatDoesNotBindIsReportedWithItsText() {
        Incoming in = decode("{\"id\":1,\"result\":{\"who\":\"w\",\"counts\":{\"not\":\"a list\"}}}",
                Map.of(RequestId.of(1), Answer.class));
        assertThat(in).isInstanceOfSatisfying(Incoming.UndecodableResult.class, u -> {
            assertThat(u.id()).isEqualTo(RequestId.of(1));
            assertThat(u.resultText()).contains("a list");
            assertThat(u.cause()).isNotNull();
        });
        // A tree node type that does not fit the result is reported the same way instead of being lost.
        assertThat(decode("{\"id\":1,\"result\":[1]}", Map.of(RequestId.of(1), ObjectNode.class)))
                .isInstanceOf(Incoming.UndecodableResult.class);
    }

    @Test
    void responsesForIdsNobodyWaitsUnderAreUnmatched() {
        Map<RequestId, Class<?>> pending = Map.of(RequestId.of(1), Answer.class);
        assertThat(decode("{\"id\":null,\"result\":{}}", pending)).isInstanceOf(Incoming.Unmatched.class);
        assertThat(decode("{\"id\":\"1\",\"result\":{}}", pending)).isInstanceOf(Incoming.Unmatched.class);
        assertThat(decode("{\"id\":1.5,\"result\":{}}", pending)).isInstanceOf(Incoming.Unmatched.class);
        assertThat(decode("{\"id\":123456789012345678901234567890,\"result\":{}}", pending))
                .isInstanceOf(Incoming.Unmatched.class);
        assertThat(decode("{\"id\":2,\"result\":{}}", pending)).isInstanceOf(Incoming.Unmatched.class);
        assertThat(decode("{\"id\":1}", pending)).isEqualTo(new Incoming.Malformed("messages of no known kind"));
    }

    // ------------------------------------------------------------------------------------------------ the rest

    @Test
    void notificationsAreDecodedInOnePassIntoTheirVariantWithTheirRoute() {
        int trees = mapper.lineTrees.get();
        Incoming in = decode("{\"method\":\"item/agentMessage/delta\",\"params\":{\"threadId\":\"t1\","
                + "\"turnId\":\"u1\",\"itemId\":\"m\",\"delta\":\"hi\"},\"emittedAtMs\":3}", Map.of());
        assertThat(in).isInstanceOfSatisfying(Incoming.Notification.class, n -> {
            assertThat(n.notification().threadId()).hasValue("t1");
            assertThat(n.notification().turnId()).hasValue("u1");
            assertThat(n.notification().notification()).isInstanceOfSatisfying(
                    ServerNotification.ItemAgentMessageDelta.class, d -> {
                        assertThat(d.params().delta()).isEqualTo("hi");
                        assertThat(d.emittedAtMs()).isEqualTo(3L);
                    });
            assertThat(n.resolves()).isEmpty();
        });
        assertThat(mapper.lineTrees.get()).as("trees of whole lines").isEqualTo(trees);
    }

    @Test
    void notificationsRouteByTheirThreadObjectAndResolvedRequestsAreWithdrawn() {
        assertThat(decode("{\"method\":\"thread/started\",\"params\":{\"thread\":{\"id\":\"T1\"}}}", Map.of()))
                .isInstanceOfSatisfying(Incoming.Notification.class, n -> {
                    assertThat(n.notification().threadId()).hasValue("T1");
                    assertThat(n.notification().notification()).isInstanceOf(ServerNotification.ThreadStarted.class);
                    assertThat(n.resolves()).isEmpty();
                });
        assertThat(decode("{\"method\":\"serverRequest/resolved\",\"params\":{\"threadId\":\"t\",\"requestId\":4}}",
                Map.of())).isInstanceOfSatisfying(Incoming.Notification.class, n -> {
                    assertThat(n.resolves()).hasValue(RequestId.of(4));
                    assertThat(n.notification().threadId()).hasValue("t");
                });
        assertThat(decode("{\"method\":\"account/updated\",\"params\":{}}", Map.of()))
                .isInstanceOfSatisfying(Incoming.Notification.class,
                        n -> assertThat(n.notification().threadId()).isEmpty());
    }

    @Test
    void membersInAnotherOrderGiveTheSameNotification() {
        Incoming first = decode("{\"method\":\"turn/started\",\"params\":{\"threadId\":\"t\",\"turn\":{\"id\":\"u\","
                + "\"items\":[],\"status\":\"inProgress\"}}}", Map.of());
        Incoming last = decode("{\"params\":{\"threadId\":\"t\",\"turn\":{\"id\":\"u\",\"items\":[],"
                + "\"status\":\"inProgress\"}},\"method\":\"turn/started\"}", Map.of());
        assertThat(first).isInstanceOf(Incoming.Notification.class);
        assertThat(last).isInstanceOf(Incoming.Notification.class);
        IncomingNotification a = ((Incoming.Notification) first).notification();
        IncomingNotification b = ((Incoming.Notification) last).notification();
        assertThat(b.notification()).isEqualTo(a.notification()).isInstanceOf(ServerNotification.TurnStarted.class);
        assertThat(b.threadId()).isEqualTo(a.threadId()).hasValue("t");
        assertThat(b.turnId()).isEqualTo(a.turnId()).hasValue("u");
    }

    @Test
    void notificationsOfUnknownMethodsAreKeptAndRoutedByTheirRawParams() {
        assertThat(decode("{\"method\":\"future/thing\",\"params\":{\"threadId\":\"t9\",\"turn\":{\"id\":\"u9\"},"
                + "\"x\":[1]}}", Map.of())).isInstanceOfSatisfying(Incoming.Notification.class, n -> {
                    assertThat(n.notification().notification()).isInstanceOfSatisfying(
                            ServerNotification.Unrecognized.class,
                            u -> assertThat(u.raw().path("params").path("x").get(0).asInt()).isEqualTo(1));
                    assertThat(n.notification().method()).isEqualTo("future/thing");
                    assertThat(n.notification().threadId()).hasValue("t9");
                    assertThat(n.notification().turnId()).hasValue("u9");
                });
    }

    @Test
    void notificationsWhoseParamsBreakTheSchemaAreKeptWholeAndStillRouted() {
        assertThat(decode("{\"method\":\"item/agentMessage/delta\",\"params\":{\"threadId\":\"t1\",\"turnId\":\"u1\","
                + "\"itemId\":\"m\",\"delta\":{\"not\":\"a string\"}}}", Map.of()))
                .isInstanceOfSatisfying(Incoming.Notification.class, n -> {
                    assertThat(n.notification().notification()).isInstanceOfSatisfying(
                            ServerNotification.Unrecognized.class,
                            u -> assertThat(u.raw().path("params").path("delta").path("not").asText())
                                    .isEqualTo("a string"));
                    assertThat(n.notification().threadId()).hasValue("t1");
                });
        assertThat(decode("{\"method\":\"serverRequest/resolved\",\"params\":{\"requestId\":\"r\",\"threadId\":[]}}",
                Map.of())).isInstanceOfSatisfying(Incoming.Notification.class,
                        n -> assertThat(n.resolves()).hasValue(RequestId.of("r")));
    }

    @Test
    void aMessageWithAnIdAfterItsMethodIsARequestNotANotification() {
        // Known method, unknown method, and an id of JSON null (no id: a notification).
        assertThat(decode("{\"method\":\"item/agentMessage/delta\",\"params\":{\"threadId\":\"t\"},\"id\":9}",
                Map.of())).isInstanceOfSatisfying(Incoming.Request.class, r -> {
                    assertThat(r.request().id()).isEqualTo(RequestId.of(9));
                    assertThat(r.request().method()).isEqualTo("item/agentMessage/delta");
                });
        assertThat(decode("{\"method\":\"future/ask\",\"params\":{},\"id\":\"q\"}", Map.of()))
                .isInstanceOfSatisfying(Incoming.Request.class,
                        r -> assertThat(r.request().id()).isEqualTo(RequestId.of("q")));
        assertThat(decode("{\"method\":\"account/updated\",\"params\":{},\"id\":null}", Map.of()))
                .isInstanceOf(Incoming.Notification.class);
    }

    @Test
    void serverRequestsCarryTheirWholeMessage() {
        assertThat(decode("{\"id\":7,\"method\":\"item/tool/call\",\"params\":{\"tool\":\"t\"}}", Map.of()))
                .isInstanceOfSatisfying(Incoming.Request.class, r -> {
                    assertThat(r.request().id()).isEqualTo(RequestId.of(7));
                    assertThat(r.request().method()).isEqualTo("item/tool/call");
                    assertThat(r.request().message().get("params").get("tool").asText()).isEqualTo("t");
                });
        assertThat(decode("{\"id\":{\"weird\":1},\"method\":\"x\"}", Map.of()))
                .isEqualTo(new Incoming.Malformed("server requests with invalid ids"));
    }

    @Test
    void linesThatAreNoMessageAreMalformed() {
        assertThat(decode("not json at all", Map.of())).isEqualTo(new Incoming.Malformed("lines that are not JSON"));
        assertThat(decode("[1,2,3]", Map.of()))
                .isEqualTo(new Incoming.Malformed("messages that are not JSON objects"));
        assertThat(decode("{\"neither\":true}", Map.of()))
                .isEqualTo(new Incoming.Malformed("messages of no known kind"));
        Map<RequestId, Class<?>> pending = Map.of(RequestId.of(1), Answer.class);
        // A good result followed by a broken line is not JSON: nothing in it is trusted.
        assertThat(decode("{\"id\":1,\"result\":{\"who\":\"early\"},\"extra\":[1,}", pending))
                .isEqualTo(new Incoming.Malformed("lines that are not JSON"));
        assertThat(decode("{\"id\":1,\"result\":{\"who\":\"broken\",}}", pending))
                .isEqualTo(new Incoming.Malformed("lines that are not JSON"));
        assertThat(decode("{\"id\":1,\"result\":{\"who\":\"unclosed\"}", pending))
                .isEqualTo(new Incoming.Malformed("lines that are not JSON"));
    }

    // ------------------------------------------------------------------------------------------------ encoding

    @Test
    void encodesRequestsNotificationsAndRepliesWithoutAJsonrpcMember() throws IOException {
        JsonNode request = mapper.readTree(codec.encodeRequest(RequestId.of(3), "thread/start",
                mapper.createObjectNode().put("x", 1)));
        assertThat(request.toString()).isEqualTo("{\"id\":3,\"method\":\"thread/start\",\"params\":{\"x\":1}}");
        assertThat(mapper.readTree(codec.encodeRequest(null, "initialized", null)).toString())
                .isEqualTo("{\"method\":\"initialized\"}");
        assertThat(mapper.readTree(codec.encodeResult(RequestId.of("s"), null)).toString())
                .isEqualTo("{\"id\":\"s\",\"result\":{}}");
        assertThat(mapper.readTree(codec.encodeResult(RequestId.of(2), mapper.valueToTree(new Answer("a", List.of(1))))).toString())
                .isEqualTo("{\"id\":2,\"result\":{\"who\":\"a\",\"counts\":[1]}}");
        assertThat(mapper.readTree(codec.encodeError(RequestId.of(5), -32601, "no", null)).toString())
                .isEqualTo("{\"id\":5,\"error\":{\"code\":-32601,\"message\":\"no\"}}");
    }
}

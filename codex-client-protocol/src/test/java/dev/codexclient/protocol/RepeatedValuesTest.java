package dev.codexclient.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A config that keeps the values a stream repeats: the same string (and {@code Long}) back for an equal id, tag or
 * timestamp, and otherwise exactly what a plain read gives.
 */
class RepeatedValuesTest {
    private final ObjectMapper mapper = ProtocolJson.mapper();
    private final ObjectReader plain = mapper.readerFor(ServerNotification.class);
    private final ObjectReader repeating = plain.with(ProtocolJson.reusingRepeatedValues(
            mapper.getDeserializationConfig()));

    private static String delta(String thread, String turn, String item, String delta, long emitted) {
        return "{\"method\":\"item/agentMessage/delta\",\"params\":{\"threadId\":\"" + thread + "\",\"turnId\":\""
                + turn + "\",\"itemId\":\"" + item + "\",\"delta\":\"" + delta + "\"},\"emittedAtMs\":" + emitted
                + "}";
    }

    private static ServerNotification.ItemAgentMessageDelta read(ObjectReader reader, String json) throws Exception {
        return (ServerNotification.ItemAgentMessageDelta) reader.readValue(json);
    }

    @Test
    void aStreamGetsTheIdsAndTheTimestampItRepeatsAsOneObject() throws Exception {
        String thread = "01a200f4-3e2d-7ad3-bee4-1dd83265070f";
        // The first sight of a value keeps its characters, the second its string, which the third gets back.
        var seen = read(repeating, delta(thread, "01a200f4-3e44-79b2-9aa9-24931400c274", "msg_2", "?",
                1795312336697L));
        var first = read(repeating, delta(thread, "01a200f4-3e44-79b2-9aa9-24931400c274", "msg_2", "Gr\u00fc\u00dfe",
                1795312336697L));
        var second = read(repeating, delta(thread, "01a200f4-3e44-79b2-9aa9-24931400c274", "msg_2", "! Caf",
                1795312336697L));
        assertThat(second.params().threadId()).isEqualTo(thread).isSameAs(first.params().threadId());
        assertThat(second.params().turnId()).isSameAs(first.params().turnId());
        assertThat(second.params().itemId()).isEqualTo("msg_2").isSameAs(first.params().itemId());
        assertThat(second.emittedAtMs()).isEqualTo(1795312336697L).isSameAs(first.emittedAtMs());
        assertThat(second.method()).isEqualTo("item/agentMessage/delta");
        assertThat(seen.params().threadId()).isEqualTo(thread).isNotSameAs(first.params().threadId());
        assertThat(first.params().delta()).isEqualTo("Gr\u00fc\u00dfe");
        assertThat(second.params().delta()).isEqualTo("! Caf");

        var plainFirst = read(plain, delta(thread, "u", "i", "d", 1795312336697L));
        var plainSecond = read(plain, delta(thread, "u", "i", "d", 1795312336697L));
        assertThat(plainSecond.params().threadId()).as("a plain read makes a new string")
                .isEqualTo(thread).isNotSameAs(plainFirst.params().threadId());
        assertThat(plainSecond.emittedAtMs()).isNotSameAs(plainFirst.emittedAtMs());
    }

    @Test
    void valuesThatChangeAreReadAsTheyAreAndThenKept() throws Exception {
        // Same length, differing only in the first character, then the last, then back: never the stale value.
        // z-0000 after a-0000 is kept: as long, the same last character, another first one.
        List<String> threads = List.of("a-0000", "b-0000", "b-0001", "b-0001", "b-0001", "a-0000", "a-0000", "a-0000",
                "z-0000", "", "\u00e9t\u00e9-\u2603", "\u00e9t\u00e9-\u2603", "\u00e9t\u00e9-\u2603");
        List<ServerNotification.ItemAgentMessageDelta> read = new ArrayList<>();
        long emitted = 1;
        for (String t : threads) {
            read.add(read(repeating, delta(t, "turn-" + t, "item", "x", emitted++ / 3)));
        }
        for (int i = 0; i < threads.size(); i++) {
            assertThat(read.get(i).params().threadId()).isEqualTo(threads.get(i));
            assertThat(read.get(i).params().turnId()).isEqualTo("turn-" + threads.get(i));
            assertThat(read.get(i).emittedAtMs()).isEqualTo((i + 1) / 3L);
        }
        assertThat(read.get(4).params().threadId()).isSameAs(read.get(3).params().threadId());
        assertThat(read.get(7).params().threadId()).isSameAs(read.get(6).params().threadId());
        assertThat(read.get(12).params().threadId()).isSameAs(read.get(11).params().threadId());
        assertThat(read.get(4).emittedAtMs()).isSameAs(read.get(3).emittedAtMs());
    }

    @Test
    void aKindWhoseValueKeepsChangingRestsAWhileAndThenKeepsAgain() throws Exception {
        for (int i = 0; i < RepeatedValues.MISSES; i++) {
            read(repeating, delta("changing-" + i, "u", "i", "d", 1));
        }
        List<String> resting = new ArrayList<>();
        for (int i = 0; i < RepeatedValues.REST; i++) {
            resting.add(read(repeating, delta("same", "u", "i", "d", 1)).params().threadId());
        }
        assertThat(resting).allSatisfy(t -> assertThat(t).isEqualTo("same"));
        assertThat(resting.get(RepeatedValues.REST - 1)).as("read the plain way while resting")
                .isNotSameAs(resting.get(RepeatedValues.REST - 2));
        read(repeating, delta("same", "u", "i", "d", 1));
        var kept = read(repeating, delta("same", "u", "i", "d", 1));
        assertThat(read(repeating, delta("same", "u", "i", "d", 1)).params().threadId())
                .isSameAs(kept.params().threadId());
    }

    @Test
    void escapesAreReadAsAPlainReadReadsThem() throws Exception {
        read(repeating, delta("t\\u00e9\\\"x", "u", "i", "d", 1));
        var first = read(repeating, delta("t\u00e9\\\"x", "u", "i", "d", 1));
        var second = read(repeating, delta("t\\u00e9\\\"x", "u", "i", "d", 1));
        assertThat(first.params().threadId()).isEqualTo("t\u00e9\"x");
        assertThat(second.params().threadId()).isEqualTo("t\u00e9\"x").isSameAs(first.params().threadId());
    }

    @Test
    void aLongStringIsNotKept() throws Exception {
        String longId = "x".repeat(RepeatedValues.MAX_LENGTH + 1);
        read(repeating, delta("short", "u", "i", "d", 1));
        var kept = read(repeating, delta("short", "u", "i", "d", 1));
        var first = read(repeating, delta(longId, "u", "i", "d", 1));
        var second = read(repeating, delta(longId, "u", "i", "d", 1));
        var third = read(repeating, delta("short", "u", "i", "d", 1));
        assertThat(second.params().threadId()).isEqualTo(longId).isNotSameAs(first.params().threadId());
        assertThat(third.params().threadId()).isSameAs(kept.params().threadId());
    }

    @Test
    void onAnotherThreadTheConfigReadsAsAPlainOne() throws Exception {
        String json = delta("thread", "turn", "item", "d", 5);
        AtomicReference<List<ServerNotification.ItemAgentMessageDelta>> there = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread other = new Thread(() -> {
            try {
                there.set(List.of(read(repeating, json), read(repeating, json), read(repeating, json)));
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        other.start();
        other.join();
        assertThat(failure.get()).isNull();
        var a = there.get().get(1);
        var b = there.get().get(2);
        assertThat(b.params().threadId()).isEqualTo("thread").isNotSameAs(a.params().threadId());
        assertThat(b.emittedAtMs()).isEqualTo(5L);
        assertThat(read(repeating, json).params().threadId()).isEqualTo("thread");
    }

    @Test
    void aTreeReadsThroughThePlainPathWithTheSameValues() throws Exception {
        JsonNode tree = mapper.readTree(delta("thread", "turn", "item", "d", 7));
        var fromTree = (ServerNotification.ItemAgentMessageDelta) repeating.readValue(tree);
        assertThat(fromTree).isEqualTo(read(plain, delta("thread", "turn", "item", "d", 7)));
    }

    @Test
    void theIdsOfThreadsTurnsAndItemsAndTheirTimestampsAreKept() throws Exception {
        String started = "{\"method\":\"item/started\",\"params\":{\"item\":{\"type\":\"agentMessage\",\"id\":\"msg_2\","
                + "\"text\":\"\",\"startedAtMs\":1795555162823},\"threadId\":\"th\",\"turnId\":\"tu\","
                + "\"startedAtMs\":1795555162823},\"emittedAtMs\":1795555162823}";
        repeating.readValue(started);
        var a = (ServerNotification.ItemStarted) repeating.readValue(started);
        var b = (ServerNotification.ItemStarted) repeating.readValue(started);
        assertThat(b.params().item().id()).isEqualTo("msg_2").isSameAs(a.params().item().id());
        assertThat(b.params().threadId()).isSameAs(a.params().threadId());
        assertThat(b.params().item().startedAtMs()).isEqualTo(1795555162823L)
                .isSameAs(a.params().item().startedAtMs()).isSameAs(b.emittedAtMs());
        assertThat(b).isEqualTo(plain.readValue(started));
        // What is read is written back unchanged.
        assertThat(mapper.readTree(mapper.writeValueAsString(b))).isEqualTo(mapper.readTree(started));
    }

    @Test
    void theConfigKeepsTheAttributesItWasGiven() {
        var config = mapper.getDeserializationConfig().withAttribute("k", "v");
        var repeatingConfig = ProtocolJson.reusingRepeatedValues(config);
        assertThat(repeatingConfig.getAttributes().getAttribute("k")).isEqualTo("v");
        assertThat(repeatingConfig.getAttributes().withSharedAttribute("k2", "w").getAttribute("k")).isEqualTo("v");
    }
}

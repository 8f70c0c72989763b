package dev.codexclient.internal.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.codexclient.protocol.AgentMessageDeltaNotification;
import dev.codexclient.protocol.CommandExecutionOutputDeltaNotification;
import dev.codexclient.protocol.FileChangeOutputDeltaNotification;
import dev.codexclient.protocol.PlanDeltaNotification;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ReasoningSummaryTextDeltaNotification;
import dev.codexclient.protocol.ReasoningTextDeltaNotification;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.UnknownMembers;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Which deltas merge, and what the merged notification is, for each of the six kinds of text delta: the merged one
 * must be a notification the server could have sent, of the same method and type, with the texts in order.
 */
class DeltaCoalescingTest {

    /** The six kinds of text delta: how to make one, and how to read its text. */
    enum Kind {
        AGENT_MESSAGE("item/agentMessage/delta", ServerNotification.ItemAgentMessageDelta.class, false) {
            @Override
            ServerNotification make(Delta d) {
                return new ServerNotification.ItemAgentMessageDelta(d.at,
                        new AgentMessageDeltaNotification(d.text, d.item, d.thread, d.turn, d.unknown));
            }

            @Override
            String text(ServerNotification n) {
                return ((ServerNotification.ItemAgentMessageDelta) n).params().delta();
            }
        },
        PLAN("item/plan/delta", ServerNotification.ItemPlanDelta.class, false) {
            @Override
            ServerNotification make(Delta d) {
                return new ServerNotification.ItemPlanDelta(d.at,
                        new PlanDeltaNotification(d.text, d.item, d.thread, d.turn, d.unknown));
            }

            @Override
            String text(ServerNotification n) {
                return ((ServerNotification.ItemPlanDelta) n).params().delta();
            }
        },
        REASONING_TEXT("item/reasoning/textDelta", ServerNotification.ItemReasoningTextDelta.class, true) {
            @Override
            ServerNotification make(Delta d) {
                return new ServerNotification.ItemReasoningTextDelta(d.at,
                        new ReasoningTextDeltaNotification(d.index, d.text, d.item, d.thread, d.turn, d.unknown));
            }

            @Override
            String text(ServerNotification n) {
                return ((ServerNotification.ItemReasoningTextDelta) n).params().delta();
            }
        },
        REASONING_SUMMARY("item/reasoning/summaryTextDelta", ServerNotification.ItemReasoningSummaryTextDelta.class,
                true) {
            @Override
            ServerNotification make(Delta d) {
                return new ServerNotification.ItemReasoningSummaryTextDelta(d.at,
                        new ReasoningSummaryTextDeltaNotification(d.text, d.item, d.index, d.thread, d.turn,
                                d.unknown));
            }

            @Override
            String text(ServerNotification n) {
                return ((ServerNotification.ItemReasoningSummaryTextDelta) n).params().delta();
            }
        },
        COMMAND_OUTPUT("item/commandExecution/outputDelta", ServerNotification.ItemCommandExecutionOutputDelta.class,
                false) {
            @Override
            ServerNotification make(Delta d) {
                return new ServerNotification.ItemCommandExecutionOutputDelta(d.at,
                        new CommandExecutionOutputDeltaNotification(d.text, d.item, d.thread, d.turn, d.unknown));
            }

            @Override
            String text(ServerNotification n) {
                return ((ServerNotification.ItemCommandExecutionOutputDelta) n).params().delta();
            }
        },
        FILE_CHANGE_OUTPUT("item/fileChange/outputDelta", ServerNotification.ItemFileChangeOutputDelta.class, false) {
            @Override
            ServerNotification make(Delta d) {
                return new ServerNotification.ItemFileChangeOutputDelta(d.at,
                        new FileChangeOutputDeltaNotification(d.text, d.item, d.thread, d.turn, d.unknown));
            }

            @Override
            String text(ServerNotification n) {
                return ((ServerNotification.ItemFileChangeOutputDelta) n).params().delta();
            }
        };

        final String method;
        final Class<? extends ServerNotification> type;
        /** Whether the kind has a part index (contentIndex, summaryIndex) that must match too. */
        final boolean indexed;

        Kind(String method, Class<? extends ServerNotification> type, boolean indexed) {
            this.method = method;
            this.type = type;
            this.indexed = indexed;
        }

        abstract ServerNotification make(Delta d);

        abstract String text(ServerNotification n);

        ServerNotification delta(String text, long at) {
            return make(new Delta(text, at));
        }
    }

    /** The members of a delta, with defaults the tests change one at a time. */
    static final class Delta {
        String text;
        Long at;
        String item = "item-1";
        String thread = "thr";
        String turn = "turn";
        long index = 0;
        UnknownMembers unknown = UnknownMembers.none();

        Delta(String text, long at) {
            this.text = text;
            this.at = at;
        }

        Delta item(String value) {
            item = value;
            return this;
        }

        Delta thread(String value) {
            thread = value;
            return this;
        }

        Delta turn(String value) {
            turn = value;
            return this;
        }

        Delta index(long value) {
            index = value;
            return this;
        }

        Delta unknown(String name, String value) {
            unknown = UnknownMembers.of(Map.of(name, TextNode.valueOf(value)));
            return this;
        }
    }

    private static JsonNode wire(ServerNotification n) {
        return ProtocolJson.mapper().valueToTree(n);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void twoDeltasOfOneItemMergeIntoWhatTheServerWouldHaveSentForBoth(Kind kind) {
        Delta first = new Delta("Hel", 1).index(2);
        Delta second = new Delta("lo, wörld", 2).index(2);

        ServerNotification merged = DeltaCoalescing.merge(kind.make(first), kind.make(second));

        assertThat(merged).isInstanceOf(kind.type);
        assertThat(merged.method()).isEqualTo(kind.method);
        assertThat(kind.text(merged)).isEqualTo("Hello, wörld");
        assertThat(merged.emittedAtMs()).as("the later delta's emission time").isEqualTo(2L);
        // Every other member is the deltas' own: on the wire it is the one delta the server could have sent.
        assertThat(wire(merged)).isEqualTo(wire(kind.make(new Delta("Hello, wörld", 2).index(2))));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aRunOfDeltasFoldsIntoOneWithEveryCharacterInOrder(Kind kind) {
        String[] parts = {"a", "", "é", "👋", " ", "\n", "z".repeat(1000), "\u0000", "end"};
        ServerNotification folded = kind.delta(parts[0], 0);
        for (int i = 1; i < parts.length; i++) {
            folded = DeltaCoalescing.merge(folded, kind.delta(parts[i], i));
        }
        assertThat(kind.text(folded)).isEqualTo(String.join("", parts));
        assertThat(folded.emittedAtMs()).isEqualTo((long) parts.length - 1);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aMissingTextCountsAsEmpty(Kind kind) {
        Delta none = new Delta(null, 1);
        assertThat(kind.text(DeltaCoalescing.merge(kind.make(none), kind.delta("x", 2)))).isEqualTo("x");
        assertThat(kind.text(DeltaCoalescing.merge(kind.delta("x", 1), kind.make(new Delta(null, 2)))))
                .isEqualTo("x");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void deltasOfAnotherItemThreadOrTurnStayApart(Kind kind) {
        ServerNotification base = kind.delta("a", 1);
        assertThat(DeltaCoalescing.merge(base, kind.make(new Delta("b", 2).item("item-2")))).as("item").isNull();
        assertThat(DeltaCoalescing.merge(base, kind.make(new Delta("b", 2).thread("thr-2")))).as("thread").isNull();
        assertThat(DeltaCoalescing.merge(base, kind.make(new Delta("b", 2).turn("turn-2")))).as("turn").isNull();
        // Without an item there is nothing to say they are one text.
        ServerNotification noItem = kind.make(new Delta("a", 1).item(null));
        assertThat(DeltaCoalescing.merge(noItem, kind.make(new Delta("b", 2).item(null)))).as("no item").isNull();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anotherPartOfAReasoningItemStaysApart(Kind kind) {
        ServerNotification part0 = kind.make(new Delta("a", 1).index(0));
        ServerNotification part1 = kind.make(new Delta("b", 2).index(1));
        if (kind.indexed) {
            assertThat(DeltaCoalescing.merge(part0, part1)).isNull();
        } else {
            assertThat(DeltaCoalescing.merge(part0, part1)).as("no index in this kind").isNotNull();
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void deltasWithMembersOfANewerServerStayApart(Kind kind) {
        ServerNotification plain = kind.delta("a", 1);
        ServerNotification newer = kind.make(new Delta("b", 2).unknown("phase", "final"));
        assertThat(DeltaCoalescing.merge(plain, newer)).isNull();
        assertThat(DeltaCoalescing.merge(newer, plain)).isNull();
        assertThat(DeltaCoalescing.merge(newer, kind.make(new Delta("c", 3).unknown("phase", "final")))).isNull();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aDeltaOfAnotherKindOfTheSameItemStaysApart(Kind kind) {
        for (Kind other : Kind.values()) {
            if (other != kind) {
                assertThat(DeltaCoalescing.merge(kind.delta("a", 1), other.delta("b", 2))).as(other.name()).isNull();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aNotificationThatIsNoDeltaStaysApart(Kind kind) {
        ObjectNode raw = ProtocolJson.mapper().createObjectNode().put("method", kind.method + "/v2");
        raw.putObject("params").put("delta", "b").put("itemId", "item-1").put("threadId", "thr").put("turnId", "turn");
        ServerNotification unrecognized = new ServerNotification.Unrecognized(raw);
        assertThat(DeltaCoalescing.merge(kind.delta("a", 1), unrecognized)).isNull();
        assertThat(DeltaCoalescing.merge(unrecognized, kind.delta("a", 1))).isNull();
    }

    /**
     * The protocol's other deltas, which stay apart on purpose: byte chunks in base64 with a cap flag (a command's or
     * a process's output) and realtime audio cannot be joined as text, and realtime transcripts are not items of a
     * turn's text; a subscriber that lags behind them overflows as without coalescing.
     */
    private static final Map<String, String> LEFT_APART = Map.of(
            "CommandExecOutputDelta", "{\"method\":\"command/exec/outputDelta\",\"params\":{\"capReached\":false,"
                    + "\"deltaBase64\":\"aGk=\",\"processId\":\"p1\",\"stream\":\"stdout\"}}",
            "ProcessOutputDelta", "{\"method\":\"process/outputDelta\",\"params\":{\"capReached\":false,"
                    + "\"deltaBase64\":\"aGk=\",\"processHandle\":\"p1\",\"stream\":\"stdout\"}}",
            "ThreadRealtimeItemTranscriptDelta", "{\"method\":\"thread/realtime/item/transcript/delta\","
                    + "\"params\":{\"delta\":\"hi\",\"itemId\":\"i1\",\"threadId\":\"thr\"}}",
            "ThreadRealtimeTranscriptDelta", "{\"method\":\"thread/realtime/transcript/delta\","
                    + "\"params\":{\"delta\":\"hi\",\"role\":\"user\",\"threadId\":\"thr\"}}",
            "ThreadRealtimeOutputAudioDelta", "{\"method\":\"thread/realtime/outputAudio/delta\","
                    + "\"params\":{\"audio\":{\"data\":\"AAAA\",\"numChannels\":1,\"sampleRate\":24000},"
                    + "\"threadId\":\"thr\"}}");

    @Test
    void theProtocolsOtherDeltasStayApart() throws Exception {
        for (Map.Entry<String, String> e : LEFT_APART.entrySet()) {
            ServerNotification n = ProtocolJson.mapper().readValue(e.getValue(), ServerNotification.class);
            assertThat(n.getClass().getSimpleName()).isEqualTo(e.getKey());
            assertThat(DeltaCoalescing.merge(n, n)).as(e.getKey()).isNull();
        }
    }

    @Test
    void everyDeltaOfTheProtocolIsMergedOrLeftApartOnPurpose() {
        // A new delta in the protocol must get a merge rule (and a line in Kind) or a line in LEFT_APART.
        assertThat(Arrays.stream(ServerNotification.class.getPermittedSubclasses()).map(Class::getSimpleName)
                .filter(name -> name.endsWith("Delta")))
                .containsExactlyInAnyOrderElementsOf(Stream.concat(
                        Arrays.stream(Kind.values()).map(k -> k.type.getSimpleName()), LEFT_APART.keySet().stream())
                        .toList());
    }
}

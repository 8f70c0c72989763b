package dev.codexclient.internal.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.codexclient.protocol.AgentMessageDeltaNotification;
import dev.codexclient.protocol.ReasoningSummaryTextDeltaNotification;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.UnknownMembers;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which deltas merge, and what the merged notification is. */
class DeltaCoalescingTest {

    private static ServerNotification message(String item, String delta, long at) {
        return new ServerNotification.ItemAgentMessageDelta(at,
                new AgentMessageDeltaNotification(delta, item, "thr", "turn"));
    }

    @Test
    void deltasOfOneItemMergeIntoOneOfTheSameMethodAndType() {
        ServerNotification merged = DeltaCoalescing.merge(message("m1", "Hel", 1), message("m1", "lo", 2));
        assertThat(merged).isInstanceOf(ServerNotification.ItemAgentMessageDelta.class);
        assertThat(merged.method()).isEqualTo("item/agentMessage/delta");
        ServerNotification.ItemAgentMessageDelta d = (ServerNotification.ItemAgentMessageDelta) merged;
        assertThat(d.params().delta()).isEqualTo("Hello");
        assertThat(d.params().itemId()).isEqualTo("m1");
        assertThat(d.threadId()).contains("thr");
        assertThat(d.turnId()).contains("turn");
        assertThat(d.emittedAtMs()).isEqualTo(2L);
    }

    @Test
    void deltasOfOtherItemsOrKindsStayApart() {
        assertThat(DeltaCoalescing.merge(message("m1", "a", 1), message("m2", "b", 2))).isNull();
        ServerNotification summary = new ServerNotification.ItemReasoningSummaryTextDelta(1L,
                new ReasoningSummaryTextDeltaNotification("x", "m1", 0, "thr", "turn"));
        assertThat(DeltaCoalescing.merge(message("m1", "a", 1), summary)).isNull();
        ServerNotification nextSummary = new ServerNotification.ItemReasoningSummaryTextDelta(1L,
                new ReasoningSummaryTextDeltaNotification("y", "m1", 1, "thr", "turn"));
        assertThat(DeltaCoalescing.merge(summary, nextSummary)).as("another summary part").isNull();
    }

    @Test
    void deltasWithMembersOfANewerServerStayApart() {
        ServerNotification newer = new ServerNotification.ItemAgentMessageDelta(2L,
                new AgentMessageDeltaNotification("b", "m1", "thr", "turn",
                        UnknownMembers.of(Map.of("phase", TextNode.valueOf("final")))));
        assertThat(DeltaCoalescing.merge(message("m1", "a", 1), newer)).isNull();
    }
}

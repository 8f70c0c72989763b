package dev.codexclient.internal.flow;

import dev.codexclient.protocol.AgentMessageDeltaNotification;
import dev.codexclient.protocol.CommandExecutionOutputDeltaNotification;
import dev.codexclient.protocol.FileChangeOutputDeltaNotification;
import dev.codexclient.protocol.PlanDeltaNotification;
import dev.codexclient.protocol.ReasoningSummaryTextDeltaNotification;
import dev.codexclient.protocol.ReasoningTextDeltaNotification;
import dev.codexclient.protocol.ServerNotification;
import java.util.Objects;

/**
 * Merges two consecutive text deltas of the same item into one notification of the same method and type, for a
 * subscriber that lags ({@code PublisherOverflow.COALESCE_DELTAS}). Written out per type rather than by reflection:
 * the six delta kinds are few, and each says exactly which fields must match for the texts to be one stream.
 */
public final class DeltaCoalescing {

    private DeltaCoalescing() {
    }

    /**
     * The two deltas as one, or null when they are not of the same kind and item (or carry unknown members).
     *
     * @param earlier the delta that waits
     * @param later   the delta that arrived after it
     * @return {@code earlier}'s notification with {@code later}'s text appended and {@code later}'s emission time,
     *         or null when they cannot be merged
     */
    public static ServerNotification merge(ServerNotification earlier, ServerNotification later) {
        if (earlier instanceof ServerNotification.ItemAgentMessageDelta a
                && later instanceof ServerNotification.ItemAgentMessageDelta b) {
            AgentMessageDeltaNotification p = a.params();
            AgentMessageDeltaNotification q = b.params();
            return p != null && q != null && known(p.unknownMembers().isEmpty(), q.unknownMembers().isEmpty())
                    && same(p.itemId(), q.itemId(), p.threadId(), q.threadId(), p.turnId(), q.turnId())
                    ? new ServerNotification.ItemAgentMessageDelta(b.emittedAtMs(),
                    new AgentMessageDeltaNotification(join(p.delta(), q.delta()), p.itemId(), p.threadId(), p.turnId()))
                    : null;
        }
        if (earlier instanceof ServerNotification.ItemPlanDelta a && later instanceof ServerNotification.ItemPlanDelta b) {
            PlanDeltaNotification p = a.params();
            PlanDeltaNotification q = b.params();
            return p != null && q != null && known(p.unknownMembers().isEmpty(), q.unknownMembers().isEmpty())
                    && same(p.itemId(), q.itemId(), p.threadId(), q.threadId(), p.turnId(), q.turnId())
                    ? new ServerNotification.ItemPlanDelta(b.emittedAtMs(),
                    new PlanDeltaNotification(join(p.delta(), q.delta()), p.itemId(), p.threadId(), p.turnId()))
                    : null;
        }
        if (earlier instanceof ServerNotification.ItemReasoningTextDelta a
                && later instanceof ServerNotification.ItemReasoningTextDelta b) {
            ReasoningTextDeltaNotification p = a.params();
            ReasoningTextDeltaNotification q = b.params();
            return p != null && q != null && known(p.unknownMembers().isEmpty(), q.unknownMembers().isEmpty())
                    && p.contentIndex() == q.contentIndex()
                    && same(p.itemId(), q.itemId(), p.threadId(), q.threadId(), p.turnId(), q.turnId())
                    ? new ServerNotification.ItemReasoningTextDelta(b.emittedAtMs(),
                    new ReasoningTextDeltaNotification(p.contentIndex(), join(p.delta(), q.delta()), p.itemId(),
                            p.threadId(), p.turnId()))
                    : null;
        }
        if (earlier instanceof ServerNotification.ItemReasoningSummaryTextDelta a
                && later instanceof ServerNotification.ItemReasoningSummaryTextDelta b) {
            ReasoningSummaryTextDeltaNotification p = a.params();
            ReasoningSummaryTextDeltaNotification q = b.params();
            return p != null && q != null && known(p.unknownMembers().isEmpty(), q.unknownMembers().isEmpty())
                    && p.summaryIndex() == q.summaryIndex()
                    && same(p.itemId(), q.itemId(), p.threadId(), q.threadId(), p.turnId(), q.turnId())
                    ? new ServerNotification.ItemReasoningSummaryTextDelta(b.emittedAtMs(),
                    new ReasoningSummaryTextDeltaNotification(join(p.delta(), q.delta()), p.itemId(),
                            p.summaryIndex(), p.threadId(), p.turnId()))
                    : null;
        }
        if (earlier instanceof ServerNotification.ItemCommandExecutionOutputDelta a
                && later instanceof ServerNotification.ItemCommandExecutionOutputDelta b) {
            CommandExecutionOutputDeltaNotification p = a.params();
            CommandExecutionOutputDeltaNotification q = b.params();
            return p != null && q != null && known(p.unknownMembers().isEmpty(), q.unknownMembers().isEmpty())
                    && same(p.itemId(), q.itemId(), p.threadId(), q.threadId(), p.turnId(), q.turnId())
                    ? new ServerNotification.ItemCommandExecutionOutputDelta(b.emittedAtMs(),
                    new CommandExecutionOutputDeltaNotification(join(p.delta(), q.delta()), p.itemId(),
                            p.threadId(), p.turnId()))
                    : null;
        }
        if (earlier instanceof ServerNotification.ItemFileChangeOutputDelta a
                && later instanceof ServerNotification.ItemFileChangeOutputDelta b) {
            FileChangeOutputDeltaNotification p = a.params();
            FileChangeOutputDeltaNotification q = b.params();
            return p != null && q != null && known(p.unknownMembers().isEmpty(), q.unknownMembers().isEmpty())
                    && same(p.itemId(), q.itemId(), p.threadId(), q.threadId(), p.turnId(), q.turnId())
                    ? new ServerNotification.ItemFileChangeOutputDelta(b.emittedAtMs(),
                    new FileChangeOutputDeltaNotification(join(p.delta(), q.delta()), p.itemId(),
                            p.threadId(), p.turnId()))
                    : null;
        }
        return null;
    }

    /**
     * Whether the notification is one of the text deltas {@link #merge} merges: what a publisher paces.
     *
     * @param notification the notification
     * @return true for the six delta kinds
     */
    public static boolean isDelta(ServerNotification notification) {
        return notification instanceof ServerNotification.ItemAgentMessageDelta
                || notification instanceof ServerNotification.ItemPlanDelta
                || notification instanceof ServerNotification.ItemReasoningTextDelta
                || notification instanceof ServerNotification.ItemReasoningSummaryTextDelta
                || notification instanceof ServerNotification.ItemCommandExecutionOutputDelta
                || notification instanceof ServerNotification.ItemFileChangeOutputDelta;
    }

    /** Members from a newer server cannot be merged without knowing what they mean: such deltas stay apart. */
    private static boolean known(boolean earlierKnown, boolean laterKnown) {
        return earlierKnown && laterKnown;
    }

    private static boolean same(String item, String item2, String thread, String thread2, String turn, String turn2) {
        return item != null && item.equals(item2) && Objects.equals(thread, thread2) && Objects.equals(turn, turn2);
    }

    private static String join(String a, String b) {
        return (a == null ? "" : a) + (b == null ? "" : b);
    }
}

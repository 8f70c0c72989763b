package dev.codexclient.internal.session;

import dev.codexclient.protocol.AgentMessageDeltaNotification;
import dev.codexclient.protocol.ErrorNotification;
import dev.codexclient.protocol.ItemCompletedNotification;
import dev.codexclient.protocol.ItemStartedNotification;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.TurnError;
import dev.codexclient.protocol.TurnPlanStep;
import dev.codexclient.telemetry.TokenCounts;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a turn has seen so far: the parts of its result (the final text, completed items, usage, diff, plan, last
 * error) and the replay buffer for listeners added late, bounded in events and bytes.
 *
 * <p>Threading: written on the turn's delivery lane only; {@link #usage()} may be read anywhere.
 */
public final class TurnProgress {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(TurnProgress.class);
    }


    /** An event in the replay buffer, with its approximate size (the length of its line). */
    private record Replayed(ServerNotification event, int bytes) {
    }

    private final String threadId;
    private final int maxEvents;
    private final long maxBytes;
    private final ArrayDeque<Replayed> replay = new ArrayDeque<>();
    private long replayBytes;
    private long droppedFromReplay;
    private final List<ThreadItem> completedItems = new ArrayList<>();
    private final Map<String, StringBuilder> agentText = new LinkedHashMap<>();
    private String lastAgentItemId;
    private String lastCompletedAgentText;
    /** Volatile only for the end of a turn that fails off its lane; written on the lane. */
    private volatile ThreadTokenUsage usage;
    /** The turn's first usage report, from which its spent tokens are counted; written once, on the lane. */
    private volatile ThreadTokenUsage firstUsage;
    private String lastDiff;
    private List<TurnPlanStep> lastPlan;
    private TurnError lastError;

    /**
     * @param threadId  the turn's thread, for messages
     * @param maxEvents the most events the replay buffer keeps
     * @param maxBytes  the most bytes the replay buffer keeps (the newest event is always kept)
     */
    public TurnProgress(String threadId, int maxEvents, long maxBytes) {
        this.threadId = threadId;
        this.maxEvents = maxEvents;
        this.maxBytes = maxBytes;
    }

    /**
     * Takes one event of the turn: into the result's parts, and into the replay buffer.
     *
     * @param n     the event
     * @param bytes the size of its line
     */
    public void record(ServerNotification n, int bytes) {
        accumulate(n);
        remember(n, bytes);
    }

    /** {@return the events kept for late listeners, oldest first} */
    public Iterator<ServerNotification> replay() {
        Iterator<Replayed> it = replay.iterator();
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public ServerNotification next() {
                return it.next().event();
            }
        };
    }

    /**
     * Keeps the event for listeners added later, within the limits in events and bytes. The byte limit never drops
     * the newest event: a listener added after the turn ended still sees its {@code turn/completed}.
     */
    private void remember(ServerNotification n, int bytes) {
        replay.add(new Replayed(n, bytes));
        replayBytes += bytes;
        while (!replay.isEmpty()
                && (replay.size() > maxEvents || (replayBytes > maxBytes && replay.size() > 1))) {
            replayBytes -= replay.poll().bytes();
            if (droppedFromReplay++ == 0) {
                Log.LOG.debug("turn of thread {} exceeded the replay limit ({} events, {} bytes); late listeners miss "
                        + "the oldest events", threadId, maxEvents, maxBytes);
            }
        }
    }

    private void accumulate(ServerNotification n) {
        if (n instanceof ServerNotification.ItemAgentMessageDelta d) {
            AgentMessageDeltaNotification p = d.params();
            agentText.computeIfAbsent(p.itemId(), k -> new StringBuilder()).append(p.delta());
            lastAgentItemId = p.itemId();
        } else if (n instanceof ServerNotification.ItemCompleted c) {
            ItemCompletedNotification p = c.params();
            completedItems.add(p.item());
            if (p.item() instanceof ThreadItem.AgentMessage m) {
                lastCompletedAgentText = m.text();
                lastAgentItemId = m.id();
                agentText.remove(m.id());
            }
        } else if (n instanceof ServerNotification.ItemStarted s) {
            ItemStartedNotification p = s.params();
            if (p.item() instanceof ThreadItem.AgentMessage m) {
                lastAgentItemId = m.id();
            }
        } else if (n instanceof ServerNotification.ThreadTokenUsageUpdated u) {
            ThreadTokenUsage reported = u.params().tokenUsage();
            if (firstUsage == null && reported != null && reported.total() != null) {
                firstUsage = reported;
            }
            usage = reported;
        } else if (n instanceof ServerNotification.TurnDiffUpdated d) {
            lastDiff = d.params().diff();
        } else if (n instanceof ServerNotification.TurnPlanUpdated p) {
            lastPlan = p.params().plan();
        } else if (n instanceof ServerNotification.Error e) {
            ErrorNotification p = e.params();
            if (!Boolean.TRUE.equals(p.willRetry())) {
                lastError = p.error();
            }
        }
    }

    /** {@return the final message: one still streaming when the turn ended is newer than any completed one} */
    public String finalText() {
        if (lastAgentItemId != null && agentText.containsKey(lastAgentItemId)) {
            return agentText.get(lastAgentItemId).toString();
        }
        return lastCompletedAgentText == null ? "" : lastCompletedAgentText;
    }

    /**
     * {@return the items the turn completed; those of the server's report when none arrived as events}
     *
     * @param reported the server's report of the turn, or null
     */
    public List<ThreadItem> items(Turn reported) {
        if (completedItems.isEmpty() && reported != null && reported.items() != null) {
            return reported.items();
        }
        return completedItems;
    }

    /** {@return the latest token usage of the turn's thread, or null before any} */
    public ThreadTokenUsage usage() {
        return usage;
    }

    /** {@return the tokens the turn spent so far (see {@link TokenCounts#spent}), or null before any report} */
    public TokenCounts tokens() {
        return TokenCounts.spent(firstUsage, usage).orElse(null);
    }

    /** {@return the latest aggregated diff, or null} */
    public String lastDiff() {
        return lastDiff;
    }

    /** {@return the latest plan, or null} */
    public List<TurnPlanStep> lastPlan() {
        return lastPlan;
    }

    /** {@return the last error that will not be retried, or null} */
    public TurnError lastError() {
        return lastError;
    }
}

package dev.codexclient.approvals;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One approval codex asked for, as the inbox keeps it: the request as codex sent it (secrets masked), what a person
 * may decide, where it is in its life and everything that happened to it. Immutable; each change is a new entry
 * with the next {@link #version()}.
 *
 * @param id          the inbox's id of the entry
 * @param kind        the kind of approval
 * @param requestKey  what a request codex sends again (after a restart of the connection or of the service) is
 *                    matched by: the method and the ids of its thread, turn and item
 * @param threadId    the thread that asks (the conversation id of a legacy request)
 * @param turnId      the turn, when the request names it
 * @param itemId      the item (the call id of a legacy request)
 * @param request     the request's params as codex sent them, secrets masked
 * @param item        what codex said of the item the request is about, when it did (a file change's paths and
 *                    diffs come with the item, not with the request)
 * @param offered     the decisions a person may make
 * @param state       where the entry is in its life
 * @param requestedAt when codex asked
 * @param expiresAt   when the entry expires if no one decides
 * @param decision    the decision made: a person's, or the default of an expired entry
 * @param decidedBy   who ended the entry: the person who decided; for the other ends, the inbox instance
 * @param endedAt     when the entry ended
 * @param endReason   why it ended, for a person
 * @param holder      the inbox instance whose client holds the request now, to which codex waits for an answer;
 *                    empty while no client holds it (the service restarts, codex asks again on resume)
 * @param sent        whether the decision went to codex
 * @param history     what happened to the entry, oldest first
 * @param version     counts the changes; the store replaces an entry only at the version it was read at
 */
public record InboxEntry(String id, ApprovalKind kind, String requestKey, String threadId, Optional<String> turnId,
                         Optional<String> itemId, JsonNode request, Optional<JsonNode> item,
                         List<InboxDecision> offered, EntryState state, Instant requestedAt, Instant expiresAt,
                         Optional<InboxDecision> decision, Optional<String> decidedBy, Optional<Instant> endedAt,
                         Optional<String> endReason, Optional<String> holder, boolean sent, List<EntryEvent> history,
                         long version) {
    /**
     * Checks every part is present, and copies the lists.
     *
     * @param id          the id
     * @param kind        the kind
     * @param requestKey  the key of replays
     * @param threadId    the thread
     * @param turnId      the turn
     * @param itemId      the item
     * @param request     the request's params
     * @param item        the item's description
     * @param offered     the decisions offered
     * @param state       the state
     * @param requestedAt when codex asked
     * @param expiresAt   when it expires
     * @param decision    the decision
     * @param decidedBy   who ended it
     * @param endedAt     when it ended
     * @param endReason   why
     * @param holder      the instance holding the request
     * @param sent        whether the decision went to codex
     * @param history     the history
     * @param version     the version
     */
    public InboxEntry {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(requestKey, "requestKey");
        Objects.requireNonNull(threadId, "threadId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(itemId, "itemId");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(item, "item");
        offered = List.copyOf(offered);
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(requestedAt, "requestedAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(decidedBy, "decidedBy");
        Objects.requireNonNull(endedAt, "endedAt");
        Objects.requireNonNull(endReason, "endReason");
        Objects.requireNonNull(holder, "holder");
        history = List.copyOf(history);
    }

    /** {@return the last thing that happened to the entry} */
    public EntryEvent lastEvent() {
        return history.get(history.size() - 1);
    }

    /**
     * {@return this entry ended in {@code state}, at the next version}
     *
     * @param state    the end
     * @param decision the decision sent, for a decided or expired entry
     * @param by       who ended it
     * @param at       when
     * @param reason   why, for a person
     * @param event    the history's line for it
     */
    InboxEntry ended(EntryState state, Optional<InboxDecision> decision, String by, Instant at, String reason,
                     EntryEvent event) {
        return new InboxEntry(id, kind, requestKey, threadId, turnId, itemId, request, item, offered, state,
                requestedAt, expiresAt, decision, Optional.of(by), Optional.of(at), Optional.of(reason),
                state == EntryState.DECIDED || state == EntryState.EXPIRED ? holder : Optional.empty(), sent,
                plus(event), version + 1);
    }

    /** {@return this entry held by {@code holder} (none: released), with {@code event}, at the next version} */
    InboxEntry heldBy(Optional<String> newHolder, EntryEvent event) {
        return new InboxEntry(id, kind, requestKey, threadId, turnId, itemId, request, item, offered, state,
                requestedAt, expiresAt, decision, decidedBy, endedAt, endReason, newHolder, sent, plus(event),
                version + 1);
    }

    /** {@return this entry with its decision sent to codex, at the next version} */
    InboxEntry markedSent(EntryEvent event) {
        return new InboxEntry(id, kind, requestKey, threadId, turnId, itemId, request, item, offered, state,
                requestedAt, expiresAt, decision, decidedBy, endedAt, endReason, holder, true, plus(event),
                version + 1);
    }

    /** {@return this entry with what codex said of its item, at the next version} */
    InboxEntry described(JsonNode newItem, EntryEvent event) {
        return new InboxEntry(id, kind, requestKey, threadId, turnId, itemId, request, Optional.of(newItem), offered,
                state, requestedAt, expiresAt, decision, decidedBy, endedAt, endReason, holder, sent, plus(event),
                version + 1);
    }

    /** {@return this entry with one more line of history (a refused decision), at the next version} */
    InboxEntry noted(EntryEvent event) {
        return new InboxEntry(id, kind, requestKey, threadId, turnId, itemId, request, item, offered, state,
                requestedAt, expiresAt, decision, decidedBy, endedAt, endReason, holder, sent, plus(event),
                version + 1);
    }

    private List<EntryEvent> plus(EntryEvent event) {
        List<EntryEvent> all = new ArrayList<>(history.size() + 1);
        all.addAll(history);
        all.add(event);
        return all;
    }
}

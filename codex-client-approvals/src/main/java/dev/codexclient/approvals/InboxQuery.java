package dev.codexclient.approvals;

import java.util.Objects;
import java.util.Optional;

/**
 * Which entries to list, and which page of them: newest first.
 *
 * @param state    only entries in this state
 * @param kind     only entries of this kind
 * @param threadId only entries of this thread
 * @param page     the page, from 0
 * @param size     entries per page, 1 to {@link #MAX_SIZE}
 */
public record InboxQuery(Optional<EntryState> state, Optional<ApprovalKind> kind, Optional<String> threadId,
                         int page, int size) {
    /** The largest page. */
    public static final int MAX_SIZE = 500;

    /**
     * Checks the filters are present and the page is in range.
     *
     * @param state    the state filter
     * @param kind     the kind filter
     * @param threadId the thread filter
     * @param page     the page
     * @param size     its size
     */
    public InboxQuery {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(threadId, "threadId");
        if (page < 0) {
            throw new IllegalArgumentException("page must be 0 or more, not " + page);
        }
        if (size < 1 || size > MAX_SIZE) {
            throw new IllegalArgumentException("size must be 1 to " + MAX_SIZE + ", not " + size);
        }
    }

    /** {@return the first 50 entries of every state} */
    public static InboxQuery all() {
        return new InboxQuery(Optional.empty(), Optional.empty(), Optional.empty(), 0, 50);
    }

    /** {@return the first 50 pending entries} */
    public static InboxQuery pending() {
        return all().withState(EntryState.PENDING);
    }

    /**
     * {@return this query for entries in {@code s} only}
     *
     * @param s the state
     */
    public InboxQuery withState(EntryState s) {
        return new InboxQuery(Optional.of(s), kind, threadId, page, size);
    }

    /**
     * {@return this query for entries of {@code k} only}
     *
     * @param k the kind
     */
    public InboxQuery withKind(ApprovalKind k) {
        return new InboxQuery(state, Optional.of(k), threadId, page, size);
    }

    /**
     * {@return this query for entries of thread {@code id} only}
     *
     * @param id the thread
     */
    public InboxQuery withThread(String id) {
        return new InboxQuery(state, kind, Optional.of(id), page, size);
    }

    /**
     * {@return this query for page {@code p} of {@code n} entries}
     *
     * @param p the page, from 0
     * @param n entries per page
     */
    public InboxQuery page(int p, int n) {
        return new InboxQuery(state, kind, threadId, p, n);
    }

    /**
     * {@return whether {@code entry} passes the filters}
     *
     * @param entry the entry
     */
    public boolean matches(InboxEntry entry) {
        return state.map(s -> s == entry.state()).orElse(true)
                && kind.map(k -> k == entry.kind()).orElse(true)
                && threadId.map(t -> t.equals(entry.threadId())).orElse(true);
    }
}

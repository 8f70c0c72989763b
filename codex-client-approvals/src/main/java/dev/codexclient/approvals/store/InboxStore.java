package dev.codexclient.approvals.store;

import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.InboxPage;
import dev.codexclient.approvals.InboxQuery;
import dev.codexclient.approvals.InboxStoreException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * Where the inbox keeps its entries: a store of versioned entries that several inbox instances may share. It
 * decides nothing; {@link dev.codexclient.approvals.ApprovalInbox} does, and the store guarantees only that an
 * entry is replaced at the version it was read at ({@link #replace}), which makes the first decision the one that
 * wins, whichever instance it came through.
 *
 * <p>Implementations: {@link InMemoryInboxStore}; {@link JdbcInboxStore} on H2 or PostgreSQL. Every method but
 * {@link #close()} may throw {@link InboxStoreException} when the store cannot be reached.
 */
public interface InboxStore extends AutoCloseable {

    /**
     * Adds a new entry.
     *
     * @param entry the entry, at version 0
     */
    void insert(InboxEntry entry);

    /**
     * {@return the entry with {@code id}}
     *
     * @param id the entry's id
     */
    Optional<InboxEntry> find(String id);

    /**
     * {@return the newest entry for {@code requestKey}: a request codex sent again is matched to it}
     *
     * @param requestKey the request's key ({@link InboxEntry#requestKey()})
     */
    Optional<InboxEntry> findByRequestKey(String requestKey);

    /**
     * Replaces {@code current} with {@code next} if the stored entry is still at {@code current}'s version.
     *
     * @param current the entry as it was read
     * @param next    the entry that replaces it, at the next version
     * @return whether it was replaced; false when someone changed the entry since it was read
     */
    boolean replace(InboxEntry current, InboxEntry next);

    /**
     * {@return one page of the entries that pass {@code query}'s filters, newest first}
     *
     * @param query the filters and the page
     */
    InboxPage list(InboxQuery query);

    /**
     * {@return at most {@code limit} pending entries that expire at {@code now} or before, soonest first}
     *
     * @param now   the time
     * @param limit how many at most
     */
    List<InboxEntry> expiring(Instant now, int limit);

    /** {@return how many entries are pending, and when the oldest of them was asked for} */
    PendingStats pendingStats();

    /**
     * Tells {@code changed} the id and version of every entry that is inserted or replaced from now on, by this
     * process or any other that shares the store, on a thread of the store's.
     *
     * @param changed told each change
     * @return stops telling
     */
    AutoCloseable watch(BiConsumer<String, Long> changed);

    /** Checks the store can be reached; throws {@link InboxStoreException} when it cannot. */
    void ping();

    /** Releases what the store holds (connections, threads). */
    @Override
    void close();

    /**
     * How many entries are pending.
     *
     * @param count  how many
     * @param oldest when the oldest of them was asked for
     */
    record PendingStats(long count, Optional<Instant> oldest) {
    }
}

package dev.codexclient.approvals.store;

import dev.codexclient.approvals.EntryState;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.InboxPage;
import dev.codexclient.approvals.InboxQuery;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/**
 * Entries in this process's memory: for one instance that may forget its entries when it stops (tests, a tool on a
 * developer's machine). Watchers are told on the thread that made the change.
 */
public final class InMemoryInboxStore implements InboxStore {
    private static final Comparator<InboxEntry> NEWEST_FIRST =
            Comparator.comparing(InboxEntry::requestedAt).reversed().thenComparing(InboxEntry::id);

    private final Map<String, InboxEntry> entries = new LinkedHashMap<>();
    private final List<BiConsumer<String, Long>> watchers = new CopyOnWriteArrayList<>();

    /** An empty store. */
    public InMemoryInboxStore() {
    }

    @Override
    public void insert(InboxEntry entry) {
        synchronized (entries) {
            if (entries.putIfAbsent(entry.id(), entry) != null) {
                throw new IllegalArgumentException("an entry with id " + entry.id() + " exists");
            }
        }
        tell(entry);
    }

    @Override
    public Optional<InboxEntry> find(String id) {
        synchronized (entries) {
            return Optional.ofNullable(entries.get(id));
        }
    }

    @Override
    public Optional<InboxEntry> findByRequestKey(String requestKey) {
        synchronized (entries) {
            return entries.values().stream().filter(e -> e.requestKey().equals(requestKey))
                    .max(Comparator.comparing(InboxEntry::requestedAt));
        }
    }

    @Override
    public boolean replace(InboxEntry current, InboxEntry next) {
        synchronized (entries) {
            InboxEntry stored = entries.get(current.id());
            if (stored == null || stored.version() != current.version()) {
                return false;
            }
            entries.put(current.id(), next);
        }
        tell(next);
        return true;
    }

    @Override
    public InboxPage list(InboxQuery query) {
        List<InboxEntry> matching;
        synchronized (entries) {
            matching = entries.values().stream().filter(query::matches).sorted(NEWEST_FIRST).toList();
        }
        int from = (int) Math.min((long) query.page() * query.size(), matching.size());
        int to = Math.min(from + query.size(), matching.size());
        return new InboxPage(matching.subList(from, to), matching.size(), query.page(), query.size());
    }

    @Override
    public List<InboxEntry> expiring(Instant now, int limit) {
        synchronized (entries) {
            return entries.values().stream()
                    .filter(e -> e.state() == EntryState.PENDING && !e.expiresAt().isAfter(now))
                    .sorted(Comparator.comparing(InboxEntry::expiresAt)).limit(limit).toList();
        }
    }

    @Override
    public PendingStats pendingStats() {
        synchronized (entries) {
            List<InboxEntry> pending = new ArrayList<>();
            for (InboxEntry e : entries.values()) {
                if (e.state() == EntryState.PENDING) {
                    pending.add(e);
                }
            }
            return new PendingStats(pending.size(),
                    pending.stream().map(InboxEntry::requestedAt).min(Comparator.naturalOrder()));
        }
    }

    @Override
    public AutoCloseable watch(BiConsumer<String, Long> changed) {
        watchers.add(changed);
        return () -> watchers.remove(changed);
    }

    @Override
    public void ping() {
        // Memory is always there.
    }

    @Override
    public void close() {
        watchers.clear();
    }

    private void tell(InboxEntry entry) {
        for (BiConsumer<String, Long> w : watchers) {
            w.accept(entry.id(), entry.version());
        }
    }
}

package dev.codexclient.approvals;

import dev.codexclient.approvals.store.InboxStore;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;

/** A store that the test can take down: every call then fails as an unreachable database does. */
final class FlakyStore implements InboxStore {
    private final InboxStore delegate;
    private volatile boolean down;

    FlakyStore(InboxStore delegate) {
        this.delegate = delegate;
    }

    void down(boolean d) {
        down = d;
    }

    private void check() {
        if (down) {
            throw new InboxStoreException("the store is down", null);
        }
    }

    @Override
    public void insert(InboxEntry entry) {
        check();
        delegate.insert(entry);
    }

    @Override
    public Optional<InboxEntry> find(String id) {
        check();
        return delegate.find(id);
    }

    @Override
    public Optional<InboxEntry> findByRequestKey(String requestKey) {
        check();
        return delegate.findByRequestKey(requestKey);
    }

    @Override
    public boolean replace(InboxEntry current, InboxEntry next) {
        check();
        return delegate.replace(current, next);
    }

    @Override
    public InboxPage list(dev.codexclient.approvals.InboxQuery query) {
        check();
        return delegate.list(query);
    }

    @Override
    public List<InboxEntry> expiring(Instant now, int limit) {
        check();
        return delegate.expiring(now, limit);
    }

    @Override
    public PendingStats pendingStats() {
        check();
        return delegate.pendingStats();
    }

    @Override
    public AutoCloseable watch(BiConsumer<String, Long> changed) {
        return delegate.watch(changed);
    }

    @Override
    public void ping() {
        check();
    }

    @Override
    public void close() {
        delegate.close();
    }
}

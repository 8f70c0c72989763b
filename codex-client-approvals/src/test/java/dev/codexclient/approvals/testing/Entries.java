package dev.codexclient.approvals.testing;

import dev.codexclient.Subscription;
import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.InboxListener;
import dev.codexclient.approvals.InboxQuery;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Waits for an entry of an inbox to be in a state the test names: told by the inbox's listener, so a test waits
 * for the change itself, never for a time.
 */
public final class Entries implements AutoCloseable {
    private final ApprovalInbox inbox;
    private final List<Waiting> waiting = new CopyOnWriteArrayList<>();
    private final Subscription subscription;

    private record Waiting(Predicate<InboxEntry> condition, CompletableFuture<InboxEntry> found) {
    }

    public Entries(ApprovalInbox inbox) {
        this.inbox = inbox;
        this.subscription = inbox.subscribe(new InboxListener() {
            @Override
            public void changed(InboxEntry entry) {
                for (Waiting w : waiting) {
                    if (w.condition().test(entry)) {
                        w.found().complete(entry);
                    }
                }
            }
        });
    }

    /** {@return the first entry, now or after a change, for which {@code condition} holds} */
    public InboxEntry await(Predicate<InboxEntry> condition, Duration timeout) throws Exception {
        Waiting w = new Waiting(condition, new CompletableFuture<>());
        waiting.add(w);
        try {
            // Registered first: a change between the listing and the registration is not missed.
            for (InboxEntry e : inbox.list(InboxQuery.all().page(0, InboxQuery.MAX_SIZE)).entries()) {
                if (condition.test(e)) {
                    return e;
                }
            }
            return w.found().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            waiting.remove(w);
        }
    }

    @Override
    public void close() {
        subscription.close();
    }
}

package dev.codexclient.approvals.store;

import dev.codexclient.approvals.InboxStoreException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How one {@link JdbcInboxStore} learns of the changes other processes make: a poll of the changes since the last
 * one seen, and on PostgreSQL a connection that listens for their notifications.
 *
 * <p>The poll reads the rows whose {@code changed_seq} is above a floor. Sequence values are taken when a statement
 * runs and become visible when it commits, so a change can become visible after one with a higher value: the
 * floor is the highest value seen at least {@link #LOOKBACK} ago, not the highest seen, and the changes above it are
 * read again on each poll (their ids and versions only), each told once.
 */
final class ChangeFeed {
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(ChangeFeed.class);
    }

    /** How long a change may take from its sequence value to its commit and still be seen. */
    static final Duration LOOKBACK = Duration.ofSeconds(10);
    private static final int TOLD_REMEMBERED = 20_000;

    private final JdbcInboxStore store;
    private final Duration interval;
    private final boolean listen;
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "codex-inbox-poll");
        t.setDaemon(true);
        return t;
    });
    /** (when, the highest sequence value seen then), oldest first: the floor is read from it. */
    private final Deque<long[]> seen = new ArrayDeque<>();
    /** The changes told, so that a change read again is not told again. */
    private final Map<String, Long> told = new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > TOLD_REMEMBERED;
        }
    };
    private long floor;
    private PgListener listener;

    ChangeFeed(JdbcInboxStore store, Duration interval, boolean listen) {
        this.store = store;
        this.interval = interval;
        this.listen = listen;
    }

    void start() {
        try {
            floor = store.run(c -> {
                try (Statement s = c.createStatement();
                     ResultSet r = s.executeQuery("SELECT COALESCE(MAX(changed_seq), 0) FROM codex_inbox_entry")) {
                    r.next();
                    return r.getLong(1);
                }
            }, "read the latest change");
        } catch (InboxStoreException e) {
            Log.LOG.warn("the inbox's database cannot be reached; its changes are read when it is back: {}",
                    e.getMessage());
        }
        poller.scheduleWithFixedDelay(this::poll, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        if (listen) {
            listener = new PgListener(store, this);
            listener.start();
        }
    }

    /** Reads the changes above the floor and tells those not told yet. */
    synchronized void poll() {
        if (store.isClosed()) {
            return;
        }
        try {
            long from = floor;
            long highest = store.run(c -> {
                long max = from;
                try (PreparedStatement s = c.prepareStatement("SELECT id, version, changed_seq FROM "
                        + "codex_inbox_entry WHERE changed_seq > ? ORDER BY changed_seq")) {
                    s.setLong(1, from);
                    try (ResultSet r = s.executeQuery()) {
                        while (r.next()) {
                            heard(r.getString(1), r.getLong(2));
                            max = Math.max(max, r.getLong(3));
                        }
                    }
                }
                return max;
            }, "read the changes");
            long now = System.nanoTime();
            seen.addLast(new long[] {now, highest});
            while (seen.size() > 1 && now - seen.peekFirst()[0] > LOOKBACK.toNanos()) {
                floor = Math.max(floor, seen.removeFirst()[1]);
            }
        } catch (InboxStoreException e) {
            Log.LOG.debug("could not read the inbox's changes: {}", e.getMessage());
        } catch (RuntimeException e) {
            Log.LOG.warn("reading the inbox's changes failed", e);
        }
    }

    /** One change heard, by notification or by the poll: told unless told already. */
    synchronized void heard(String id, long version) {
        Long before = told.get(id);
        if (before != null && before >= version) {
            return;
        }
        told.put(id, version);
        store.tell(id, version);
    }

    /** The listening connection was down: what it missed is read now. */
    void catchUp() {
        poller.execute(this::poll);
    }

    void stop() {
        if (listener != null) {
            listener.stop();
        }
        poller.shutdownNow();
    }
}

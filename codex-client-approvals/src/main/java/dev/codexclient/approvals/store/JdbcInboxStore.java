package dev.codexclient.approvals.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.approvals.EntryJson;
import dev.codexclient.approvals.EntryState;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.InboxPage;
import dev.codexclient.approvals.InboxQuery;
import dev.codexclient.approvals.InboxStoreException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entries in a relational database through JDBC: H2 (embedded, the default of a single instance) or PostgreSQL (for
 * several instances that share one inbox). The tables are created and migrated by Flyway, with a history table of
 * their own ({@code codex_inbox_schema_history}), so they live beside the application's tables and migrations.
 *
 * <p>How an instance learns what another one changed: every change takes the next value of a sequence, and a
 * poller reads the changes since the last it saw ({@link Builder#pollInterval}); on PostgreSQL every change is also
 * announced with {@code NOTIFY}, which a listening connection hands to the watchers at once. NOTIFY is what makes a
 * decision reach the instance that holds the request within a second; the poll is what makes it reach it anyway
 * when the listening connection was down (a notification sent while no one listens is lost).
 */
public final class JdbcInboxStore implements InboxStore {
    /** Resolved on first use: SLF4J looks up its provider on its first call. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(JdbcInboxStore.class);
    }

    static final String CHANNEL = "codex_inbox";
    private static final String COLUMNS = "id, request_key, kind, state, thread_id, requested_at, expires_at, "
            + "version, changed_seq, body";

    private final DataSource dataSource;
    private final Dialect dialect;
    private final ObjectMapper mapper = new ObjectMapper();
    private final Duration pollInterval;
    private final boolean notifications;
    private final Runnable onClose;
    private final List<BiConsumer<String, Long>> watchers = new CopyOnWriteArrayList<>();
    private ChangeFeed feed;
    private volatile boolean closed;

    /** The SQL that differs between the databases the store knows. */
    enum Dialect {
        H2("NEXT VALUE FOR codex_inbox_change_seq", "CLOB"),
        POSTGRESQL("nextval('codex_inbox_change_seq')", "TEXT");

        final String nextSeq;
        final String textType;

        Dialect(String nextSeq, String textType) {
            this.nextSeq = nextSeq;
            this.textType = textType;
        }

        static Dialect of(Connection c) throws SQLException {
            String product = c.getMetaData().getDatabaseProductName();
            if (product.toLowerCase(java.util.Locale.ROOT).contains("postgres")) {
                return POSTGRESQL;
            } else if (product.toLowerCase(java.util.Locale.ROOT).contains("h2")) {
                return H2;
            }
            throw new IllegalArgumentException("the inbox's JDBC store knows H2 and PostgreSQL, not " + product);
        }
    }

    private JdbcInboxStore(Builder b) {
        this.dataSource = b.dataSource;
        this.pollInterval = b.pollInterval;
        this.onClose = b.onClose;
        try (Connection c = dataSource.getConnection()) {
            this.dialect = Dialect.of(c);
        } catch (SQLException e) {
            throw new InboxStoreException("the inbox's database cannot be reached: " + e.getMessage(), e);
        }
        this.notifications = b.notifications && dialect == Dialect.POSTGRESQL;
        if (b.migrate) {
            migrate();
        }
    }

    /**
     * {@return a builder of a store on {@code dataSource}}
     *
     * @param dataSource the database (H2 or PostgreSQL); a pooled one for PostgreSQL
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
    }

    /**
     * {@return a store in an embedded H2 database kept in files at {@code file} (H2 adds {@code .mv.db}), created
     * when missing, shut down when the store closes}
     *
     * @param file the database's file, without H2's extension
     */
    public static JdbcInboxStore h2(Path file) {
        return H2Files.open(file);
    }

    private void migrate() {
        try {
            org.flywaydb.core.Flyway.configure()
                    .dataSource(dataSource)
                    .locations("classpath:dev/codexclient/approvals/db/migration")
                    .table("codex_inbox_schema_history")
                    // Beside the application's own tables: baseline below our first version, so that all of ours run.
                    .baselineOnMigrate(true)
                    .baselineVersion("0")
                    .placeholders(Map.of("text_type", dialect.textType))
                    .load()
                    .migrate();
        } catch (NoClassDefFoundError e) {
            throw new IllegalStateException("the inbox's JDBC store migrates its tables with Flyway: add "
                    + "org.flywaydb:flyway-core (and flyway-database-postgresql for PostgreSQL)", e);
        } catch (RuntimeException e) {
            throw new InboxStoreException("could not create or migrate the inbox's tables: " + e.getMessage(), e);
        }
    }

    // ------------------------------------------------------------------------------------------------ entries

    @Override
    public void insert(InboxEntry entry) {
        run(c -> {
            try (PreparedStatement s = c.prepareStatement("INSERT INTO codex_inbox_entry (" + COLUMNS
                    + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, " + dialect.nextSeq + ", ?)")) {
                s.setString(1, entry.id());
                s.setString(2, entry.requestKey());
                s.setString(3, entry.kind().name());
                s.setString(4, entry.state().name());
                s.setString(5, entry.threadId());
                s.setLong(6, entry.requestedAt().toEpochMilli());
                s.setLong(7, entry.expiresAt().toEpochMilli());
                s.setLong(8, entry.version());
                s.setString(9, body(entry));
                s.executeUpdate();
            }
            return null;
        }, "insert entry " + entry.id());
        changed(entry);
    }

    @Override
    public Optional<InboxEntry> find(String id) {
        return run(c -> one(c, "SELECT body FROM codex_inbox_entry WHERE id = ?", id), "read entry " + id);
    }

    @Override
    public Optional<InboxEntry> findByRequestKey(String requestKey) {
        return run(c -> one(c, "SELECT body FROM codex_inbox_entry WHERE request_key = ? "
                + "ORDER BY requested_at DESC LIMIT 1", requestKey), "match a request");
    }

    @Override
    public boolean replace(InboxEntry current, InboxEntry next) {
        boolean replaced = run(c -> {
            try (PreparedStatement s = c.prepareStatement("UPDATE codex_inbox_entry SET state = ?, expires_at = ?, "
                    + "version = ?, changed_seq = " + dialect.nextSeq + ", body = ? WHERE id = ? AND version = ?")) {
                s.setString(1, next.state().name());
                s.setLong(2, next.expiresAt().toEpochMilli());
                s.setLong(3, next.version());
                s.setString(4, body(next));
                s.setString(5, current.id());
                s.setLong(6, current.version());
                return s.executeUpdate() == 1;
            }
        }, "update entry " + current.id());
        if (replaced) {
            changed(next);
        }
        return replaced;
    }

    @Override
    public InboxPage list(InboxQuery query) {
        return run(c -> {
            StringBuilder where = new StringBuilder(" WHERE 1 = 1");
            List<String> args = new ArrayList<>();
            query.state().ifPresent(s -> {
                where.append(" AND state = ?");
                args.add(s.name());
            });
            query.kind().ifPresent(k -> {
                where.append(" AND kind = ?");
                args.add(k.name());
            });
            query.threadId().ifPresent(t -> {
                where.append(" AND thread_id = ?");
                args.add(t);
            });
            long total;
            try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM codex_inbox_entry" + where)) {
                bind(s, args);
                try (ResultSet r = s.executeQuery()) {
                    r.next();
                    total = r.getLong(1);
                }
            }
            List<InboxEntry> entries = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("SELECT body FROM codex_inbox_entry" + where
                    + " ORDER BY requested_at DESC, id LIMIT ? OFFSET ?")) {
                bind(s, args);
                s.setInt(args.size() + 1, query.size());
                s.setLong(args.size() + 2, (long) query.page() * query.size());
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        entries.add(entry(r.getString(1)));
                    }
                }
            }
            return new InboxPage(entries, total, query.page(), query.size());
        }, "list entries");
    }

    @Override
    public List<InboxEntry> expiring(Instant now, int limit) {
        return run(c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT body FROM codex_inbox_entry WHERE state = ? "
                    + "AND expires_at <= ? ORDER BY expires_at LIMIT ?")) {
                s.setString(1, EntryState.PENDING.name());
                s.setLong(2, now.toEpochMilli());
                s.setInt(3, limit);
                List<InboxEntry> due = new ArrayList<>();
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        due.add(entry(r.getString(1)));
                    }
                }
                return due;
            }
        }, "read the expiring entries");
    }

    @Override
    public PendingStats pendingStats() {
        return run(c -> {
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT COUNT(*), MIN(requested_at) FROM codex_inbox_entry WHERE state = ?")) {
                s.setString(1, EntryState.PENDING.name());
                try (ResultSet r = s.executeQuery()) {
                    r.next();
                    long count = r.getLong(1);
                    long oldest = r.getLong(2);
                    return new PendingStats(count, r.wasNull() ? Optional.empty()
                            : Optional.of(Instant.ofEpochMilli(oldest)));
                }
            }
        }, "count the pending entries");
    }

    @Override
    public void ping() {
        run(c -> {
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT 1")) {
                r.next();
            }
            return null;
        }, "reach the database");
    }

    // ------------------------------------------------------------------------------------------------ changes

    @Override
    public synchronized AutoCloseable watch(BiConsumer<String, Long> changed) {
        if (closed) {
            throw new IllegalStateException("the store is closed");
        }
        watchers.add(changed);
        if (feed == null) {
            feed = new ChangeFeed(this, pollInterval, notifications);
            feed.start();
        }
        return () -> watchers.remove(changed);
    }

    /** Tells the watchers of one change, from this process's write, a notification or a poll. */
    void tell(String id, long version) {
        for (BiConsumer<String, Long> w : watchers) {
            try {
                w.accept(id, version);
            } catch (RuntimeException e) {
                Log.LOG.warn("an inbox watcher failed on entry {}", id, e);
            }
        }
    }

    private void changed(InboxEntry entry) {
        tell(entry.id(), entry.version());
        if (notifications) {
            try {
                run(c -> {
                    try (PreparedStatement s = c.prepareStatement("SELECT pg_notify(?, ?)")) {
                        s.setString(1, CHANNEL);
                        s.setString(2, entry.id() + ":" + entry.version());
                        s.execute();
                    }
                    return null;
                }, "announce a change");
            } catch (InboxStoreException e) {
                // The other instances' poll finds the change anyway.
                Log.LOG.debug("could not announce the change of entry {}: {}", entry.id(), e.getMessage());
            }
        }
    }

    DataSource dataSource() {
        return dataSource;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        ChangeFeed f;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            f = feed;
        }
        watchers.clear();
        if (f != null) {
            f.stop();
        }
        onClose.run();
    }

    // ------------------------------------------------------------------------------------------------ JDBC

    /** One unit of work on a connection. */
    @FunctionalInterface
    interface Work<T> {
        T on(Connection c) throws SQLException;
    }

    <T> T run(Work<T> work, String what) {
        if (closed) {
            throw new InboxStoreException("could not " + what + ": the store is closed", null);
        }
        try (Connection c = dataSource.getConnection()) {
            return work.on(c);
        } catch (SQLException e) {
            throw new InboxStoreException("could not " + what + ": " + e.getMessage(), e);
        }
    }

    private Optional<InboxEntry> one(Connection c, String sql, String arg) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, arg);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.of(entry(r.getString(1))) : Optional.empty();
            }
        }
    }

    private static void bind(PreparedStatement s, List<String> args) throws SQLException {
        for (int i = 0; i < args.size(); i++) {
            s.setString(i + 1, args.get(i));
        }
    }

    private String body(InboxEntry entry) {
        return EntryJson.toJson(entry).toString();
    }

    private InboxEntry entry(String body) {
        return EntryJson.fromText(mapper, body);
    }

    /** Builds a {@link JdbcInboxStore}. */
    public static final class Builder {
        private final DataSource dataSource;
        private Duration pollInterval = Duration.ofSeconds(2);
        private boolean notifications = true;
        private boolean migrate = true;
        private Runnable onClose = () -> { };

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /**
         * How often an instance reads the changes other instances made (2 s by default). On PostgreSQL the changes
         * come at once by {@code NOTIFY}; the poll finds those a lost notification missed.
         *
         * @param interval the interval, positive
         * @return this builder
         */
        public Builder pollInterval(Duration interval) {
            if (interval.isZero() || interval.isNegative()) {
                throw new IllegalArgumentException("the poll interval must be positive");
            }
            this.pollInterval = interval;
            return this;
        }

        /**
         * Whether changes are announced and heard with {@code LISTEN/NOTIFY} on PostgreSQL (on by default); off,
         * the instances learn of each other's changes by the poll alone.
         *
         * @param on whether to use them
         * @return this builder
         */
        public Builder notifications(boolean on) {
            this.notifications = on;
            return this;
        }

        /**
         * Whether the store creates and migrates its tables with Flyway when it opens (on by default); off, they
         * must exist.
         *
         * @param on whether to migrate
         * @return this builder
         */
        public Builder migrate(boolean on) {
            this.migrate = on;
            return this;
        }

        Builder onClose(Runnable action) {
            this.onClose = action;
            return this;
        }

        /**
         * {@return the store, its tables created or migrated}
         *
         * @throws InboxStoreException when the database cannot be reached or migrated
         */
        public JdbcInboxStore build() {
            return new JdbcInboxStore(this);
        }
    }
}

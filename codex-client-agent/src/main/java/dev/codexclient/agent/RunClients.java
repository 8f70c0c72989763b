package dev.codexclient.agent;

import dev.codexclient.Codex;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexClientBuilder;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a run's codex comes from: the {@link Codex} the application gave the runner (a client or a pool, which the
 * runner never closes), a client built for the run and closed after it, or the runner's warm client, kept between
 * runs. One job: the lifetimes of what runs run on.
 *
 * <p>Each run's tools and approval policy are its thread's own ({@code ThreadOptions}), so a run's are those of its
 * thread whatever serves it, and one client or pool serves runs with different policies. What a thread cannot carry
 * is the server's own: the executable, its environment (the commands' too), {@code CODEX_HOME}, the login, the
 * transport. Runs that share a client or a pool share those.
 *
 * <p>A warm client is replaced when it has closed (the server ended, the connection was lost) and retired when a
 * run's turn did not end within the interrupt wait: a retired client serves no new run and is closed when its last
 * run ends, which ends the turn that would not stop. A given {@code Codex} is the application's: a turn that would not
 * stop is left to it.
 */
final class RunClients implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RunClients.class);

    /** The application's, when the runner was given one; null when the runner builds its clients. */
    private final Codex given;
    private final Supplier<CodexClientBuilder> builders;
    private final boolean warm;
    /** The warm client; guarded by this. */
    private Shared current;
    /** Guarded by this. */
    private boolean closed;

    /** Runs on {@code given}, which the application owns. */
    RunClients(Codex given) {
        this.given = Objects.requireNonNull(given, "codex");
        this.builders = null;
        this.warm = false;
    }

    /** Runs on clients built from {@code builders}: one per run, or one warm client. */
    RunClients(Supplier<CodexClientBuilder> builders, boolean warm) {
        this.given = null;
        this.builders = builders;
        this.warm = warm;
    }

    /** A warm client, with the runs using it. */
    private static final class Shared {
        final CodexClient client;
        /** Guarded by the {@link RunClients}. */
        int active;
        boolean retired;

        Shared(CodexClient client) {
            this.client = client;
        }
    }

    /** What one run runs on: give it back with {@link #release}, once. */
    final class Lease {
        private final Codex codex;
        private final Shared shared;

        private Lease(Codex codex, Shared shared) {
            this.codex = codex;
            this.shared = shared;
        }

        /** {@return what the run starts or resumes its thread on} */
        Codex codex() {
            return codex;
        }

        /** {@return the client, when the run runs on one: its server's stderr and version go into the run's report} */
        Optional<CodexClient> client() {
            return codex instanceof CodexClient c ? Optional.of(c) : Optional.empty();
        }

        /** Whether what the run runs on outlives the run (and so the run must let go of its thread). */
        boolean outlivesRun() {
            return given != null || warm;
        }

        /** Whether it can still take calls: a client that closed cannot; a pool answers for itself. */
        boolean open() {
            return client().map(c -> !c.isClosed()).orElse(true);
        }

        /**
         * Gives it back.
         *
         * @param retire the run's turn did not end: a warm client serves no new run and closes with its last one; a
         *               given {@code Codex} is left to the application
         */
        void release(boolean retire) {
            if (given != null) {
                if (retire) {
                    LOG.warn("a run's turn did not end after its interrupt; the codex it runs on is the "
                            + "application's, which keeps it");
                }
                return;
            }
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
     * What one run runs on: the given {@code Codex}, a new client, or the warm one (built now when there is none, or
     * when it has closed).
     *
     * @param experimental whether the run needs codex's experimental API (its dynamic tools do); a given
     *                     {@code Codex} has what its owner built it with
     * @throws dev.codexclient.errors.CodexException when a client cannot be built
     * @throws IllegalStateException                 when the runner was closed
     */
    Lease acquire(boolean experimental) {
        if (given != null) {
            synchronized (this) {
                checkOpen();
            }
            return new Lease(given, null);
        }
        if (!warm) {
            synchronized (this) {
                checkOpen();
            }
            Shared own = new Shared(build(experimental));
            return new Lease(own.client, own);
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
                current = new Shared(build(true));
            }
            current.active++;
            lease = new Lease(current.client, current);
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

    private CodexClient build(boolean experimental) {
        CodexClientBuilder builder = Objects.requireNonNull(builders.get(), "the client supplier returned null");
        if (experimental) {
            builder.experimentalApi(true);
        }
        return builder.build();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the runner was closed");
        }
    }

    /** Closes the warm client once its runs have ended; runs started later fail. A given {@code Codex} stays open. */
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

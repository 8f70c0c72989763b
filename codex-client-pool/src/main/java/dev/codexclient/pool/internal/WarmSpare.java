package dev.codexclient.pool.internal;

import dev.codexclient.CodexClient;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client kept started and handshaken beside the members, serving no thread, so that a member whose client must
 * be replaced takes it instead of waiting for a server's start and handshake. Taking it starts the next one on the
 * pool's thread. A spare whose server died while it waited is thrown away and started again.
 *
 * <p>Threading: guarded by this object; the start runs outside the lock, on the pool's thread.
 */
final class WarmSpare {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(WarmSpare.class);
    }

    private final Supplier<CodexClient> start;
    private final Executor executor;
    // Guarded by this.
    private CodexClient ready;
    private boolean starting;
    private boolean closed;
    private long taken;

    /**
     * @param start    builds the spare's client (its server's start, retried on a busy state database)
     * @param executor the pool's thread, where the spare starts
     */
    WarmSpare(Supplier<CodexClient> start, Executor executor) {
        this.start = start;
        this.executor = executor;
    }

    /** Starts a spare on the pool's thread unless one is ready or starting. */
    void refill() {
        synchronized (this) {
            if (closed || starting || ready != null) {
                return;
            }
            starting = true;
        }
        try {
            executor.execute(this::startOne);
        } catch (RejectedExecutionException e) {
            synchronized (this) {
                starting = false; // the pool closes
            }
        }
    }

    private void startOne() {
        CodexClient c = null;
        try {
            c = start.get();
        } catch (RuntimeException e) {
            Log.LOG.warn("the pool's warm spare could not start; the next replacement starts its own client: {}",
                    e.getMessage());
        }
        boolean keep;
        synchronized (this) {
            starting = false;
            keep = c != null && !closed;
            if (keep) {
                ready = c;
            }
        }
        if (c != null && !keep) {
            c.close();
        }
    }

    /**
     * {@return the spare, handed over to the caller, or empty when none is ready (starting, or its start failed)} The
     * next spare starts on the pool's thread.
     */
    Optional<CodexClient> take() {
        CodexClient c;
        synchronized (this) {
            c = ready;
            ready = null;
        }
        if (c != null && (c.isClosed() || !c.serverProcess().map(ProcessHandle::isAlive).orElse(true))) {
            Log.LOG.warn("the pool's warm spare died while it waited; it is started again");
            c.close();
            c = null;
        }
        if (c != null) {
            synchronized (this) {
                taken++;
            }
        }
        refill();
        return Optional.ofNullable(c);
    }

    /** {@return whether a spare is ready now} */
    synchronized boolean isReady() {
        return ready != null;
    }

    /** {@return how many spares members took} */
    synchronized long taken() {
        return taken;
    }

    /** Closes the spare that waits, if any; no further one starts. */
    void close() {
        CodexClient c;
        synchronized (this) {
            closed = true;
            c = ready;
            ready = null;
        }
        if (c != null) {
            c.close();
        }
    }
}

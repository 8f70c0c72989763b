package dev.codexclient.approvals.internal;

import dev.codexclient.approvals.InboxStoreException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The writes the store refused while it could not be reached, kept in order and tried again until it takes them:
 * what the inbox learnt meanwhile (a request, its withdrawal) is not lost, and no decision is recorded or sent
 * without the store. Not thread-safe: the inbox uses it from its own thread.
 */
public final class Unsaved {
    /** One write; it throws {@link InboxStoreException} while the store cannot be reached. */
    @FunctionalInterface
    public interface Write {
        /** Writes. */
        void run();
    }

    private final Deque<Write> writes = new ArrayDeque<>();
    private Optional<String> problem = Optional.empty();
    /** A write that runs may make others (a decision delivered is then marked sent): they queue behind it. */
    private boolean flushing;

    /**
     * Runs {@code write} now, unless earlier writes wait (it then waits behind them), keeping it when the store
     * refuses it.
     *
     * @param write the write
     */
    public void run(Write write) {
        writes.addLast(write);
        flush();
    }

    /** Tries the waiting writes in order; stops at the first the store refuses. */
    public void flush() {
        if (flushing) {
            return;
        }
        flushing = true;
        try {
            while (!writes.isEmpty()) {
                try {
                    writes.peekFirst().run();
                    writes.removeFirst();
                    problem = Optional.empty();
                } catch (InboxStoreException e) {
                    problem = Optional.of(e.getMessage());
                    return;
                } catch (RuntimeException e) {
                    // Not the store's absence: trying again would fail again. Dropped, and said.
                    writes.removeFirst();
                    throw e;
                }
            }
        } finally {
            flushing = false;
        }
    }

    /** {@return how many writes wait} */
    public int size() {
        return writes.size();
    }

    /** {@return why the store refused the last write, while writes wait} */
    public Optional<String> problem() {
        return writes.isEmpty() ? Optional.empty() : problem;
    }
}

package dev.codexclient.errors;

/**
 * A {@code CodexPool} (artifact {@code codex-client-pool}) refused work: the member's queue of waiting turns is full,
 * no member is healthy, or the pool is draining or closed. Nothing was sent to a server; the work may be retried later.
 * It is core's, beside the other failures, so that code written against {@link dev.codexclient.Codex} can tell an
 * overloaded pool (a reason to back off) from a failed turn without depending on the pool.
 */
public class CodexPoolRejectedException extends CodexException {
    private static final long serialVersionUID = 1L;

    /**
     * A refusal, saying why.
     *
     * @param message why the pool refused, e.g. which member's queue was full and how many turns ran and waited
     */
    public CodexPoolRejectedException(String message) {
        super(message);
    }
}

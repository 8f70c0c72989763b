package dev.codexclient.errors;

/**
 * A {@link dev.codexclient.pool.CodexPool} refused work: the member's queue of waiting turns is full, no member is
 * healthy, or the pool is draining or closed. Nothing was sent to a server; the work may be retried later.
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

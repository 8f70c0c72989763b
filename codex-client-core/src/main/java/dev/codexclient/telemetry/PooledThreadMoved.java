package dev.codexclient.telemetry;

import java.util.Objects;

/**
 * A {@link dev.codexclient.pool.PooledThread} left a member lost for good (ejected, dropped by its resolver, closed)
 * for a healthy one, in a pool whose members share their storage
 * ({@link dev.codexclient.pool.CodexPool.Builder#sharedStorage(boolean)}); it is resumed there when next used.
 *
 * @param threadId   the thread's id
 * @param fromMember the member it left
 * @param toMember   the member it is placed on now
 */
public record PooledThreadMoved(String threadId, String fromMember, String toMember) {
    /**
     * Checks that every member is present.
     *
     * @param threadId   the thread's id
     * @param fromMember the member it left
     * @param toMember   the member it is placed on now
     */
    public PooledThreadMoved {
        Objects.requireNonNull(threadId, "threadId");
        Objects.requireNonNull(fromMember, "fromMember");
        Objects.requireNonNull(toMember, "toMember");
    }
}

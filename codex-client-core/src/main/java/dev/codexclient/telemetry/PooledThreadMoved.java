package dev.codexclient.telemetry;

import java.util.Objects;

/**
 * A {@code PooledThread} left a member lost for good (ejected, dropped by its resolver, closed)
 * for a healthy one, in a pool whose members share their storage
 * ({@code CodexPool.Builder.sharedStorage(…)}); it is resumed there when next used.
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

package dev.codexclient.pool;

/** Where a member of a {@link CodexPool} stands, in its {@link MemberStats}. */
public enum MemberState {
    /** New threads may go to it. */
    READY,
    /** Its last check failed (or its client is closed): no new threads until a check passes. */
    NOT_READY,
    /** It failed its checks too many times in a row: no new threads, checked again after a backoff. */
    EJECTED,
    /** Its resolver no longer names it: no new threads or turns; it closes once its turns ended. */
    DRAINING
}

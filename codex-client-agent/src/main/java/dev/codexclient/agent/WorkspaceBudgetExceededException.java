package dev.codexclient.agent;

import java.util.Optional;

/**
 * A workspace could not be built because its mounts hold more bytes than a budget allows: a mount's own
 * ({@link HostMount.Builder#maxBytes(long)}) or the workspace's total ({@link Workspace.Builder#maxTotalBytes(long)}).
 * Copying stops at the first file that would cross the budget; nothing is left on disk.
 */
public class WorkspaceBudgetExceededException extends WorkspaceException {
    private static final long serialVersionUID = 1L;

    /** The mount being copied. */
    private final transient HostMount mount;
    /** Whether the total budget was crossed. */
    private final boolean total;
    /** The budget, in bytes. */
    private final long limit;
    /** The bytes the budget would have had to hold. */
    private final long attempted;

    /**
     * A budget crossed.
     *
     * @param mount     the mount being copied when the budget was crossed
     * @param total     true when the workspace's total budget was crossed, false for the mount's own
     * @param limit     the budget, in bytes
     * @param attempted the bytes the budget would have had to hold: those copied so far plus the next file's
     */
    public WorkspaceBudgetExceededException(HostMount mount, boolean total, long limit, long attempted) {
        super((total ? "the workspace's total byte budget" : "the byte budget of " + mount) + " is " + limit
                + " bytes, but copying " + mount + " needs at least " + attempted);
        this.mount = mount;
        this.total = total;
        this.limit = limit;
        this.attempted = attempted;
    }

    /**
     * The mount being copied when the budget was crossed.
     *
     * @return the mount; empty only after deserialization
     */
    public Optional<HostMount> mount() {
        return Optional.ofNullable(mount);
    }

    /**
     * Whether the workspace's total budget was crossed rather than the mount's own.
     *
     * @return true for the total budget
     */
    public boolean totalBudget() {
        return total;
    }

    /**
     * The budget crossed.
     *
     * @return its size in bytes
     */
    public long limit() {
        return limit;
    }

    /**
     * How many bytes the budget would have had to hold: those already copied under it plus the next file's.
     *
     * @return a number of bytes greater than {@link #limit()}
     */
    public long attempted() {
        return attempted;
    }
}

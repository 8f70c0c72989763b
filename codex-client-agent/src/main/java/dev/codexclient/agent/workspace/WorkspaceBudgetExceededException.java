package dev.codexclient.agent.workspace;

import java.util.Optional;

/**
 * A workspace could not be built because its mounts go beyond a budget: the bytes of a mount
 * ({@link HostMount.Builder#maxBytes(long)}) or of all of them ({@link Workspace.Builder#maxTotalBytes(long)}), the
 * number of entries looked at ({@link Workspace.Builder#maxFiles(long)}) or the depth of a directory
 * ({@link Workspace.Builder#maxDepth(int)}). Copying stops at the first entry that would cross the budget; nothing is
 * left on disk.
 */
public class WorkspaceBudgetExceededException extends WorkspaceException {
    private static final long serialVersionUID = 1L;

    /** Which budget was crossed. */
    public enum Budget {
        /** The bytes one mount may copy. */
        MOUNT_BYTES,
        /** The bytes all mounts together may copy. */
        TOTAL_BYTES,
        /** The files and directories the workspace may look at, copied or left out. */
        FILES,
        /** How deep a directory may lie below its mount. */
        DEPTH
    }

    /** The mount being copied. */
    private final transient HostMount mount;
    /** Which budget was crossed. */
    private final Budget budget;
    /** The budget's value. */
    private final long limit;
    /** What the budget would have had to hold. */
    private final long attempted;

    /**
     * A byte budget crossed.
     *
     * @param mount     the mount being copied when the budget was crossed
     * @param total     true when the workspace's total budget was crossed, false for the mount's own
     * @param limit     the budget, in bytes
     * @param attempted the bytes the budget would have had to hold: those copied so far plus the next file's
     */
    public WorkspaceBudgetExceededException(HostMount mount, boolean total, long limit, long attempted) {
        this(mount, total ? Budget.TOTAL_BYTES : Budget.MOUNT_BYTES, limit, attempted,
                (total ? "the workspace's total byte budget" : "the byte budget of " + mount) + " is " + limit
                        + " bytes, but copying " + mount + " needs at least " + attempted);
    }

    /**
     * A budget crossed.
     *
     * @param mount     the mount being copied when the budget was crossed
     * @param budget    which budget
     * @param limit     the budget's value: bytes, entries or levels
     * @param attempted what the budget would have had to hold, in the same unit
     * @param message   what happened
     */
    public WorkspaceBudgetExceededException(HostMount mount, Budget budget, long limit, long attempted,
                                            String message) {
        super(message);
        this.mount = mount;
        this.budget = java.util.Objects.requireNonNull(budget, "budget");
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
     * Which budget was crossed.
     *
     * @return the budget
     */
    public Budget budget() {
        return budget;
    }

    /**
     * Whether the workspace's total byte budget was crossed rather than the mount's own.
     *
     * @return true for {@link Budget#TOTAL_BYTES}
     */
    public boolean totalBudget() {
        return budget == Budget.TOTAL_BYTES;
    }

    /**
     * The budget crossed.
     *
     * @return its value: bytes, files and directories, or levels, as {@link #budget()} says
     */
    public long limit() {
        return limit;
    }

    /**
     * What the budget would have had to hold: the bytes already copied under it plus the next file's, the entries
     * looked at, or the depth reached.
     *
     * @return a number greater than {@link #limit()}, in its unit
     */
    public long attempted() {
        return attempted;
    }
}

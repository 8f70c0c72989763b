package dev.codexclient.agent.workspace;

import java.util.Objects;

/**
 * A workspace could not be built because a mount would let host data or host paths leak in or out: a host path
 * outside the allowed roots, {@code ..} in a path, a symbolic link leading out of its mount or in a loop, a file
 * with several hard links, a file or directory that changed or was replaced while it was copied, a mount source that
 * is not a regular file or directory, or a parent directory of workspaces that others could change.
 */
public class WorkspaceSecurityException extends WorkspaceException {
    private static final long serialVersionUID = 1L;

    /** What the violation was. */
    public enum Reason {
        /** A mount's host path is not under any allowed host root. */
        OUTSIDE_ALLOWED_ROOTS,
        /** A path contains a {@code ..} segment. */
        PARENT_SEGMENT,
        /** A path is absolute where a relative one is needed (or the reverse), or otherwise malformed. */
        INVALID_PATH,
        /** A symbolic link inside a mount points outside of it. */
        SYMLINK_ESCAPE,
        /** A symbolic link cannot be resolved because it is part of a loop. */
        SYMLINK_LOOP,
        /**
         * A file or directory changed while it was copied: it grew or shrank, or was replaced (by another file, a
         * symbolic link, a FIFO or a device) between the moment it was listed and the moment it was opened.
         */
        FILE_CHANGED,
        /**
         * A file has more than one hard link, and its mount does not {@link HostMount.Builder#allowHardLinks() allow
         * hard links}: another name of the same file may lie outside the mount, and nothing tells the names apart.
         */
        HARD_LINK,
        /**
         * The parent directory of workspaces is a symbolic link, is not owned by this process's user, or may be
         * written by others: another user could swap a workspace's directory for one of theirs.
         */
        UNSAFE_PARENT,
        /** A mount's source is not a regular file or directory (a device, a FIFO, a socket). */
        SPECIAL_FILE
    }

    /** What the violation was. */
    private final Reason reason;

    /**
     * A violation.
     *
     * @param reason  what the violation was
     * @param message what happened, naming the paths involved
     */
    public WorkspaceSecurityException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /**
     * A violation found through an I/O failure.
     *
     * @param reason  what the violation was
     * @param message what happened, naming the paths involved
     * @param cause   the I/O failure
     */
    public WorkspaceSecurityException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /**
     * What the violation was.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }
}

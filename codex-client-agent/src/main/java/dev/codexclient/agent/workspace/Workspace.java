package dev.codexclient.agent.workspace;

import dev.codexclient.agent.workspace.WorkspacePreview.MountPreview;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A private directory holding copies of host files, for codex to work in: built from {@link HostMount host mounts}
 * under byte budgets, only from below the allowed host roots, by copying (never by linking back to the host), so
 * what codex changes in it never reaches the host.
 *
 * <pre>{@code
 * try (Workspace ws = Workspace.builder()
 *         .allowedRoot(repo)
 *         .mount(HostMount.builder(repo.resolve("src"), "src").include("**}{@code /*.java").build())
 *         .maxTotalBytes(5_000_000)
 *         .build()) {
 *     System.out.print(ws.preview().render());
 *     // run codex with ws.directory() as its working directory
 * }
 * }</pre>
 *
 * <p><b>Lifetime.</b> {@link Builder#build()} copies everything or fails, typed, leaving nothing behind.
 * {@link #close()} deletes the directory (links inside are removed, never followed). When the JVM dies without
 * closing, the directory stays until the next workspace is built in the same parent directory: its name carries the
 * id and start time of the process that made it, and a workspace whose process is gone is deleted then.
 *
 * <p><b>Identity.</b> {@link #fingerprint()} hashes the mounts (host path, mount path, globs, budget), the total
 * budget and every copied file (path, size, content) in a fixed order: two workspaces built from the same
 * configuration and the same host content have the same fingerprint, on any machine where the host paths are the
 * same. An agent run with a session key resumes its stored thread in a workspace with the same fingerprint, whatever
 * the workspace's directory: in this process or another, the same content resumes the same conversation.
 */
public final class Workspace implements AutoCloseable {
    /** The files and directories a workspace may look at unless {@link Builder#maxFiles(long)} says otherwise. */
    public static final long DEFAULT_MAX_FILES = 100_000;
    /** How deep a directory may lie below its mount unless {@link Builder#maxDepth(int)} says otherwise. */
    public static final int DEFAULT_MAX_DEPTH = 64;

    private final Path directory;
    private final List<HostMount> mounts;
    private final WorkspacePreview preview;
    private final String fingerprint;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Workspace(Path directory, List<HostMount> mounts, WorkspacePreview preview, String fingerprint) {
        this.directory = directory;
        this.mounts = mounts;
        this.preview = preview;
        this.fingerprint = fingerprint;
    }

    /**
     * A builder of a workspace.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Deletes the workspaces left in {@code parent} by processes that no longer run (a JVM that crashed or was
     * killed). Every {@link Builder#build()} does this for its parent directory; call it to clean up without
     * building.
     *
     * @param parent the parent directory of workspaces
     * @return how many leftover workspaces were deleted
     */
    public static int deleteLeftovers(Path parent) {
        return WorkspaceDirectories.deleteLeftovers(Objects.requireNonNull(parent, "parent"));
    }

    /**
     * The workspace's directory: absolute, private to this user, with the mounts' copies in it.
     *
     * @return the directory
     */
    public Path directory() {
        return directory;
    }

    /**
     * The mounts, in the order they were declared.
     *
     * @return the mounts
     */
    public List<HostMount> mounts() {
        return mounts;
    }

    /**
     * What was copied and what was left out.
     *
     * @return the preview
     */
    public WorkspacePreview preview() {
        return preview;
    }

    /**
     * A stable hash of the mounts, the budgets and the copied content (see the class comment).
     *
     * @return the SHA-256 as 64 lower-case hex digits
     */
    public String fingerprint() {
        return fingerprint;
    }

    /**
     * Whether {@link #close()} was called.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Deletes the directory and everything in it; later calls do nothing. A directory that cannot be deleted
     * completely (a file made undeletable) is logged and deleted as a leftover after this process ends.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            WorkspaceDirectories.deleteTree(directory);
        }
    }

    @Override
    public String toString() {
        return "Workspace[" + directory + ", " + preview.files() + " files, " + preview.bytes() + " bytes]";
    }

    /** Builds a {@link Workspace}: declares mounts and budgets, then copies. */
    public static final class Builder {
        private final List<Path> allowedRoots = new ArrayList<>();
        private final List<HostMount> mounts = new ArrayList<>();
        private long maxTotalBytes = -1;
        private long maxFiles = DEFAULT_MAX_FILES;
        private int maxDepth = DEFAULT_MAX_DEPTH;
        private Path parent = WorkspaceDirectories.defaultParent();
        private Consumer<Path> beforeOpen = p -> { };

        private Builder() {
        }

        /**
         * Allows mounts from below {@code root} (symbolic links in it resolved). A mount must lie under one of
         * the allowed roots; there are none by default.
         *
         * @param root an absolute host directory
         * @return this builder
         */
        public Builder allowedRoot(Path root) {
            Objects.requireNonNull(root, "root");
            if (!root.isAbsolute()) {
                throw new WorkspaceSecurityException(WorkspaceSecurityException.Reason.INVALID_PATH,
                        "an allowed root must be absolute: " + root);
            }
            allowedRoots.add(root);
            return this;
        }

        /**
         * Adds a mount.
         *
         * @param mount the mount
         * @return this builder
         */
        public Builder mount(HostMount mount) {
            mounts.add(Objects.requireNonNull(mount, "mount"));
            return this;
        }

        /**
         * The most bytes all mounts together may copy.
         *
         * @param bytes the budget, zero or more
         * @return this builder
         */
        public Builder maxTotalBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("maxTotalBytes must be zero or more: " + bytes);
            }
            this.maxTotalBytes = bytes;
            return this;
        }

        /**
         * The most files and directories the workspace may look at, over all mounts, copied or left out (an
         * excluded directory counts once, its contents not at all); {@value Workspace#DEFAULT_MAX_FILES} by
         * default. More fails the build with a {@link WorkspaceBudgetExceededException} before the names are held:
         * a tree of millions of files fails typed rather than filling the heap.
         *
         * @param files the budget, positive
         * @return this builder
         */
        public Builder maxFiles(long files) {
            if (files <= 0) {
                throw new IllegalArgumentException("maxFiles must be positive: " + files);
            }
            this.maxFiles = files;
            return this;
        }

        /**
         * How deep a directory may lie below its mount; {@value Workspace#DEFAULT_MAX_DEPTH} by default. Deeper fails
         * the build with a {@link WorkspaceBudgetExceededException}.
         *
         * @param levels the budget, positive
         * @return this builder
         */
        public Builder maxDepth(int levels) {
            if (levels <= 0) {
                throw new IllegalArgumentException("maxDepth must be positive: " + levels);
            }
            this.maxDepth = levels;
            return this;
        }

        /**
         * The directory the workspace is created in; by default {@code codex-client-workspaces-<user>} in
         * {@code java.io.tmpdir}. Leftovers of crashed processes are looked for here. It must be a directory of this
         * process's user that no one else may write to (not a symbolic link): else building fails with a
         * {@link WorkspaceSecurityException} ({@link WorkspaceSecurityException.Reason#UNSAFE_PARENT}). When missing
         * it is created {@code rwx------}.
         *
         * @param directory an absolute directory, created when missing
         * @return this builder
         */
        public Builder parentDirectory(Path directory) {
            Objects.requireNonNull(directory, "directory");
            if (!directory.isAbsolute()) {
                throw new IllegalArgumentException("the parent directory must be absolute: " + directory);
            }
            this.parent = directory;
            return this;
        }

        /**
         * Called with each host file or directory after it was listed and before it is opened; for tests of what
         * changes meanwhile.
         */
        Builder beforeOpen(Consumer<Path> hook) {
            this.beforeOpen = Objects.requireNonNull(hook, "hook");
            return this;
        }

        /**
         * Copies the mounts into a new directory, in the order they were declared.
         *
         * @return the workspace; close it to delete it
         * @throws WorkspaceSecurityException       when a mount breaks a rule (see {@link WorkspaceSecurityException})
         * @throws WorkspaceBudgetExceededException when a budget is crossed
         * @throws WorkspaceException               when the host cannot be read or the directory not written
         * @throws IllegalArgumentException         when two mounts share a mount path or one lies inside another's
         */
        public Workspace build() {
            List<HostMount> declared = List.copyOf(mounts);
            checkDistinct(declared);
            List<Path> realRoots = new ArrayList<>();
            for (Path root : allowedRoots) {
                try {
                    realRoots.add(root.toRealPath());
                } catch (IOException e) {
                    throw new WorkspaceException("the allowed root " + root + " cannot be resolved: " + e, e);
                }
            }
            Path dir;
            try {
                WorkspaceDirectories.createParent(parent);
                WorkspaceDirectories.deleteLeftovers(parent);
                dir = WorkspaceDirectories.create(parent);
            } catch (IOException e) {
                throw new WorkspaceException("cannot create a workspace in " + parent + ": " + e, e);
            }
            try (WorkspaceCopier copier = new WorkspaceCopier(realRoots,
                    new WorkspaceCopier.Limits(maxTotalBytes, maxFiles, maxDepth), beforeOpen)) {
                List<MountPreview> previews = new ArrayList<>();
                for (HostMount mount : declared) {
                    previews.add(copier.copy(mount, dir));
                }
                WorkspacePreview preview = new WorkspacePreview(previews, copier.totalFiles(), copier.totalBytes(),
                        maxTotalBytes < 0 ? OptionalLong.empty() : OptionalLong.of(maxTotalBytes));
                return new Workspace(dir, declared, preview, copier.fingerprint());
            } catch (RuntimeException | Error e) {
                WorkspaceDirectories.deleteTree(dir);
                throw e;
            }
        }

        private static void checkDistinct(List<HostMount> mounts) {
            for (int i = 0; i < mounts.size(); i++) {
                for (int j = i + 1; j < mounts.size(); j++) {
                    String a = mounts.get(i).mountPath();
                    String b = mounts.get(j).mountPath();
                    if (a.equals(b) || a.isEmpty() || b.isEmpty() || a.startsWith(b + "/") || b.startsWith(a + "/")) {
                        throw new IllegalArgumentException("the mounts " + mounts.get(i) + " and " + mounts.get(j)
                                + " overlap in the workspace: give each its own mount path");
                    }
                }
            }
        }
    }
}

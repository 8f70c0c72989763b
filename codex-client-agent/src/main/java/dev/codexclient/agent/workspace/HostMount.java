package dev.codexclient.agent.workspace;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One host directory or file copied into a {@link Workspace}: where it comes from on the host, where it goes in the
 * workspace, which files of it are copied (include and exclude globs) and how many bytes it may take.
 *
 * <p>Globs use {@link java.nio.file.FileSystem#getPathMatcher(String) the JDK's glob syntax} and are matched against
 * a file's path relative to the mount's host path, with {@code /} as separator; a pattern starting with
 * {@code **}{@code /} also matches at the top level ({@code **}{@code /*.java} matches {@code Main.java}). A
 * directory matched by an exclude glob is skipped whole. Without include globs every file is included.
 *
 * <pre>{@code
 * HostMount.builder(Path.of("/home/me/repo/src"), "repo/src")
 *         .include("**}{@code /*.java").exclude("**}{@code /generated/**")
 *         .maxBytes(2_000_000)
 *         .build();
 * }</pre>
 */
public final class HostMount {
    private final Path hostPath;
    private final String mountPath;
    private final List<String> includes;
    private final List<String> excludes;
    private final long maxBytes;
    private final boolean allowHardLinks;

    private HostMount(Builder b, String normalizedMountPath) {
        this.hostPath = b.hostPath;
        this.mountPath = normalizedMountPath;
        this.includes = List.copyOf(b.includes);
        this.excludes = List.copyOf(b.excludes);
        this.maxBytes = b.maxBytes;
        this.allowHardLinks = b.allowHardLinks;
    }

    /**
     * A mount of {@code hostPath} at {@code mountPath} with every file included and no byte budget of its own.
     *
     * @param hostPath  the host file or directory to copy; must be absolute
     * @param mountPath where it goes, relative to the workspace's root, without {@code ..}
     * @return the mount
     * @throws IllegalArgumentException when a path is not acceptable (see {@link Builder#build()})
     */
    public static HostMount of(Path hostPath, String mountPath) {
        return builder(hostPath, mountPath).build();
    }

    /**
     * A builder of a mount of {@code hostPath} at {@code mountPath}.
     *
     * @param hostPath  the host file or directory to copy; must be absolute
     * @param mountPath where it goes, relative to the workspace's root, without {@code ..}
     * @return the builder
     */
    public static Builder builder(Path hostPath, String mountPath) {
        return new Builder(hostPath, mountPath);
    }

    /**
     * The host file or directory copied.
     *
     * @return its absolute path, as given
     */
    public Path hostPath() {
        return hostPath;
    }

    /**
     * Where the copy goes, relative to the workspace's root ({@code ""} is the root itself).
     *
     * @return the normalized relative path, with {@code /} as separator
     */
    public String mountPath() {
        return mountPath;
    }

    /**
     * The include globs; empty when every file is included.
     *
     * @return the globs, in the order given
     */
    public List<String> includes() {
        return includes;
    }

    /**
     * The exclude globs.
     *
     * @return the globs, in the order given
     */
    public List<String> excludes() {
        return excludes;
    }

    /**
     * The most bytes this mount may copy.
     *
     * @return the budget, when one was set
     */
    public OptionalLong maxBytes() {
        return maxBytes < 0 ? OptionalLong.empty() : OptionalLong.of(maxBytes);
    }

    /**
     * Whether files with more than one hard link are copied; refused by default.
     *
     * @return true when the mount {@link Builder#allowHardLinks() allows hard links}
     */
    public boolean allowsHardLinks() {
        return allowHardLinks;
    }

    @Override
    public String toString() {
        return "HostMount[" + hostPath + " -> /" + mountPath + "]";
    }

    /** Builds a {@link HostMount}. */
    public static final class Builder {
        private final Path hostPath;
        private final String mountPath;
        private final List<String> includes = new ArrayList<>();
        private final List<String> excludes = new ArrayList<>();
        private long maxBytes = -1;
        private boolean allowHardLinks;

        private Builder(Path hostPath, String mountPath) {
            this.hostPath = Objects.requireNonNull(hostPath, "hostPath");
            this.mountPath = Objects.requireNonNull(mountPath, "mountPath");
        }

        /**
         * Adds an include glob: only files matching one of them are copied.
         *
         * @param glob the glob, relative to the mount's host path
         * @return this builder
         */
        public Builder include(String glob) {
            includes.add(checkGlob(glob));
            return this;
        }

        /**
         * Adds an exclude glob: files and directories matching one of them are not copied.
         *
         * @param glob the glob, relative to the mount's host path
         * @return this builder
         */
        public Builder exclude(String glob) {
            excludes.add(checkGlob(glob));
            return this;
        }

        /**
         * The most bytes this mount may copy; more fails the workspace with a
         * {@link WorkspaceBudgetExceededException}.
         *
         * @param bytes the budget, zero or more
         * @return this builder
         */
        public Builder maxBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("maxBytes must be zero or more: " + bytes);
            }
            this.maxBytes = bytes;
            return this;
        }

        /**
         * Copies files that have more than one hard link. By default such a file fails the workspace with a
         * {@link WorkspaceSecurityException} ({@link WorkspaceSecurityException.Reason#HARD_LINK}): a hard link is
         * another name of the same file, it may lie anywhere on the same file system (outside the allowed roots
         * too), and nothing tells it apart from an ordinary file. Allow them for trees where links are expected and
         * harmless, e.g. a repository cloned with {@code git clone --local} or a package manager's store, when the
         * tree is the caller's own.
         *
         * @return this builder
         */
        public Builder allowHardLinks() {
            this.allowHardLinks = true;
            return this;
        }

        /**
         * Builds the mount.
         *
         * @return the mount
         * @throws WorkspaceSecurityException when the host path is relative or contains {@code ..}, or the mount
         *                                    path is absolute or contains {@code ..}
         */
        public HostMount build() {
            if (!hostPath.isAbsolute()) {
                throw new WorkspaceSecurityException(WorkspaceSecurityException.Reason.INVALID_PATH,
                        "the host path of a mount must be absolute: " + hostPath);
            }
            for (Path part : hostPath) {
                if (part.toString().equals("..")) {
                    throw new WorkspaceSecurityException(WorkspaceSecurityException.Reason.PARENT_SEGMENT,
                            "the host path of a mount must not contain '..': " + hostPath);
                }
            }
            return new HostMount(this, normalizeMountPath(mountPath));
        }

        private static String checkGlob(String glob) {
            Objects.requireNonNull(glob, "glob");
            if (glob.isEmpty()) {
                throw new IllegalArgumentException("a glob must not be empty");
            }
            return glob;
        }
    }

    /** A mount path as segments joined by '/', refusing what could leave the workspace. */
    static String normalizeMountPath(String path) {
        String p = path.replace('\\', '/');
        if (p.startsWith("/") || (p.length() > 1 && p.charAt(1) == ':')) {
            throw new WorkspaceSecurityException(WorkspaceSecurityException.Reason.INVALID_PATH,
                    "a mount path is relative to the workspace, not absolute: " + path);
        }
        if (p.indexOf('\0') >= 0) {
            throw new WorkspaceSecurityException(WorkspaceSecurityException.Reason.INVALID_PATH,
                    "a mount path must not contain NUL: " + path);
        }
        List<String> segments = new ArrayList<>();
        for (String s : p.split("/")) {
            if (s.equals("..")) {
                throw new WorkspaceSecurityException(WorkspaceSecurityException.Reason.PARENT_SEGMENT,
                        "a mount path must not contain '..': " + path);
            }
            if (!s.isEmpty() && !s.equals(".")) {
                segments.add(s);
            }
        }
        return String.join("/", segments);
    }
}

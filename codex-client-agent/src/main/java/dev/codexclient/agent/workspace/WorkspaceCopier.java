package dev.codexclient.agent.workspace;

import dev.codexclient.agent.workspace.WorkspacePreview.MountPreview;
import dev.codexclient.agent.workspace.WorkspacePreview.SkipReason;
import dev.codexclient.agent.workspace.WorkspacePreview.Skipped;
import dev.codexclient.agent.workspace.WorkspaceSecurityException.Reason;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Copies mounts into a workspace directory, one job: walks each mount in a fixed order (names sorted), never
 * follows a symbolic link out of its mount, copies regular files only, keeps to the budgets, and feeds the
 * fingerprint and the preview. The host side is read through {@link HostTree}, relative to open directories.
 *
 * <p>Why each rule: a link followed out of the mount would copy host files the caller never allowed; a file with
 * more than one hard link may be a name for a file outside the mount (nothing tells the names apart), so it is
 * refused unless its mount {@link HostMount.Builder#allowHardLinks() allows hard links}; reading a FIFO blocks until
 * a writer comes and a device may never end, so only regular files are opened; a file is copied up to the size it
 * had when listed and must end there, so a file that grows cannot exceed the budget or leave a torn copy; the number
 * of entries looked at and the depth are bounded, so a tree of millions of files fails typed instead of filling the
 * heap. A name that does not survive the round trip to a Java string (not valid UTF-8) is left out rather than
 * written under another name, and a name the workspace's file system takes for one already written (case or
 * Unicode-normalization twins on a file system that folds them) is left out rather than written over it. Files are
 * created with {@code CREATE_NEW} and no link is ever created, so nothing written can land outside the workspace.
 */
final class WorkspaceCopier implements AutoCloseable {
    private static final int BUFFER = 64 * 1024;

    /** The budgets of a workspace; -1 for none. */
    record Limits(long maxTotalBytes, long maxFiles, int maxDepth) {
    }

    private final List<Path> allowedRoots;
    private final Limits limits;
    private final Consumer<Path> beforeOpen;
    private final HostTree host = new HostTree();
    private final MessageDigest fingerprint = sha256();
    private long totalBytes;
    private long totalFiles;
    /** Entries looked at, over all mounts: bounded by {@link Limits#maxFiles()}. */
    private long entries;

    /**
     * A copier.
     *
     * @param allowedRoots the allowed host roots, as real paths
     * @param limits       the budgets
     * @param beforeOpen   called with each host file or directory after it was listed and before it is opened (a
     *                     test seam for what changes meanwhile)
     */
    WorkspaceCopier(List<Path> allowedRoots, Limits limits, Consumer<Path> beforeOpen) {
        this.allowedRoots = List.copyOf(allowedRoots);
        this.limits = limits;
        this.beforeOpen = beforeOpen;
        line("codex-client-workspace", "1", "total", Long.toString(limits.maxTotalBytes()));
    }

    long totalBytes() {
        return totalBytes;
    }

    long totalFiles() {
        return totalFiles;
    }

    /** The fingerprint of everything copied so far; call once, at the end. */
    String fingerprint() {
        return HexFormat.of().formatHex(fingerprint.digest());
    }

    /** Copies one mount below {@code root}; throws a typed error and leaves the cleanup to the caller. */
    MountPreview copy(HostMount mount, Path root) {
        Path real = realMountSource(mount);
        line("mount", real.toString(), mount.mountPath(), String.join(",", mount.includes()),
                String.join(",", mount.excludes()), Long.toString(mount.maxBytes().orElse(-1)));
        MountState state = new MountState(mount, real);
        Path target = mount.mountPath().isEmpty() ? root : root.resolve(mount.mountPath());
        try {
            BasicFileAttributes attrs = Files.readAttributes(real, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (attrs.isDirectory()) {
                Files.createDirectories(target);
                try (HostTree.Dir dir = host.openRoot(real)) {
                    copyDirectory(state, dir, "", target, 1);
                }
            } else if (attrs.isRegularFile()) {
                if (mount.mountPath().isEmpty()) {
                    throw new WorkspaceSecurityException(Reason.INVALID_PATH,
                            "a file mount needs a file name as mount path: " + mount);
                }
                Files.createDirectories(target.getParent());
                countEntry(state);
                copyFile(state, new HostTree.Entry(real.getFileName(), real, attrs, Files.isExecutable(real),
                        unixLinks(real)), null, real.getFileName().toString(), target);
            } else {
                throw new WorkspaceSecurityException(Reason.SPECIAL_FILE,
                        "the source of " + mount + " is not a regular file or directory");
            }
        } catch (HostTree.ChangedException e) {
            throw new WorkspaceSecurityException(Reason.FILE_CHANGED, "while copying " + mount + ": "
                    + e.getMessage(), e);
        } catch (IOException e) {
            throw new WorkspaceException("cannot copy " + mount + ": " + e.getMessage(), e);
        }
        return new MountPreview(mount, state.files, state.bytes, state.copied, state.skipped, state.skippedCount);
    }

    private Path realMountSource(HostMount mount) {
        Path real;
        try {
            real = mount.hostPath().toRealPath();
        } catch (NoSuchFileException e) {
            throw new WorkspaceException("the host path of " + mount + " does not exist", e);
        } catch (IOException e) {
            if (isLoop(e)) {
                throw new WorkspaceSecurityException(Reason.SYMLINK_LOOP,
                        "the host path of " + mount + " is a symbolic link loop", e);
            }
            throw new WorkspaceException("cannot resolve the host path of " + mount + ": " + e.getMessage(), e);
        }
        for (Path allowed : allowedRoots) {
            if (real.startsWith(allowed)) {
                return real;
            }
        }
        throw new WorkspaceSecurityException(Reason.OUTSIDE_ALLOWED_ROOTS, "the host path of " + mount
                + (real.equals(mount.hostPath()) ? "" : " (really " + real + ")")
                + " is not under an allowed host root " + allowedRoots);
    }

    private void copyDirectory(MountState state, HostTree.Dir dir, String relative, Path target, int depth)
            throws IOException {
        if (limits.maxDepth() >= 0 && depth > limits.maxDepth()) {
            throw new WorkspaceBudgetExceededException(state.mount, WorkspaceBudgetExceededException.Budget.DEPTH,
                    limits.maxDepth(), depth, "the directory " + relative + " of " + state.mount + " lies "
                    + depth + " levels deep, more than the workspace's depth budget of " + limits.maxDepth());
        }
        long room = limits.maxFiles() < 0 ? Long.MAX_VALUE : Math.max(0, limits.maxFiles() - entries);
        List<Path> children = dir.names(room, () -> {
            throw filesExceeded(state, entries + room + 1);
        });
        // A fixed order, whatever the file system returns: the fingerprint and the budget's cut-off depend on it.
        children.sort((a, b) -> a.toString().compareTo(b.toString()));
        for (Path name : children) {
            countEntry(state);
            String text = name.toString();
            String rel = relative.isEmpty() ? text : relative + "/" + text;
            if (!name.getFileSystem().getPath(text).equals(name)) {
                state.skip(rel, SkipReason.INVALID_NAME);
                continue;
            }
            HostTree.Entry entry = dir.entry(name);
            BasicFileAttributes attrs = entry.attributes();
            if (attrs.isDirectory()) {
                if (state.excluded(rel)) {
                    state.skip(rel, SkipReason.EXCLUDED);
                    continue;
                }
                Path sub = target.resolve(text);
                try {
                    Files.createDirectory(sub);
                } catch (FileAlreadyExistsException e) {
                    state.skip(rel, SkipReason.NAME_CLASH);
                    continue;
                }
                beforeOpen.accept(entry.path());
                try (HostTree.Dir child = dir.openDir(entry)) {
                    copyDirectory(state, child, rel, sub, depth + 1);
                }
                continue;
            }
            SkipReason filtered = state.filter(rel);
            if (filtered != null) {
                state.skip(rel, filtered);
            } else if (attrs.isSymbolicLink()) {
                copyLink(state, entry.path(), rel, target.resolve(text));
            } else if (attrs.isRegularFile()) {
                copyFile(state, entry, dir, rel, target.resolve(text));
            } else {
                state.skip(rel, SkipReason.SPECIAL_FILE);
            }
        }
    }

    private void countEntry(MountState state) {
        entries++;
        if (limits.maxFiles() >= 0 && entries > limits.maxFiles()) {
            throw filesExceeded(state, entries);
        }
    }

    private WorkspaceBudgetExceededException filesExceeded(MountState state, long attempted) {
        return new WorkspaceBudgetExceededException(state.mount, WorkspaceBudgetExceededException.Budget.FILES,
                limits.maxFiles(), attempted, "copying " + state.mount + " looks at more than the workspace's budget"
                + " of " + limits.maxFiles() + " files and directories");
    }

    /** A link is copied as the file it points to, when that file is a regular file inside the same mount. */
    private void copyLink(MountState state, Path link, String rel, Path target) throws IOException {
        Path resolved;
        try {
            resolved = link.toRealPath();
        } catch (NoSuchFileException e) {
            state.skip(rel, SkipReason.DANGLING_SYMLINK);
            return;
        } catch (FileSystemException e) {
            if (isLoop(e)) {
                throw new WorkspaceSecurityException(Reason.SYMLINK_LOOP,
                        "the symbolic link " + rel + " in " + state.mount + " is part of a loop", e);
            }
            throw e;
        }
        if (!resolved.startsWith(state.realRoot)) {
            throw new WorkspaceSecurityException(Reason.SYMLINK_ESCAPE,
                    "the symbolic link " + rel + " in " + state.mount + " points outside the mount");
        }
        BasicFileAttributes attrs = Files.readAttributes(resolved, BasicFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS);
        if (attrs.isRegularFile()) {
            copyFile(state, new HostTree.Entry(resolved.getFileName(), resolved, attrs, Files.isExecutable(resolved),
                    unixLinks(resolved)), null, rel, target);
        } else if (attrs.isDirectory()) {
            state.skip(rel, SkipReason.SYMLINK_TO_DIRECTORY);
        } else {
            state.skip(rel, SkipReason.SPECIAL_FILE);
        }
    }

    private static long unixLinks(Path file) throws IOException {
        try {
            Object n = Files.readAttributes(file, "unix:nlink", LinkOption.NOFOLLOW_LINKS).get("nlink");
            return n instanceof Number number ? number.longValue() : 1;
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return 1;
        }
    }

    /**
     * Copies a regular file: from {@code dir} when it was listed there, else (a mount of one file, a link's target)
     * by its real path, which was checked to lie in the mount.
     */
    private void copyFile(MountState state, HostTree.Entry entry, HostTree.Dir dir, String rel, Path target)
            throws IOException {
        long size = entry.attributes().size();
        if (entry.links() > 1 && !state.mount.allowsHardLinks()) {
            throw new WorkspaceSecurityException(Reason.HARD_LINK, "the file " + rel + " in " + state.mount
                    + " has " + entry.links() + " hard links: another name of it may lie outside the mount (allow "
                    + "hard links on the mount to copy it)");
        }
        long mountMax = state.mount.maxBytes().orElse(-1);
        if (mountMax >= 0 && state.bytes + size > mountMax) {
            throw new WorkspaceBudgetExceededException(state.mount, false, mountMax, state.bytes + size);
        }
        if (limits.maxTotalBytes() >= 0 && totalBytes + size > limits.maxTotalBytes()) {
            throw new WorkspaceBudgetExceededException(state.mount, true, limits.maxTotalBytes(), totalBytes + size);
        }
        OutputStream out;
        try {
            out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
        } catch (FileAlreadyExistsException e) {
            state.skip(rel, SkipReason.NAME_CLASH);
            return;
        }
        beforeOpen.accept(entry.path());
        MessageDigest content = sha256();
        try (out; SeekableByteChannel in = dir != null ? dir.openFile(entry)
                : host.openPath(entry.path(), entry.attributes())) {
            ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
            long left = size;
            while (left > 0) {
                buffer.clear().limit((int) Math.min(BUFFER, left));
                int n = in.read(buffer);
                if (n < 0) {
                    throw changed(state, rel, "shrank");
                }
                content.update(buffer.array(), 0, n);
                out.write(buffer.array(), 0, n);
                left -= n;
            }
            buffer.clear().limit(1);
            if (in.read(buffer) > 0) {
                throw changed(state, rel, "grew");
            }
        }
        if (entry.executable() && Files.getFileStore(target).supportsFileAttributeView("posix")) {
            Set<PosixFilePermission> own = Files.getPosixFilePermissions(target, LinkOption.NOFOLLOW_LINKS);
            own.add(PosixFilePermission.OWNER_EXECUTE);
            Files.setPosixFilePermissions(target, own);
        }
        state.copied(rel);
        state.files++;
        state.bytes += size;
        totalFiles++;
        totalBytes += size;
        line("file", state.mount.mountPath(), rel, Long.toString(size), HexFormat.of().formatHex(content.digest()));
    }

    private static WorkspaceSecurityException changed(MountState state, String rel, String how) {
        return new WorkspaceSecurityException(Reason.FILE_CHANGED,
                "the file " + rel + " in " + state.mount + " " + how + " while it was copied");
    }

    private static boolean isLoop(IOException e) {
        String reason = e instanceof FileSystemException fse ? fse.getReason() : e.getMessage();
        return !(e instanceof AccessDeniedException) && reason != null
                && reason.toLowerCase(java.util.Locale.ROOT).contains("levels of symbolic links");
    }

    /** One fingerprint record: fields separated by tabs and ended by a newline, lengths included against ambiguity. */
    private void line(String... fields) {
        for (String f : fields) {
            byte[] bytes = f.getBytes(StandardCharsets.UTF_8);
            fingerprint.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
            fingerprint.update((byte) ':');
            fingerprint.update(bytes);
            fingerprint.update((byte) '\t');
        }
        fingerprint.update((byte) '\n');
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public void close() {
        host.close();
    }

    /** What one mount has copied and left out so far, and its globs. */
    private static final class MountState {
        final HostMount mount;
        final Path realRoot;
        final List<PathMatcher> includes;
        final List<PathMatcher> excludes;
        final List<String> copied = new ArrayList<>();
        final List<Skipped> skipped = new ArrayList<>();
        final Map<SkipReason, Long> skippedCount = new EnumMap<>(SkipReason.class);
        long files;
        long bytes;

        MountState(HostMount mount, Path realRoot) {
            this.mount = mount;
            this.realRoot = realRoot;
            this.includes = matchers(mount.includes());
            this.excludes = matchers(mount.excludes());
        }

        boolean excluded(String rel) {
            return matches(excludes, rel);
        }

        /** Why a file is left out by the globs, or null when it is copied. */
        SkipReason filter(String rel) {
            if (matches(excludes, rel)) {
                return SkipReason.EXCLUDED;
            }
            if (!includes.isEmpty() && !matches(includes, rel)) {
                return SkipReason.NOT_INCLUDED;
            }
            return null;
        }

        void copied(String rel) {
            if (copied.size() < MountPreview.COPIED_LISTED) {
                copied.add(rel);
            }
        }

        void skip(String rel, SkipReason reason) {
            if (skipped.size() < MountPreview.SKIPPED_LISTED) {
                skipped.add(new Skipped(rel, reason));
            }
            skippedCount.merge(reason, 1L, Long::sum);
        }

        private static boolean matches(List<PathMatcher> matchers, String rel) {
            Path p;
            try {
                p = Path.of(rel);
            } catch (java.nio.file.InvalidPathException e) {
                return false;
            }
            for (PathMatcher m : matchers) {
                if (m.matches(p)) {
                    return true;
                }
            }
            return false;
        }

        private static List<PathMatcher> matchers(List<String> globs) {
            List<PathMatcher> out = new ArrayList<>();
            for (String glob : globs) {
                out.add(FileSystems.getDefault().getPathMatcher("glob:" + glob));
                // "**/x" in the JDK's syntax needs a directory before x; users mean "x at any depth".
                if (glob.startsWith("**/")) {
                    out.add(FileSystems.getDefault().getPathMatcher("glob:" + glob.substring(3)));
                }
            }
            return out;
        }
    }
}

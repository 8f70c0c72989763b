package dev.codexclient.agent;

import dev.codexclient.agent.WorkspacePreview.MountPreview;
import dev.codexclient.agent.WorkspacePreview.SkipReason;
import dev.codexclient.agent.WorkspacePreview.Skipped;
import dev.codexclient.agent.WorkspaceSecurityException.Reason;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
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
 * follows a symbolic link out of its mount, copies regular files only, keeps to the byte budgets, and feeds the
 * fingerprint.
 *
 * <p>Why each rule: a link followed out of the mount would copy host files the caller never allowed; reading a
 * FIFO blocks until a writer comes and a device may never end, so only regular files are opened; a file is copied
 * up to the size it had when listed and must end there, so a file that grows (a log being written, a {@code /proc}
 * file reporting size 0) cannot exceed the budget or leave a torn copy. Files are created with {@code CREATE_NEW}
 * and no link is ever created, so nothing written can land outside the workspace.
 *
 * <p>What is not covered: a host path swapped for a FIFO between the listing and the opening of a file (the JDK
 * cannot open without blocking), and hard links (a hard link is a regular file; telling one to a file outside the
 * mount apart is not possible from its path); the mounts' host paths are expected to be trees the caller controls.
 */
final class WorkspaceCopier {
    private static final int BUFFER = 64 * 1024;

    private final List<Path> allowedRoots;
    private final long maxTotalBytes;
    private final Consumer<Path> beforeRead;
    private final MessageDigest fingerprint = sha256();
    private long totalBytes;
    private long totalFiles;

    /**
     * A copier.
     *
     * @param allowedRoots  the allowed host roots, as real paths
     * @param maxTotalBytes the total budget, or -1
     * @param beforeRead    called with each host file after it was listed and before it is read (a test seam)
     */
    WorkspaceCopier(List<Path> allowedRoots, long maxTotalBytes, Consumer<Path> beforeRead) {
        this.allowedRoots = List.copyOf(allowedRoots);
        this.maxTotalBytes = maxTotalBytes;
        this.beforeRead = beforeRead;
        line("codex-client-workspace", "1", "total", Long.toString(maxTotalBytes));
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
                copyDirectory(state, real, "", target);
            } else if (attrs.isRegularFile()) {
                if (mount.mountPath().isEmpty()) {
                    throw new WorkspaceSecurityException(Reason.INVALID_PATH,
                            "a file mount needs a file name as mount path: " + mount);
                }
                Files.createDirectories(target.getParent());
                copyFile(state, real, real.getFileName().toString(), attrs.size(), target);
            } else {
                throw new WorkspaceSecurityException(Reason.SPECIAL_FILE,
                        "the source of " + mount + " is not a regular file or directory");
            }
        } catch (IOException e) {
            throw new WorkspaceException("cannot copy " + mount + ": " + e.getMessage(), e);
        }
        return new MountPreview(mount, state.files, state.bytes, state.skipped, state.skippedCount);
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

    private void copyDirectory(MountState state, Path dir, String relative, Path target) throws IOException {
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            entries.forEach(children::add);
        }
        // A fixed order, whatever the file system returns: the fingerprint and the budget's cut-off depend on it.
        children.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        for (Path child : children) {
            String name = child.getFileName().toString();
            String rel = relative.isEmpty() ? name : relative + "/" + name;
            BasicFileAttributes attrs = Files.readAttributes(child, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (attrs.isDirectory()) {
                if (state.excluded(rel)) {
                    state.skip(rel, SkipReason.EXCLUDED);
                } else {
                    Path sub = target.resolve(name);
                    Files.createDirectory(sub);
                    copyDirectory(state, child, rel, sub);
                }
                continue;
            }
            SkipReason filtered = state.filter(rel);
            if (filtered != null) {
                state.skip(rel, filtered);
            } else if (attrs.isSymbolicLink()) {
                copyLink(state, child, rel, target.resolve(name));
            } else if (attrs.isRegularFile()) {
                copyFile(state, child, rel, attrs.size(), target.resolve(name));
            } else {
                state.skip(rel, SkipReason.SPECIAL_FILE);
            }
        }
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
            copyFile(state, resolved, rel, attrs.size(), target);
        } else if (attrs.isDirectory()) {
            state.skip(rel, SkipReason.SYMLINK_TO_DIRECTORY);
        } else {
            state.skip(rel, SkipReason.SPECIAL_FILE);
        }
    }

    private void copyFile(MountState state, Path source, String rel, long size, Path target) throws IOException {
        long mountMax = state.mount.maxBytes().orElse(-1);
        if (mountMax >= 0 && state.bytes + size > mountMax) {
            throw new WorkspaceBudgetExceededException(state.mount, false, mountMax, state.bytes + size);
        }
        if (maxTotalBytes >= 0 && totalBytes + size > maxTotalBytes) {
            throw new WorkspaceBudgetExceededException(state.mount, true, maxTotalBytes, totalBytes + size);
        }
        beforeRead.accept(source);
        // A directory on the way swapped for a link since it was listed would lead out of the mount: the file's
        // real path must still be inside (the last component is opened without following links).
        if (!source.toRealPath().startsWith(state.realRoot)) {
            throw new WorkspaceSecurityException(Reason.SYMLINK_ESCAPE,
                    "the file " + rel + " in " + state.mount + " now lies outside the mount");
        }
        MessageDigest content = sha256();
        try (SeekableByteChannel in = Files.newByteChannel(source,
                    Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
             OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
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
        if (Files.getFileStore(target).supportsFileAttributeView("posix")) {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(source);
            if (perms.contains(PosixFilePermission.OWNER_EXECUTE)) {
                Set<PosixFilePermission> own = Files.getPosixFilePermissions(target);
                own.add(PosixFilePermission.OWNER_EXECUTE);
                Files.setPosixFilePermissions(target, own);
            }
        }
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

    /** What one mount has copied and left out so far, and its globs. */
    private static final class MountState {
        final HostMount mount;
        final Path realRoot;
        final List<PathMatcher> includes;
        final List<PathMatcher> excludes;
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

        void skip(String rel, SkipReason reason) {
            if (skipped.size() < MountPreview.SKIPPED_LISTED) {
                skipped.add(new Skipped(rel, reason));
            }
            skippedCount.merge(reason, 1L, Long::sum);
        }

        private static boolean matches(List<PathMatcher> matchers, String rel) {
            Path p = Path.of(rel);
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

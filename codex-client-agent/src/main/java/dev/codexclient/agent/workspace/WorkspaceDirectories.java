package dev.codexclient.agent.workspace;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where workspaces live and how they go away. A workspace's directory name carries its owner: the process id and
 * the process's start time ({@code codex-ws-<pid>-<startMillis>-<random>}). The owner is in the name rather than in
 * a file inside, so there is no moment at which a directory exists without it: another JVM cleaning up can never
 * mistake a workspace being created for a leftover. A directory whose owner is no longer running (no process with
 * that id, or one started at another time: the id was reused) is a leftover of a crash and is deleted when the next
 * workspace is built in the same parent directory.
 */
final class WorkspaceDirectories {
    private static final Logger LOG = LoggerFactory.getLogger(WorkspaceDirectories.class);
    private static final Pattern NAME = Pattern.compile("codex-ws-(\\d+)-(\\d+)-[0-9a-f]{16}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private WorkspaceDirectories() {
    }

    /**
     * The default parent: {@code codex-client-workspaces-<user>} in the JVM's temporary directory. One per user, since
     * a parent owned by another user is refused.
     */
    static Path defaultParent() {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        return Path.of(System.getProperty("java.io.tmpdir"), "codex-client-workspaces-" + user);
    }

    /**
     * Creates the parent when missing (private to the user, {@code rwx------}, where POSIX permissions exist) and
     * checks it: a directory, not a symbolic link, owned by this process's user and writable by no one else. A
     * parent others could write to would let them rename a workspace away and put their own in its place.
     *
     * @throws WorkspaceSecurityException when the parent is not safe ({@code UNSAFE_PARENT})
     */
    static void createParent(Path parent) throws IOException {
        boolean posix = parent.getFileSystem().supportedFileAttributeViews().contains("posix");
        if (!Files.exists(parent, LinkOption.NOFOLLOW_LINKS)) {
            try {
                if (posix) {
                    Files.createDirectories(parent,
                            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } else {
                    Files.createDirectories(parent);
                }
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // Another JVM made it meanwhile, or it is something else: checked below either way.
            }
        }
        if (Files.isSymbolicLink(parent)) {
            throw unsafe(parent, "is a symbolic link");
        }
        if (!Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(parent + " is not a directory");
        }
        if (!posix) {
            return;
        }
        String owner = Files.getOwner(parent, LinkOption.NOFOLLOW_LINKS).getName();
        Optional<String> self = ProcessHandle.current().info().user();
        if (self.isPresent() && !self.get().equals(owner)) {
            throw unsafe(parent, "is owned by " + owner + ", not by " + self.get());
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(parent, LinkOption.NOFOLLOW_LINKS);
        if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw unsafe(parent, "may be written by others (" + PosixFilePermissions.toString(perms) + ")");
        }
    }

    private static WorkspaceSecurityException unsafe(Path parent, String why) {
        return new WorkspaceSecurityException(WorkspaceSecurityException.Reason.UNSAFE_PARENT,
                "the parent directory of workspaces " + parent + " " + why + ": choose a directory of your own, "
                        + "or let the default be created");
    }

    /** Creates a new, empty workspace directory owned by this process. */
    static Path create(Path parent) throws IOException {
        ProcessHandle self = ProcessHandle.current();
        byte[] random = new byte[8];
        RANDOM.nextBytes(random);
        String name = "codex-ws-" + self.pid() + "-" + startMillis(self).orElse(0L) + "-"
                + HexFormat.of().formatHex(random);
        Path dir = parent.resolve(name);
        if (parent.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            return Files.createDirectory(dir,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        return Files.createDirectory(dir);
    }

    /**
     * Deletes the workspaces in {@code parent} whose owner is no longer running.
     *
     * @return how many were deleted
     */
    static int deleteLeftovers(Path parent) {
        if (!Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) {
            return 0;
        }
        int deleted = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(parent)) {
            for (Path entry : entries) {
                Matcher m = NAME.matcher(entry.getFileName().toString());
                if (m.matches() && !ownerRunning(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)))) {
                    LOG.info("deleting the workspace {} left behind by process {}, which no longer runs",
                            entry, m.group(1));
                    if (deleteTree(entry)) {
                        deleted++;
                    }
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot look for leftover workspaces in {}", parent, e);
        }
        return deleted;
    }

    static boolean ownerRunning(long pid, long startMillis) {
        Optional<ProcessHandle> owner = ProcessHandle.of(pid);
        if (owner.isEmpty() || !owner.get().isAlive()) {
            return false;
        }
        Optional<Long> started = startMillis(owner.get());
        // Without a start time to compare, a running process with the id is taken to be the owner: better a
        // leftover kept than a live workspace deleted.
        return started.isEmpty() || startMillis == 0 || started.get() == startMillis;
    }

    private static Optional<Long> startMillis(ProcessHandle process) {
        return process.info().startInstant().map(Instant::toEpochMilli);
    }

    /**
     * Deletes a tree without following links (a link the model made to a host file is removed, its target
     * kept), making directories writable first so read-only ones go too.
     *
     * @return whether the tree is gone
     */
    static boolean deleteTree(Path root) {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    makeWritable(dir);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    // A directory made unreadable cannot be listed: make it readable and walk it again.
                    if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS) && makeWritable(file)) {
                        if (!deleteTree(file)) {
                            throw e;
                        }
                        return FileVisitResult.CONTINUE;
                    }
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
            return true;
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException e) {
            LOG.warn("cannot delete the workspace {}; it is deleted as a leftover by the next workspace built "
                    + "in its parent directory after this process ends", root, e);
            return false;
        }
    }

    /** Gives the owner full access to {@code dir}; whether its permissions were changed. */
    private static boolean makeWritable(Path dir) {
        try {
            if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
                if (!perms.containsAll(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                        PosixFilePermission.OWNER_EXECUTE))) {
                    perms.add(PosixFilePermission.OWNER_READ);
                    perms.add(PosixFilePermission.OWNER_WRITE);
                    perms.add(PosixFilePermission.OWNER_EXECUTE);
                    Files.setPosixFilePermissions(dir, perms);
                    return true;
                }
            }
        } catch (IOException | UnsupportedOperationException e) {
            // deletion reports what it cannot remove
        }
        return false;
    }
}

package dev.codexclient.agent.workspace;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The host side of a copy: directories opened for listing and files opened for reading, each relative to the
 * directory it was listed in where the platform allows ({@link SecureDirectoryStream}: {@code openat} with
 * {@code O_NOFOLLOW}), so that a component swapped for a link after it was looked at is refused, never followed, and
 * a parent swapped for a link cannot redirect what is opened below it. Each opened directory and file is checked to
 * be the one that was looked at (its file key). Where the platform has no secure directory stream (Windows), the
 * same checks run on real paths.
 *
 * <p>Opening a FIFO blocks until a writer comes, and the JDK cannot open without blocking: while a file's open has not
 * returned, a guard looks at its path every few milliseconds, and when a FIFO was swapped in for the file it opens
 * the FIFO for writing (and reading, so that it never blocks itself), which lets the open return; the copy then
 * fails, as for any file that is not the one listed.
 * The guard's period decides only when the swap is seen, never the outcome.
 */
final class HostTree implements AutoCloseable {
    /** How often the path of a file whose open has not returned is looked at again. */
    private static final long OPEN_POLL_MILLIS = 50;
    private static final Set<OpenOption> READ = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    /**
     * Read and write: on Linux a FIFO opened so never blocks (it is its own writer), and its writer lets a reader's
     * blocked open return.
     */
    private static final Set<OpenOption> READ_WRITE = Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS);

    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "codex-workspace-open-guard");
        t.setDaemon(true);
        return t;
    });

    /** A host path was not what it was when it was looked at: swapped, replaced, or a link now. */
    static final class ChangedException extends IOException {
        private static final long serialVersionUID = 1L;

        ChangedException(String message) {
            super(message);
        }
    }

    /**
     * One entry of a listed directory, as it was looked at (without following a link).
     *
     * @param name       its name in its directory
     * @param path       its host path
     * @param attributes its attributes, of the entry itself
     * @param executable whether its owner may execute it
     * @param links      its number of hard links; 1 where the platform does not say
     */
    record Entry(Path name, Path path, BasicFileAttributes attributes, boolean executable, long links) {
    }

    /** Opens the directory at {@code path}, a real path, for listing. */
    Dir openRoot(Path path) throws IOException {
        BasicFileAttributes before = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        DirectoryStream<Path> stream = Files.newDirectoryStream(path);
        Dir dir = new Dir(path, stream);
        dir.checkIs(before);
        return dir;
    }

    /** A directory opened for listing; entries are looked at and opened relative to it. */
    final class Dir implements Closeable {
        private final Path path;
        private final DirectoryStream<Path> stream;
        private final SecureDirectoryStream<Path> secure;

        @SuppressWarnings("unchecked")
        private Dir(Path path, DirectoryStream<Path> stream) {
            this.path = path;
            this.stream = stream;
            this.secure = stream instanceof SecureDirectoryStream<?> s ? (SecureDirectoryStream<Path>) s : null;
        }

        Path path() {
            return path;
        }

        /**
         * The names in the directory, in the order the file system gives them; at most {@code max}, else
         * {@code onTooMany} runs (and should throw) before more are read.
         */
        List<Path> names(long max, Runnable onTooMany) {
            List<Path> names = new ArrayList<>();
            for (Path entry : stream) {
                if (names.size() >= max) {
                    onTooMany.run();
                    break;
                }
                names.add(entry.getFileName());
            }
            return names;
        }

        /** The entry {@code name}, looked at without following a link. */
        Entry entry(Path name) throws IOException {
            Path host = path.resolve(name);
            BasicFileAttributes attrs;
            boolean executable = false;
            if (secure != null) {
                PosixFileAttributeView posix = secure.getFileAttributeView(name, PosixFileAttributeView.class,
                        LinkOption.NOFOLLOW_LINKS);
                if (posix != null) {
                    PosixFileAttributes p = posix.readAttributes();
                    attrs = p;
                    executable = p.permissions().contains(PosixFilePermission.OWNER_EXECUTE);
                } else {
                    attrs = secure.getFileAttributeView(name, BasicFileAttributeView.class,
                            LinkOption.NOFOLLOW_LINKS).readAttributes();
                }
            } else {
                attrs = Files.readAttributes(host, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                executable = Files.isExecutable(host) && attrs.isRegularFile();
            }
            return new Entry(name, host, attrs, executable, attrs.isRegularFile() ? links(host, attrs) : 1);
        }

        /** Opens the subdirectory {@code entry}, refusing a link or another directory swapped in for it. */
        Dir openDir(Entry entry) throws IOException {
            DirectoryStream<Path> sub;
            try {
                sub = secure != null ? secure.newDirectoryStream(entry.name(), LinkOption.NOFOLLOW_LINKS)
                        : Files.newDirectoryStream(entry.path());
            } catch (IOException e) {
                if (isLink(entry.path())) {
                    throw new ChangedException("the directory " + entry.path() + " became a symbolic link");
                }
                throw e;
            }
            Dir dir = new Dir(entry.path(), sub);
            try {
                dir.checkIs(entry.attributes());
            } catch (IOException e) {
                dir.close();
                throw e;
            }
            return dir;
        }

        /**
         * Opens the regular file {@code entry} for reading, without following a link and without blocking on a
         * FIFO or device swapped in for it.
         */
        SeekableByteChannel openFile(Entry entry) throws IOException {
            if (secure == null) {
                return openPath(entry.path(), entry.attributes());
            }
            return open(entry.path(), entry.attributes(), () -> secure.newByteChannel(entry.name(), READ),
                    () -> secure.getFileAttributeView(entry.name(), BasicFileAttributeView.class,
                            LinkOption.NOFOLLOW_LINKS).readAttributes(),
                    () -> secure.newByteChannel(entry.name(), READ_WRITE));
        }

        /** This open directory is the one looked at as {@code expected}. */
        private void checkIs(BasicFileAttributes expected) throws IOException {
            Object key = expected.fileKey();
            if (key == null) {
                // No file keys on this platform: the real path must still be the path walked.
                if (!path.toRealPath().equals(path.toAbsolutePath().normalize())) {
                    throw new ChangedException("the directory " + path + " moved while it was opened");
                }
                return;
            }
            BasicFileAttributes now = secure != null
                    ? secure.getFileAttributeView(BasicFileAttributeView.class).readAttributes()
                    : Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!now.isDirectory() || !key.equals(now.fileKey())) {
                throw new ChangedException("the directory " + path + " was replaced while it was opened");
            }
        }

        @Override
        public void close() throws IOException {
            stream.close();
        }
    }

    /**
     * Opens the regular file at {@code path}, looked at as {@code expected}, for reading: without following a link
     * in its last component and without blocking on a FIFO or device swapped in for it.
     */
    SeekableByteChannel openPath(Path path, BasicFileAttributes expected) throws IOException {
        return open(path, expected, () -> Files.newByteChannel(path, READ),
                () -> Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS),
                () -> Files.newByteChannel(path, READ_WRITE));
    }

    private interface IoCall<T> {
        T call() throws IOException;
    }

    private SeekableByteChannel open(Path path, BasicFileAttributes expected, IoCall<SeekableByteChannel> read,
                                     IoCall<BasicFileAttributes> look, IoCall<SeekableByteChannel> write)
            throws IOException {
        // The open runs on this thread, the common case costing nothing more; a guard looks at the path while it
        // has not returned, and releases an open blocked on a FIFO swapped in by opening the FIFO's write end.
        AtomicBoolean swapped = new AtomicBoolean();
        ScheduledFuture<?> guard = watchdog.scheduleWithFixedDelay(() -> {
            BasicFileAttributes now = lookQuietly(look);
            if (now == null || !now.isRegularFile() || !Objects.equals(now.fileKey(), expected.fileKey())) {
                if (swapped.compareAndSet(false, true) && now != null && now.isOther()) {
                    try (SeekableByteChannel writer = write.call()) {
                        // A writer is what lets the reader's open return; nothing is written.
                    } catch (IOException e) {
                        // Not a FIFO after all: the open is left to end on its own.
                    }
                }
            }
        }, OPEN_POLL_MILLIS, OPEN_POLL_MILLIS, TimeUnit.MILLISECONDS);
        SeekableByteChannel channel;
        try {
            channel = read.call();
        } catch (IOException e) {
            // With NOFOLLOW_LINKS, a link is refused with ELOOP, which the JDK reports as a plain IOException.
            if (isLink(path)) {
                throw new ChangedException("the file " + path + " became a symbolic link");
            }
            throw e;
        } finally {
            guard.cancel(false);
        }
        BasicFileAttributes now = lookQuietly(look);
        if (swapped.get() || now == null || !now.isRegularFile()
                || !Objects.equals(now.fileKey(), expected.fileKey())) {
            channel.close();
            throw new ChangedException("the file " + path + " was replaced while it was opened");
        }
        return channel;
    }

    private static BasicFileAttributes lookQuietly(IoCall<BasicFileAttributes> look) {
        try {
            return look.call();
        } catch (IOException e) {
            return null;
        }
    }

    private static boolean isLink(Path path) {
        return Files.isSymbolicLink(path);
    }

    /** The number of hard links of a regular file; 1 where the platform does not say (Windows). */
    private static long links(Path host, BasicFileAttributes attrs) throws IOException {
        Map<String, Object> unix;
        try {
            unix = Files.readAttributes(host, "unix:nlink,fileKey", LinkOption.NOFOLLOW_LINKS);
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return 1;
        } catch (java.nio.file.NoSuchFileException e) {
            // Listed in its directory, gone by its path: a directory above it was moved or swapped.
            throw new ChangedException("the file " + host + " is no longer where it was listed");
        }
        if (!Objects.equals(unix.get("fileKey"), attrs.fileKey())) {
            throw new ChangedException("the file " + host + " was replaced while it was looked at");
        }
        Object n = unix.get("nlink");
        return n instanceof Number number ? number.longValue() : 1;
    }

    @Override
    public void close() {
        watchdog.shutdownNow();
    }
}

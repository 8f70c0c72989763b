package dev.codexclient.agent.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.errors.CodexException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SessionStore#inDirectory(Path)}: one JSON file per key, named by the key's SHA-256 (any key is a safe
 * file name). A write goes to a temporary file in the same directory, is forced to disk, and replaces the entry by
 * an atomic rename, so a reader (in any process) sees the old entry or the new one, never a torn one. Writers hold
 * an exclusive lock on the directory's {@code .lock} file, the JVMs sharing the directory among themselves, and a
 * lock per directory within this JVM (a file lock belongs to the whole JVM). An entry that cannot be read (a file
 * damaged by hand) is logged and treated as absent: the run starts a new thread and overwrites it.
 */
final class FileSessionStore implements SessionStore {
    private static final Logger LOG = LoggerFactory.getLogger(FileSessionStore.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ConcurrentHashMap<Path, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();

    private final Path directory;

    FileSessionStore(Path directory) {
        this.directory = Objects.requireNonNull(directory, "directory").toAbsolutePath().normalize();
    }

    @Override
    public Optional<SessionEntry> load(String key) {
        Path file = fileOf(key);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new CodexException("cannot read the session entry " + file, e);
        }
        try {
            JsonNode node = JSON.readTree(bytes);
            if (!key.equals(node.path("key").asText(null))) {
                LOG.warn("the session entry {} belongs to another key; ignoring it", file);
                return Optional.empty();
            }
            return Optional.of(new SessionEntry(text(node, "threadId"), text(node, "cwd"),
                    node.path("fingerprint").asText(""), node.path("codexVersion").asText(""),
                    node.path("tools").asText("")));
        } catch (IOException | RuntimeException e) {
            LOG.warn("the session entry {} cannot be read; a new thread will replace it: {}", file, e.toString());
            return Optional.empty();
        }
    }

    @Override
    public void save(String key, SessionEntry entry) {
        Objects.requireNonNull(entry, "entry");
        ObjectNode node = JSON.createObjectNode();
        node.put("version", 1);
        node.put("key", key);
        node.put("threadId", entry.threadId());
        node.put("cwd", entry.cwd());
        node.put("fingerprint", entry.fingerprint());
        node.put("codexVersion", entry.codexVersion());
        node.put("tools", entry.tools());
        byte[] bytes = node.toPrettyString().getBytes(StandardCharsets.UTF_8);
        Path file = fileOf(key);
        locked(() -> {
            Path temp = Files.createTempFile(directory, ".entry-", ".tmp");
            try {
                try (FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                    ByteBuffer buffer = ByteBuffer.wrap(bytes);
                    while (buffer.hasRemaining()) {
                        out.write(buffer);
                    }
                    out.force(true);
                }
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(temp);
            }
        });
    }

    @Override
    public void remove(String key) {
        Path file = fileOf(key);
        locked(() -> Files.deleteIfExists(file));
    }

    private interface IoAction {
        void run() throws IOException;
    }

    private void locked(IoAction action) {
        ReentrantLock jvmLock = JVM_LOCKS.computeIfAbsent(directory, d -> new ReentrantLock());
        jvmLock.lock();
        try {
            Files.createDirectories(directory);
            try (FileChannel lockFile = FileChannel.open(directory.resolve(".lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
                 FileLock lock = lockFile.lock()) {
                action.run();
            }
        } catch (IOException e) {
            throw new CodexException("cannot write the session store " + directory, e);
        } finally {
            jvmLock.unlock();
        }
    }

    private Path fileOf(String key) {
        Objects.requireNonNull(key, "key");
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return directory.resolve(HexFormat.of().formatHex(hash) + ".json");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException("no " + field);
        }
        return v.asText();
    }
}

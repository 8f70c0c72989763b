package dev.codexclient.agent.session;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where runs keep the thread to resume, by the caller's key. A run with a key reads the entry first and resumes
 * its thread when the entry {@link SessionEntry#matches matches} the run (the same workspace content, or the same host
 * directory, and the same dynamic tools); otherwise (or when the resume fails) it starts a new thread and overwrites
 * the entry. Ephemeral runs neither read nor write. With a store in a directory ({@link #inDirectory}) and codex
 * keeping its threads in one {@code CODEX_HOME}, a run in another process resumes the thread too.
 *
 * <p>Implementations are safe for concurrent use.
 */
public interface SessionStore {
    /**
     * The entry of {@code key}.
     *
     * @param key the caller's key
     * @return the entry, when there is one
     */
    Optional<SessionEntry> load(String key);

    /**
     * Stores (or replaces) the entry of {@code key}.
     *
     * @param key   the caller's key
     * @param entry the entry
     */
    void save(String key, SessionEntry entry);

    /**
     * Forgets {@code key}.
     *
     * @param key the caller's key
     */
    void remove(String key);

    /**
     * A store in this JVM's memory.
     *
     * @return a new, empty store
     */
    static SessionStore inMemory() {
        return new InMemorySessionStore();
    }

    /**
     * A store of one file per key in {@code directory}, safe for several JVMs sharing the directory.
     *
     * @param directory the directory; created when missing
     * @return the store
     */
    static SessionStore inDirectory(Path directory) {
        return new FileSessionStore(directory);
    }
}

package dev.codexclient.agent.session;

import java.nio.file.Path;

/** A second JVM for {@link SessionStoreTest}: writes one key many times into a shared directory. */
public final class SessionStoreWriter {
    private SessionStoreWriter() {
    }

    /**
     * Writes.
     *
     * @param args the directory, the key, the writer's name, the number of writes
     */
    public static void main(String[] args) {
        SessionStore store = SessionStore.inDirectory(Path.of(args[0]));
        int n = Integer.parseInt(args[3]);
        for (int i = 0; i < n; i++) {
            store.save(args[1], new SessionEntry(args[2] + "-" + i, "/work/" + args[2], "f".repeat(64), "0.169.0"));
        }
    }
}

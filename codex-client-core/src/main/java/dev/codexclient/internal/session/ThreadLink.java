package dev.codexclient.internal.session;

import dev.codexclient.protocol.ThreadInfo;
import java.util.Objects;

/**
 * What the runtime knows of one codex thread a handle names: its id, the server's last description of it given to
 * the handle, and the connection (by generation) it is known to be loaded on. Every public handle of the thread
 * wraps the same link while the runtime holds the thread.
 */
public final class ThreadLink {
    private final String id;
    private volatile ThreadInfo info;
    /** The generation of the connection the thread is known to be loaded on; see {@link ClientRuntime#turnStart}. */
    private volatile long loadedOn;

    ThreadLink(ThreadInfo info, long loadedOn) {
        this.info = Objects.requireNonNull(info, "info");
        this.id = info.id();
        this.loadedOn = loadedOn;
    }

    /** {@return the thread id} */
    public String id() {
        return id;
    }

    /** {@return the thread as the server last described it to a handle} */
    public ThreadInfo info() {
        return info;
    }

    /**
     * Keeps the server's newest description of the thread.
     *
     * @param described the description
     * @return {@code described}
     */
    public ThreadInfo remember(ThreadInfo described) {
        this.info = described;
        return described;
    }

    long loadedOn() {
        return loadedOn;
    }

    void loadedOn(long generation) {
        this.loadedOn = generation;
    }
}

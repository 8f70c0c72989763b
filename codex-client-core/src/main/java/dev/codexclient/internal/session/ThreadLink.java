package dev.codexclient.internal.session;

import dev.codexclient.protocol.ThreadInfo;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

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
    /** The public handle made over this link, so that every handle of a held thread is the same object. */
    private final AtomicReference<Object> handle = new AtomicReference<>();

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

    /**
     * {@return the public handle over this link: the first one offered, which every later caller gets too} The
     * runtime keeps it without knowing its type.
     *
     * @param <H>     the handle's type
     * @param offered a new handle, used when the link has none yet
     */
    @SuppressWarnings("unchecked")
    public <H> H handle(H offered) {
        return handle.compareAndSet(null, offered) ? offered : (H) handle.get();
    }

    long loadedOn() {
        return loadedOn;
    }

    void loadedOn(long generation) {
        this.loadedOn = generation;
    }
}

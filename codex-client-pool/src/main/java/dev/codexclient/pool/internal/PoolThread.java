package dev.codexclient.pool.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The pool's one thread, {@code codex-pool-N}: resolutions, health checks, the start of a member's new client and of
 * the warm spare block (DNS, {@code /readyz}, a server's start), so they run here, one at a time, never on a timer's
 * thread or a caller's. It knows its thread, so that the pool refuses a blocking call made on it (from a member's
 * factory, the resolver or the pool's telemetry listener), which would wait for work queued behind itself.
 */
final class PoolThread implements Executor {
    private final ExecutorService executor;
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

    /**
     * @param name the thread's name
     */
    PoolThread(String name) {
        executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            threads.add(t);
            return t;
        });
    }

    @Override
    public void execute(Runnable task) {
        executor.execute(task);
    }

    /** {@return whether the calling thread is the pool's} */
    boolean isCurrent() {
        return threads.contains(Thread.currentThread());
    }

    /** Stops the thread: the task it runs is interrupted, queued ones are dropped. */
    void shutdown() {
        executor.shutdownNow();
    }
}

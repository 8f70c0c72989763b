package dev.codexclient.internal.rpc;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client's own callback executor, on threads borrowed from one cached pool that every client in the JVM shares.
 *
 * <p>A cached pool per client started its first threads with the client's first callbacks, and a test suite that
 * builds a client per test started and stopped them in every test; starting a thread costs more than a scripted
 * turn. The shared pool starts a daemon thread ({@code codex-shared-callback-N}) whenever none is idle, so a task
 * never waits for another client's, and lets a thread go after a minute idle. Each client still sees an executor of
 * its own: {@link #shutdown()} rejects its new tasks, {@link #awaitTermination} waits for its running ones only, and
 * {@link #shutdownNow()} interrupts only those.
 */
public final class CallbackPool extends AbstractExecutorService {
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ThreadPoolExecutor SHARED = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60,
            TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                // concat, not +: a client's first callback starts the first thread, and the JVM's first + costs
                // tens of milliseconds of invokedynamic bootstrap.
                String name = "codex-shared-callback-".concat(Integer.toString(THREADS.incrementAndGet()));
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            });

    private final Object lock = new Object();
    /** Tasks handed to the shared pool and not finished, started or not; guarded by {@link #lock}. */
    private int active;
    /** Threads running a task of this client; guarded by {@link #lock}. */
    private final Set<Thread> running = new HashSet<>();
    private boolean shutdown;

    @Override
    public void execute(Runnable task) {
        synchronized (lock) {
            if (shutdown) {
                throw new RejectedExecutionException("the client's callback executor is shut down");
            }
            active++;
        }
        try {
            SHARED.execute(() -> run(task));
        } catch (RejectedExecutionException | Error e) {
            finished(null);
            throw e;
        }
    }

    private void run(Runnable task) {
        Thread self = Thread.currentThread();
        synchronized (lock) {
            running.add(self);
        }
        try {
            task.run();
        } finally {
            finished(self);
        }
    }

    private void finished(Thread self) {
        synchronized (lock) {
            if (self != null) {
                running.remove(self);
                // An interrupt from shutdownNow() meant this client's task; the pooled thread goes on without it.
                Thread.interrupted();
            }
            active--;
            lock.notifyAll();
        }
    }

    @Override
    public void shutdown() {
        synchronized (lock) {
            shutdown = true;
        }
    }

    /** Rejects new tasks and interrupts the running ones; nothing waits in a queue, so the list is empty. */
    @Override
    public List<Runnable> shutdownNow() {
        synchronized (lock) {
            shutdown = true;
            running.forEach(Thread::interrupt);
        }
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        synchronized (lock) {
            return shutdown;
        }
    }

    @Override
    public boolean isTerminated() {
        synchronized (lock) {
            return shutdown && active == 0;
        }
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (!(shutdown && active == 0)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return true;
        }
    }
}

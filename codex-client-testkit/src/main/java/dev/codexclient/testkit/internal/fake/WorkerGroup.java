package dev.codexclient.testkit.internal.fake;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of one fake, borrowed from a pool that every fake in the JVM shares.
 *
 * <p>A test suite builds a fake per test; threads of its own would be started and stopped hundreds of times, and
 * starting a thread costs more than a whole scripted turn. The shared pool keeps idle daemon threads for a minute
 * and starts one whenever none is idle, so a task never waits for another fake's. The group still behaves like the
 * fake's own executor: {@link #shutdownNow()} rejects new tasks and interrupts its running ones (and only its own),
 * and {@link #awaitTermination(long)} waits until none of them runs.
 */
public final class WorkerGroup implements Executor {
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ThreadPoolExecutor SHARED = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60,
            TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                // concat, not +: the JVM's first + costs tens of milliseconds of invokedynamic bootstrap.
                String name = "codex-shared-fake-worker-".concat(Integer.toString(THREADS.incrementAndGet()));
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            });

    private final Object lock = new Object();
    /** Threads running a task of this group; guarded by {@link #lock}. */
    private final Set<Thread> running = new HashSet<>();
    private boolean shutdown;

    /**
     * Runs {@code task} on a thread of the shared pool, at once.
     *
     * @throws RejectedExecutionException after {@link #shutdownNow()}
     */
    @Override
    public void execute(Runnable task) {
        synchronized (lock) {
            if (shutdown) {
                throw new RejectedExecutionException("the fake is closed");
            }
        }
        SHARED.execute(() -> run(task));
    }

    private void run(Runnable task) {
        Thread self = Thread.currentThread();
        synchronized (lock) {
            if (shutdown) {
                return;
            }
            running.add(self);
        }
        try {
            task.run();
        } finally {
            synchronized (lock) {
                running.remove(self);
                // An interrupt from shutdownNow() meant this task; the pooled thread goes on without it.
                Thread.interrupted();
                lock.notifyAll();
            }
        }
    }

    /** Rejects new tasks and interrupts the running ones. */
    public void shutdownNow() {
        synchronized (lock) {
            shutdown = true;
            running.forEach(Thread::interrupt);
        }
    }

    /**
     * Waits until no task of this group runs, at most {@code millis}; true when none does.
     *
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public boolean awaitTermination(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        synchronized (lock) {
            while (!running.isEmpty() && !(running.size() == 1 && running.contains(Thread.currentThread()))) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return false;
                }
                lock.wait(left);
            }
            return true;
        }
    }

    /** An executor that runs its tasks one after another, in submission order, on this group's threads. */
    public Executor serial() {
        return new Serial();
    }

    private final class Serial implements Executor {
        private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
        private boolean draining;

        @Override
        public void execute(Runnable task) {
            synchronized (queue) {
                queue.add(task);
                if (draining) {
                    return;
                }
                draining = true;
            }
            startDrain();
        }

        /**
         * Hands the queue to a drain on a group thread; once the group is shut down, drops the queue.
         *
         * @throws RejectedExecutionException when the group is shut down
         */
        private void startDrain() {
            try {
                WorkerGroup.this.execute(this::drain);
            } catch (RejectedExecutionException e) {
                synchronized (queue) {
                    queue.clear();
                    draining = false;
                }
                throw e;
            }
        }

        private void drain() {
            while (true) {
                Runnable next;
                synchronized (queue) {
                    next = isShutdown() ? null : queue.poll();
                    if (next == null) {
                        queue.clear();
                        draining = false;
                        return;
                    }
                }
                try {
                    next.run();
                } catch (RuntimeException | Error e) {
                    restart();
                    throw e;
                }
            }
        }

        /** After a task failed: hands what is still queued to a new drain, so the queue never stalls. */
        private void restart() {
            synchronized (queue) {
                draining = !queue.isEmpty();
                if (!draining) {
                    return;
                }
            }
            try {
                startDrain();
            } catch (RejectedExecutionException closed) {
                // the fake is closing: nothing queued will run
            }
        }
    }

    private boolean isShutdown() {
        synchronized (lock) {
            return shutdown;
        }
    }
}

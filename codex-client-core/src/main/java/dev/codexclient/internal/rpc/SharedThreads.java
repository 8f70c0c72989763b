package dev.codexclient.internal.rpc;

import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A JVM-wide pool of daemon threads with a ceiling. A task runs at once on an idle thread, or on a new one while
 * fewer than the ceiling exist; at the ceiling it waits in a FIFO queue until a thread comes free. A thread ends
 * after a minute idle.
 *
 * <p>Like a cached pool below the ceiling (no task waits while the pool may still grow), bounded above it: a burst
 * of work that blocks (thousands of server requests waiting on people) holds at most {@code ceiling} threads, and
 * the rest waits its turn instead of starting a thread each.
 */
final class SharedThreads {
    private static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final String namePrefix;
    private final int ceiling;
    private final AtomicInteger names = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workArrived = lock.newCondition();
    // All guarded by lock.
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private int threads;
    private int idle;
    private int busy;
    private int peak;

    /**
     * @param namePrefix the threads' names, followed by a number
     * @param ceiling    the most threads the pool runs at once, at least 1
     */
    SharedThreads(String namePrefix, int ceiling) {
        if (ceiling < 1) {
            throw new IllegalArgumentException("the ceiling must be at least 1: " + ceiling);
        }
        this.namePrefix = namePrefix;
        this.ceiling = ceiling;
    }

    /** Threads alive now, idle or not. */
    int threads() {
        lock.lock();
        try {
            return threads;
        } finally {
            lock.unlock();
        }
    }

    /** The most threads that were ever alive at once. */
    int peakThreads() {
        lock.lock();
        try {
            return peak;
        } finally {
            lock.unlock();
        }
    }

    /** Tasks waiting for a thread. */
    int queued() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs {@code task} on a pool thread: now, or once a thread comes free when the pool is at its ceiling.
     *
     * @throws RejectedExecutionException when no thread can be started (the JVM is out of threads) and none runs
     */
    void execute(Runnable task) {
        boolean start = false;
        lock.lock();
        try {
            queue.add(task);
            if (idle > 0) {
                workArrived.signal();
            }
            // Threads that are busy, or were signalled but have not woken up yet, do not count as covering the task.
            if (queue.size() > idle && threads < ceiling) {
                threads++;
                peak = Math.max(peak, threads);
                start = true;
            }
        } finally {
            lock.unlock();
        }
        if (start) {
            startThread(task);
        }
    }

    private void startThread(Runnable task) {
        try {
            // concat, not +: a client's first callback starts the first thread, and the JVM's first + costs tens of
            // milliseconds of invokedynamic bootstrap.
            Thread t = new Thread(this::work, namePrefix.concat(Integer.toString(names.incrementAndGet())));
            t.setDaemon(true);
            t.start();
        } catch (Throwable e) {
            boolean stranded;
            lock.lock();
            try {
                threads--;
                // The task waits for a running thread, if there is one; with none, it would wait forever.
                stranded = threads == 0 && queue.removeLastOccurrence(task);
            } finally {
                lock.unlock();
            }
            if (stranded) {
                RejectedExecutionException rejected = new RejectedExecutionException("cannot start a thread", e);
                throw rejected;
            }
        }
    }

    private void work() {
        while (true) {
            Runnable task;
            lock.lock();
            try {
                long wait = KEEP_ALIVE_NANOS;
                while ((task = queue.poll()) == null) {
                    if (wait <= 0) {
                        threads--;
                        return;
                    }
                    idle++;
                    try {
                        wait = workArrived.awaitNanos(wait);
                    } catch (InterruptedException e) {
                        // A late interrupt meant for a task that already ended; the pooled thread goes on.
                    } finally {
                        idle--;
                    }
                }
                busy++;
            } finally {
                lock.unlock();
            }
            try {
                task.run();
            } catch (Throwable t) {
                Thread self = Thread.currentThread();
                self.getUncaughtExceptionHandler().uncaughtException(self, t);
            } finally {
                Thread.interrupted();
                lock.lock();
                try {
                    busy--;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** Threads waiting for a task now. */
    int idle() {
        lock.lock();
        try {
            return idle;
        } finally {
            lock.unlock();
        }
    }

    /** Threads running a task now. */
    int busy() {
        lock.lock();
        try {
            return busy;
        } finally {
            lock.unlock();
        }
    }
}

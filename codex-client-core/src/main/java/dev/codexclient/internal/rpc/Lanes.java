package dev.codexclient.internal.rpc;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivery lanes: one per codex thread (and one for events that name no thread, and one for each subscription to
 * a Flow publisher of the client), each running its tasks one at a time, in submission order, on a shared pool. A
 * thread's events stay in wire order while a slow listener on one thread never holds up another. A client has one
 * set of lanes for all its connections, so a thread's events stay in order across a restart too.
 *
 * <p>A lane exists only while it has work: it is created by the first task for its key and removed when its queue
 * runs dry, so a client that sees events of many threads over time holds lanes only for those with events in
 * flight. A task that arrives as its lane retires goes to a new lane, which starts only after the old one has run
 * its last task: the order per key holds across lanes.
 *
 * <p>Threading: {@link #execute} from any thread; a {@link Batch} from the single thread that reads one connection.
 */
public final class Lanes {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(Lanes.class);
    }

    /** The lane of events that belong to no codex thread. */
    public static final String GLOBAL = "";
    /** Tasks a lane runs before it yields its pool thread to other lanes. */
    private static final int BATCH = 256;
    /** The lane the current thread is running, if any. */
    private static final ThreadLocal<Lane> CURRENT = new ThreadLocal<>();

    private final Executor pool;
    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();

    /**
     * @param pool runs each lane's drain; when it rejects a task (it was shut down), the lane runs what it holds on
     *             the submitting thread rather than dropping events that were already read
     */
    public Lanes(Executor pool) {
        this.pool = pool;
    }

    /** Runs {@code task} on the lane of {@code key}, after every task already queued there. Any thread. */
    public void execute(String key, Runnable task) {
        while (true) {
            Lane lane = lanes.computeIfAbsent(key, k -> new Lane(k));
            switch (lane.offer(task)) {
                case STARTED -> {
                    lane.start();
                    return;
                }
                case QUEUED -> {
                    return;
                }
                case RETIRED -> lanes.remove(key, lane);
            }
        }
    }

    /**
     * Runs {@code task} once every task queued now, on any lane, has run: on the lane that finishes last (on the
     * calling thread when no lane has work). Tasks queued later are not waited for. Any thread.
     *
     * @param task what to run behind every lane's queued tasks; it must not block
     */
    public void executeAfterAll(Runnable task) {
        List<String> keys = new ArrayList<>(lanes.keySet());
        // One count per lane, plus one for this call, so the task cannot run before every lane has been visited.
        AtomicInteger left = new AtomicInteger(keys.size() + 1);
        Runnable arrive = () -> {
            if (left.decrementAndGet() == 0) {
                task.run();
            }
        };
        for (String key : keys) {
            // A lane that retired since the snapshot is simply started anew: the order per key still holds.
            execute(key, arrive);
        }
        arrive.run();
    }

    /** {@return the batches of one connection's reader thread} */
    public Batch newBatch() {
        return new Batch();
    }

    /**
     * What one connection's reader queues from one read: lanes that become busy during a batch start only when it
     * ends, so a stream of events wakes a pool thread once per read rather than once per event. Reader thread only.
     */
    public final class Batch {
        private final List<Lane> toStart = new ArrayList<>();
        private boolean inBatch;
        /** The lane used last: consecutive events mostly belong to one thread. */
        private Lane last;

        private Batch() {
        }

        /** Starts a batch: lanes that become busy start only at {@link #end()}. */
        public void begin() {
            inBatch = true;
        }

        /** Queues {@code task} on the lane of {@code key}; inside a batch, an idle lane starts when it ends. */
        public void deliver(String key, Runnable task) {
            if (!inBatch) {
                execute(key, task);
                return;
            }
            Lane lane = last;
            while (true) {
                // Comparing with the last key: each event carries a fresh string, a map look-up would hash it.
                if (lane == null || !lane.key.equals(key)) {
                    lane = lanes.computeIfAbsent(key, k -> new Lane(k));
                }
                Offer offer = lane.offer(task);
                if (offer == Offer.RETIRED) {
                    lanes.remove(key, lane);
                    lane = null;
                    continue;
                }
                if (offer == Offer.STARTED) {
                    toStart.add(lane);
                }
                last = lane;
                return;
            }
        }

        /** Ends a batch: starts every lane that became busy during it. */
        public void end() {
            inBatch = false;
            for (Lane lane : toStart) {
                lane.start();
            }
            toStart.clear();
        }
    }

    /** Whether the current thread is running a task of the lane of {@code key} (of these lanes). */
    public boolean isRunning(String key) {
        Lane lane = CURRENT.get();
        return lane != null && lane.owner() == this && lane.key.equals(key);
    }

    /**
     * {@return the codex thread whose lane the current thread runs, on the lanes of any client} Empty off the lanes, on
     * the lane of events that name no thread ({@link #GLOBAL}) and on a private lane, whose key begins with NUL (a
     * subscription's), which no codex thread id holds. Codex thread ids are unique across servers, so the id names
     * one thread wherever it came from.
     */
    public static Optional<String> currentThread() {
        Lane lane = CURRENT.get();
        if (lane == null || lane.key.isEmpty() || lane.key.charAt(0) == '\u0000') {
            return Optional.empty();
        }
        return Optional.of(lane.key);
    }

    /** Whether the current thread is running a task of any of these lanes. */
    public boolean isRunningAny() {
        Lane lane = CURRENT.get();
        return lane != null && lane.owner() == this;
    }

    /** How many lanes exist now (each with work queued or running). */
    public int size() {
        return lanes.size();
    }

    private enum Offer { STARTED, QUEUED, RETIRED }

    private final class Lane {
        final String key;
        private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
        private boolean running;
        private boolean retired;

        Lane(String key) {
            this.key = key;
        }

        Lanes owner() {
            return Lanes.this;
        }

        /** Queues a task; STARTED means the lane was idle and the caller must {@link #start()} it. */
        synchronized Offer offer(Runnable task) {
            if (retired) {
                return Offer.RETIRED;
            }
            queue.add(task);
            if (running) {
                return Offer.QUEUED;
            }
            running = true;
            return Offer.STARTED;
        }

        void start() {
            try {
                pool.execute(this::drain);
            } catch (RejectedExecutionException e) {
                // The pool was shut down under us (the client is closing): deliver what is left here rather than
                // dropping events that were already read.
                runBatch(Integer.MAX_VALUE);
            }
        }

        private void drain() {
            // A bounded batch, so one busy lane yields the pool thread to other lanes now and then.
            if (!runBatch(BATCH)) {
                start();
            }
        }

        /** Runs up to {@code max} queued tasks; true when the queue ran dry and the lane retired. */
        private boolean runBatch(int max) {
            Lane previous = CURRENT.get();
            CURRENT.set(this);
            try {
                for (int i = 0; i < max; i++) {
                    Runnable next;
                    synchronized (this) {
                        next = queue.poll();
                        if (next == null) {
                            running = false;
                            retired = true;
                            break;
                        }
                    }
                    runSafely(next);
                }
            } finally {
                // set, not remove: removing expunges the entry (and clears its weak reference) every batch.
                CURRENT.set(previous);
            }
            boolean dry;
            synchronized (this) {
                dry = retired;
            }
            if (dry) {
                lanes.remove(key, this);
            }
            return dry;
        }
    }

    private static void runSafely(Runnable task) {
        try {
            task.run();
        } catch (Throwable t) {
            Log.LOG.warn("A listener threw; the event is still delivered to the others", t);
        }
    }
}

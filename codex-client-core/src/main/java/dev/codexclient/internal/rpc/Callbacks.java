package dev.codexclient.internal.rpc;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Where one client runs user code, for all its connections: the callback executor (listeners, the dependents of the
 * futures it returns, its telemetry), the threads of server-request handlers, and the delivery lanes on top of the
 * executor. Every task is marked as this client's while it runs, so that a close from inside one does not wait for
 * itself.
 *
 * <p>One object per client, made by the runtime and handed to each part that runs something: each connection, the
 * threads' state, the turns, the publishers. A connection that replaces a lost one delivers on the same lanes, so
 * a thread's listeners never run at once, across a restart either.
 */
public final class Callbacks {
    /** The client whose callback the current thread is running, if any. */
    private static final ThreadLocal<Callbacks> IN_CALLBACK = new ThreadLocal<>();

    private final ExecutorService executor;
    /** Where server-request handlers run: {@link CallbackPool#handlers()} on the client's own pool. */
    private final Executor handlers;
    private final Lanes lanes;

    /** @param executor runs listeners, handlers and the dependents of call futures */
    public Callbacks(ExecutorService executor) {
        this.executor = executor;
        // Handlers of server requests may block for long (a person deciding): on the client's own pool they get
        // threads of their own, so that while they block, events are still delivered on the others.
        this.handlers = executor instanceof CallbackPool pool ? pool.handlers() : executor;
        this.lanes = new Lanes(this::execute);
    }

    /**
     * Runs {@code task} on the callback executor, marked as this client's.
     *
     * @throws RejectedExecutionException once the executor was shut down
     */
    public void execute(Runnable task) {
        runMarked(executor, task);
    }

    /** Runs {@code task} on the callback executor; on the calling thread once the executor was shut down. */
    public void callback(Runnable task) {
        try {
            execute(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    /**
     * Runs {@code task}, part of handling a server request that may block (a synchronous approval policy), where
     * handlers run; on the calling thread once the executor was shut down.
     */
    public void handler(Runnable task) {
        try {
            runMarked(handlers, task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    /** Where a connection runs a server request's handler: marked, rejecting once shut down. */
    Executor handlers() {
        return task -> runMarked(handlers, task);
    }

    /** Runs {@code task} on the delivery lane of {@code key} (a codex thread id), behind what is queued there. */
    public void onLane(String key, Runnable task) {
        lanes.execute(key, task);
    }

    /**
     * Runs {@code task} as the lane of {@code key} (a codex thread id) would: at once when the current thread is
     * running that lane (it owns what the lane owns right now), else queued there, behind what is queued. For the
     * state the lane owns; work that must come after the events already queued uses {@link #onLane}.
     */
    public void runAsLane(String key, Runnable task) {
        if (lanes.isRunning(key)) {
            task.run();
        } else {
            lanes.execute(key, task);
        }
    }

    /**
     * Runs {@code task} once every task queued now on any lane has run (on the lane that finishes last).
     *
     * @param task what to run behind every lane's queued tasks; it must not block
     */
    public void afterQueuedEvents(Runnable task) {
        lanes.executeAfterAll(task);
    }

    /** Whether the current thread is delivering on the lane of {@code key}. */
    public boolean isOnLane(String key) {
        return lanes.isRunning(key);
    }

    /** The lanes, for the connections that deliver on them. */
    Lanes lanes() {
        return lanes;
    }

    /** Whether the current thread runs a callback (listener, handler, continuation) of this client. */
    public boolean inCallback() {
        return IN_CALLBACK.get() == this;
    }

    /** Whether the current thread runs a callback of any client (whose executor it may be waiting for). */
    public static boolean inAnyCallback() {
        return IN_CALLBACK.get() != null;
    }

    /** Whether the executor was shut down. */
    public boolean isShutdown() {
        return executor.isShutdown();
    }

    /**
     * Shuts the executor down, for a client that owns it. Unless {@code wait} is false (the caller is one of its own
     * tasks, which would wait for itself), gives the running tasks 2 s, then interrupts them.
     */
    public void shutDown(boolean wait) {
        executor.shutdown();
        if (!wait) {
            return;
        }
        try {
            if (!executor.awaitTermination(2, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private void runMarked(Executor target, Runnable task) {
        target.execute(() -> {
            Callbacks previous = IN_CALLBACK.get();
            IN_CALLBACK.set(this);
            try {
                task.run();
            } finally {
                // set, not remove: removing expunges the entry (and clears its weak reference) for every event.
                IN_CALLBACK.set(previous);
            }
        });
    }
}

package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.testkit.internal.fake.Connection;
import dev.codexclient.testkit.internal.fake.Json;
import dev.codexclient.testkit.internal.fake.ThreadSearches;
import dev.codexclient.testkit.internal.fake.ThreadStore;
import dev.codexclient.testkit.internal.fake.WorkerGroup;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the parts of one fake share: its threads, its thread store and recording, the ids it hands out, the
 * failures it saw, the stall gate and whether it is closed. The parts get this rather than the public facade.
 */
final class FakeContext {
    private static final Logger LOG = LoggerFactory.getLogger(FakeContext.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    final ThreadStore store = new ThreadStore();
    final ThreadSearches searches = new ThreadSearches(store);
    final Journal journal;
    /** The fake's threads, borrowed from a pool all fakes share: a test suite builds one fake per test. */
    final WorkerGroup workers = new WorkerGroup();
    /** Handles the client's messages one at a time, in the order they came. */
    final Executor dispatcher = workers.serial();
    /** Runs delayed answers; its thread starts with the first one. */
    final ScheduledExecutorService scheduler;
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final AtomicLong ids = new AtomicLong();
    private final Object stallLock = new Object();
    private volatile boolean stalled;
    private volatile boolean closed;
    private volatile Duration serverRequestTimeout = Duration.ofSeconds(10);

    FakeContext(Recording recording) {
        this.journal = new Journal(recording);
        String name = "codex-fake-scheduler-" + INSTANCES.incrementAndGet();
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs {@code task} on the dispatcher, after what is queued there; what it throws is kept as a failure. */
    void dispatch(Runnable task) {
        try {
            dispatcher.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    recordFailure(e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("fake closed; dropping a task");
        }
    }

    String nextId(String prefix) {
        return prefix + "-" + ids.incrementAndGet();
    }

    void recordFailure(Throwable t) {
        LOG.debug("fake failure recorded", t);
        failures.add(t);
    }

    List<Throwable> failures() {
        return List.copyOf(failures);
    }

    Duration serverRequestTimeout() {
        return serverRequestTimeout;
    }

    void serverRequestTimeout(Duration timeout) {
        this.serverRequestTimeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * Sends a request to the client on {@code connection}, under the connection's next id.
     *
     * @param params the params; null for an empty object
     */
    PendingServerRequest sendRequest(Connection connection, String method, JsonNode params) {
        return sendRequest(connection, connection.nextServerRequestId(), method, params);
    }

    PendingServerRequest sendRequest(Connection connection, RequestId id, String method, JsonNode params) {
        JsonNode sentParams = params == null ? Json.object() : params;
        return new PendingServerRequest(connection, id, method, sentParams,
                connection.sendRequest(id, method, sentParams));
    }

    // ---------------------------------------------------------------- stall

    boolean isStalled() {
        return stalled;
    }

    void stall() {
        stalled = true;
    }

    /** Ends a stall: waiting turns go on. */
    void resume() {
        synchronized (stallLock) {
            stalled = false;
            stallLock.notifyAll();
        }
    }

    /** Waits while the fake is stalled, until {@code giveUp} says to stop waiting; a turn's steps call this. */
    void awaitNotStalled(BooleanSupplier giveUp) {
        synchronized (stallLock) {
            while (stalled && !giveUp.getAsBoolean()) {
                try {
                    stallLock.wait(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new TurnContext.Stop();
                }
            }
        }
    }

    // ---------------------------------------------------------------- lifecycle

    boolean isClosed() {
        return closed;
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the fake codex app-server is closed");
        }
    }

    /** Marks the fake closed and ends a stall; false when it was closed already. */
    boolean close() {
        if (closed) {
            return false;
        }
        closed = true;
        resume();
        return true;
    }

    /** Stops every thread the fake started, waiting up to 2 s for them. */
    void stopThreads() {
        workers.shutdownNow();
        scheduler.shutdownNow();
        try {
            if (!workers.awaitTermination(2_000) || !scheduler.awaitTermination(2, TimeUnit.SECONDS)) {
                LOG.warn("a fake codex app-server thread did not stop within 2 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package dev.codexclient.pool.internal;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexPoolRejectedException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.pool.MemberState;
import dev.codexclient.pool.MemberStats;
import dev.codexclient.protocol.ThreadLoadedListParams;
import dev.codexclient.transport.ReadinessProbe;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One app-server of a pool: its client (replaced when it gave up, or at once by the warm spare when its server
 * exited), its places ({@link TurnPlaces}: the cap of running turns and the bounded queue in front of it), its health,
 * whether it drains, and its counts.
 *
 * <p>Threading: the client's replacement and the drain are guarded by this object, the places by their own; turns
 * are started outside both. A replacement builds a client (a server's start): {@link #clientAsync()} has it done on
 * the pool's thread, so that no caller blocks for it. The health is guarded by {@link #healthLock}, so the pool's
 * timer and a check asked for by the user check one member one at a time.
 */
final class PoolMember {
    /**
     * The member's client of the moment and its generation, read together: a handle of a pooled thread is valid on
     * the generation it was made on.
     *
     * @param client     the client
     * @param generation how many times the member's client was replaced before it
     */
    record Current(CodexClient client, long generation) {
    }

    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(PoolMember.class);
    }


    private final String name;
    private final Optional<URI> address;
    private final boolean resolved;
    /** Builds a new client: its server's start, tried again while codex finds its state database busy. */
    private final Supplier<CodexClient> start;
    /** The client a replacement takes instead of starting one; null for a member no spare stands in for. */
    private final WarmSpare spare;
    private final Executor executor;
    private final ReadinessProbe probe;
    private final TurnPlaces places;
    /** Told of each client the member takes, the first included: the pool's notification listeners follow it. */
    private final Consumer<CodexClient> onClient;
    private final Set<String> threads = ConcurrentHashMap.newKeySet();
    /** Threads placed here whose start or resume has not answered yet: they count as placed. */
    private final AtomicInteger arriving = new AtomicInteger();
    private final Object healthLock = new Object();
    private final MemberHealth health;
    private volatile Current current;
    private volatile boolean ready = true;
    private volatile boolean ejected;
    private volatile boolean draining;
    private volatile boolean closed;
    // Guarded by this.
    private long replacements;
    private long retirements;
    /** The server process whose exit is watched (with a warm spare). */
    private long watchedPid = -1;
    /** The replacement being built on the pool's thread, if any. */
    private CompletableFuture<Current> replacing;

    PoolMember(String name, Optional<URI> address, boolean resolved, Supplier<CodexClient> start,
               ReadinessProbe probe, TurnPlaces places, MemberHealth health, WarmSpare spare, Executor executor,
               Consumer<CodexClient> onClient) {
        this.name = name;
        this.address = address;
        this.resolved = resolved;
        this.start = start;
        this.spare = spare;
        this.executor = executor;
        this.probe = probe;
        this.places = places;
        this.health = health;
        this.onClient = onClient;
        this.current = new Current(start.get(), 0);
        onClient.accept(current.client());
        watchServer();
    }

    String name() {
        return name;
    }

    Optional<URI> address() {
        return address;
    }

    /** Whether its resolver named it (and so may stop naming it); members given to the builder stay. */
    boolean resolved() {
        return resolved;
    }

    long generation() {
        return current.generation();
    }

    /** {@return the member's client of the moment and its generation, as they are: never replaced here} */
    Current now() {
        return current;
    }

    /**
     * The member's client; one that gave up is replaced first, by the warm spare when one is ready, else by a new
     * one from the factory, on the calling thread, which blocks for the new server's start.
     */
    CodexClient client() {
        return replaced().client();
    }

    /**
     * {@return the member's client of the moment and its generation, once it is open} One that gave up is replaced
     * first, as {@link #client()} does, but on the pool's thread: the caller does not wait for the start. Concurrent
     * callers share one replacement; the future fails when the replacement does, or the pool closes.
     */
    CompletableFuture<Current> clientAsync() {
        Current c = current;
        if (!c.client().isClosed() || closed) {
            return CompletableFuture.completedFuture(c);
        }
        synchronized (this) {
            if (replacing == null || replacing.isDone()) {
                CompletableFuture<Current> next = new CompletableFuture<>();
                replacing = next;
                try {
                    executor.execute(() -> {
                        try {
                            next.complete(replaced());
                        } catch (RuntimeException e) {
                            next.completeExceptionally(e);
                        }
                    });
                } catch (RejectedExecutionException e) {
                    next.completeExceptionally(new CodexPoolRejectedException("pool member " + name
                            + " is closed"));
                }
            }
            return replacing;
        }
    }

    /** Replaces the client if it gave up (see {@link #client()}); returns the one of the moment. */
    private Current replaced() {
        Current c = current;
        if (c.client().isClosed() && !closed) {
            CodexClient taken = null;
            synchronized (this) {
                if (current.client().isClosed() && !closed) {
                    Log.LOG.warn("pool member {} gave up restarting its server; replacing its client", name);
                    current.client().close();
                    taken = spare == null ? start.get() : spare.take().orElseGet(start);
                    current = new Current(taken, current.generation() + 1);
                    replacements++;
                }
                c = current;
            }
            if (taken != null) {
                onClient.accept(taken);
            }
            watchServer();
        }
        return c;
    }

    /**
     * With a warm spare, watches the exit of the client's server process, so that a crash is answered by the spare at
     * once, not by a restart or at the next use. Called whenever the member may run a new process.
     */
    private void watchServer() {
        if (spare == null) {
            return;
        }
        CodexClient c = current.client();
        Optional<ProcessHandle> server = c.serverProcess();
        if (server.isEmpty()) {
            return;
        }
        synchronized (this) {
            if (watchedPid == server.get().pid()) {
                return;
            }
            watchedPid = server.get().pid();
        }
        server.get().onExit().thenRun(() -> {
            try {
                executor.execute(() -> serverExited(c));
            } catch (RejectedExecutionException e) {
                // the pool closes
            }
        });
    }

    /** The server of {@code lost} exited: the warm spare, when ready, takes its place at once. */
    private void serverExited(CodexClient lost) {
        CodexClient taken;
        synchronized (this) {
            if (closed || current.client() != lost) {
                return;
            }
            Optional<CodexClient> ready = spare.take();
            if (ready.isEmpty()) {
                return; // the client's restart policy, or the next use, replaces it
            }
            taken = ready.get();
            current = new Current(taken, current.generation() + 1);
            replacements++;
        }
        onClient.accept(taken);
        Log.LOG.warn("pool member {} lost its server; the warm spare took its place", name);
        lost.close();
        watchServer();
    }

    /**
     * Whether new threads may go to it: open, not draining, ready at its last check, not ejected, its client open
     * (replaced if it gave up, blocking for the new one's start) and, for a spawned server, its process alive.
     */
    boolean healthy() {
        if (closed || draining || !ready || ejected) {
            return false;
        }
        return alive() == null;
    }

    /**
     * Whether a new thread may be placed on it now, without waiting for anything: as {@link #healthy()}, but a
     * client that gave up counts as the one that will replace it when the thread is placed ({@link #clientAsync()}).
     */
    boolean placeable() {
        if (closed || draining || !ready || ejected) {
            return false;
        }
        CodexClient c = current.client();
        return c.isClosed() || c.serverProcess().map(ProcessHandle::isAlive).orElse(true);
    }

    /** Null when its client is open (replaced if it gave up) and its process, if any, alive; else why not. */
    private String alive() {
        CodexClient c;
        try {
            c = client();
        } catch (RuntimeException e) {
            Log.LOG.warn("pool member {} could not be replaced: {}", name, e.getMessage());
            return "its client could not be replaced: " + e.getMessage();
        }
        if (c.isClosed()) {
            return "its client is closed";
        }
        if (!c.serverProcess().map(ProcessHandle::isAlive).orElse(true)) {
            return "its server process has exited";
        }
        return null;
    }

    /**
     * Checks the member now (blocking, at most about {@code timeout}): its client and process, then its
     * {@code /readyz} when it has an address, else a cheap call ({@code thread/loaded/list}: an answer, even an
     * error, shows a server that serves).
     *
     * @return null when it passed, else why it failed
     */
    String probe(Duration timeout) {
        String dead = alive();
        if (dead != null) {
            return dead;
        }
        watchServer();
        if (probe != null) {
            return probe.isReady() ? null : "its /readyz did not answer 200";
        }
        try {
            current.client().rpc().threadLoadedList(new ThreadLoadedListParams(null, 1L))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return null;
        } catch (TimeoutException e) {
            return "its server did not answer thread/loaded/list within " + timeout;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "the check was interrupted";
        } catch (ExecutionException e) {
            Throwable cause = Joins.unwrap(e.getCause());
            if (cause instanceof CodexRpcException) {
                return null; // the server answered: it serves
            }
            return "thread/loaded/list failed: " + cause.getMessage();
        }
    }

    /**
     * Records a check's result in the member's health, under its lock.
     *
     * @param check runs the check; null when it passed, else why not
     * @param now   the pool's clock, read after the check
     * @return what changed, or empty when the check was not due (an ejected member in its backoff)
     */
    Optional<MemberHealth.Change> check(Supplier<String> check, java.util.function.LongSupplier now) {
        synchronized (healthLock) {
            if (closed || !health.checkDue(now.getAsLong())) {
                return Optional.empty();
            }
            String failure = check.get();
            long at = now.getAsLong();
            MemberHealth.Change change = failure == null ? health.passed(at) : health.failed(at, failure);
            ready = failure == null;
            ejected = health.ejected();
            if (failure != null) {
                Log.LOG.debug("pool member {} failed its check ({} in a row): {}", name, health.consecutiveFailures(),
                        failure);
            }
            return Optional.of(change);
        }
    }

    /** Reads the member's health under its lock. */
    <T> T health(Function<MemberHealth, T> read) {
        synchronized (healthLock) {
            return read.apply(health);
        }
    }

    /** {@return whether a thread of this id is placed here} */
    boolean holds(String threadId) {
        return threads.contains(threadId);
    }

    void placed(String threadId) {
        threads.add(threadId);
    }

    void forget(String threadId) {
        threads.remove(threadId);
    }

    /**
     * {@return whether a thread of this member may leave it for good} The member is lost (closed, ejected, or drains
     * after its resolver dropped it) and no turn of the thread holds a place on it, so nothing of the thread runs here.
     */
    boolean lostFor(String threadId) {
        return (closed || ejected || draining) && !places.heldBy(threadId);
    }

    void replacedThread(String oldId, String newId) {
        threads.remove(oldId);
        threads.add(newId);
    }

    int threadCount() {
        return threads.size() + arriving.get();
    }

    /**
     * A thread is being placed here: it counts among the member's threads before the server answers, so that starts
     * made at once spread over the members instead of all going to the one that had the fewest a moment ago.
     *
     * @return what to run once the start or resume has answered, however
     */
    Runnable arriving() {
        arriving.incrementAndGet();
        AtomicBoolean once = new AtomicBoolean();
        return () -> {
            if (once.compareAndSet(false, true)) {
                arriving.decrementAndGet();
            }
        };
    }

    int load() {
        return places.load();
    }

    boolean draining() {
        return draining;
    }

    /**
     * Stops taking threads and turns; the running and queued ones go on.
     *
     * @return the number of this retirement, for {@link #drainingSince(long)}
     */
    synchronized long drain() {
        draining = true;
        return ++retirements;
    }

    /** {@return whether it still drains from the retirement {@link #drain()} numbered so} */
    synchronized boolean drainingSince(long retirement) {
        return draining && retirements == retirement;
    }

    /** Takes threads and turns again: its resolver named it again before it closed. False when already closed. */
    synchronized boolean undrain() {
        if (closed) {
            return false;
        }
        draining = false;
        return true;
    }

    /**
     * Starts a turn now when the cap allows, queues it when the queue has room, rejects it otherwise (and when the
     * member is closed or drains).
     */
    <T> CompletableFuture<T> submit(String thread, Supplier<CompletableFuture<T>> start,
                                    Function<T, CodexTurn> turnOf) {
        if (closed) {
            return CompletableFuture.failedFuture(new CodexPoolRejectedException("pool member " + name
                    + " is closed"));
        }
        if (draining) {
            return CompletableFuture.failedFuture(new CodexPoolRejectedException("pool member " + name
                    + " was removed from the pool and drains: it takes no new turns"));
        }
        return places.submit(thread, start, turnOf);
    }

    /** {@return its places: the cap, the line, who holds a place} */
    TurnPlaces places() {
        return places;
    }

    /** Completes when no turn runs or waits. */
    CompletableFuture<Void> idle() {
        return places.idle();
    }

    synchronized MemberStats stats() {
        CodexClient c = current.client();
        Optional<Long> pid = c.serverProcess().map(ProcessHandle::pid);
        MemberState state = closed || draining ? MemberState.DRAINING
                : ejected ? MemberState.EJECTED
                : ready && !c.isClosed() ? MemberState.READY : MemberState.NOT_READY;
        return new MemberStats(name, state == MemberState.READY, places.running(), places.queued(),
                threads.size(), places.rejected(), replacements, pid, state, address);
    }

    boolean closed() {
        return closed;
    }

    void close() {
        CompletableFuture<Current> inFlight;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            inFlight = replacing;
        }
        // A replacement queued on the pool's thread, which the pool's close stops, would never run: what waits for
        // it fails now (one that ran meanwhile has completed, and this changes nothing).
        if (inFlight != null) {
            inFlight.completeExceptionally(new CodexPoolRejectedException("pool member " + name
                    + " was closed before its new client started"));
        }
        places.close();
        current.client().close();
    }
}

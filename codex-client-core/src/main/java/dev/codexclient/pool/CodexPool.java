package dev.codexclient.pool;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexPoolRejectedException;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.transport.ReadinessProbe;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs threads over several app-servers ("members"): spawned children, endpoints you give, or both. A new thread
 * goes to the healthy member with the least load; each member runs at most
 * {@link Builder#maxTurnsPerMember(int) a cap} of turns at once, further turns wait in a bounded queue, and a turn
 * that finds the queue full is rejected with {@link CodexPoolRejectedException}.
 *
 * <pre>{@code
 * try (CodexPool pool = CodexPool.builder()
 *         .spawned(3, () -> CodexClient.builder().restartPolicy(RestartPolicy.defaults()))
 *         .maxTurnsPerMember(4).maxQueuedTurnsPerMember(32)
 *         .build()) {
 *     PooledThread thread = pool.startThread();
 *     TurnResult r = thread.startTurn("Summarise README.md").await(Duration.ofMinutes(5));
 * }
 * }</pre>
 *
 * <p>Members recover on their own with their client's {@link dev.codexclient.RestartPolicy} (give each one a
 * policy): a member whose server dies is restarted and its threads resumed there. A member whose client gave up is replaced with a
 * new client from its factory; its threads are resumed on the replacement when next used. Health: a member is
 * healthy while its client is open and, for a spawned server, its process is alive; a member given with a
 * readiness URI must also answer {@code /readyz} ({@link #checkHealth()}).
 *
 * <p>{@link #drain(Duration)} stops accepting turns and waits for the running and queued ones; {@link #close()}
 * closes every member, ending every process the pool spawned.
 */
public final class CodexPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CodexPool.class);

    private final List<PoolMember> members;
    private volatile boolean draining;
    private volatile boolean closed;

    private CodexPool(List<PoolMember> members) {
        this.members = List.copyOf(members);
    }

    /** {@return a new builder of a pool, with no members yet} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts a thread with the server's defaults on the least loaded healthy member, waiting at most that member's
     * request timeout. Choosing the member replaces any member's client that gave up, which waits for the new
     * client's start.
     *
     * @return the new thread, placed on the member for its whole life
     * @throws CodexPoolRejectedException when no member is healthy, or the pool is draining or closed
     * @throws CodexException             when the member's client fails to start the thread, as
     *                                    {@link CodexClient#startThread()} does
     */
    public PooledThread startThread() {
        return startThread(ThreadStartParams.builder().build());
    }

    /**
     * Starts a thread on the least loaded healthy member, waiting at most that member's request timeout. Choosing
     * the member replaces any member's client that gave up, which waits for the new client's start.
     *
     * @param params the {@code thread/start} params (model, working directory, sandbox, ...)
     * @return the new thread, placed on the member for its whole life
     * @throws CodexPoolRejectedException when no member is healthy, or the pool is draining or closed
     * @throws CodexException             when the member's client fails to start the thread, as
     *                                    {@link CodexClient#startThread(ThreadStartParams)} does
     */
    public PooledThread startThread(ThreadStartParams params) {
        Objects.requireNonNull(params, "params");
        checkOpen();
        PoolMember m = place();
        CodexThread t = m.client().startThread(params);
        return new PooledThread(this, m, t);
    }

    /**
     * Resumes a stored thread on the least loaded healthy member, waiting at most that member's request timeout.
     * Choosing the member replaces any member's client that gave up, which waits for the new client's start. Any
     * member may be chosen, so the members must share the thread's storage ({@code CODEX_HOME}).
     *
     * @param threadId the id of the stored thread
     * @return the resumed thread, placed on the member for its whole life
     * @throws CodexPoolRejectedException when no member is healthy, or the pool is draining or closed
     * @throws CodexException             when the member's client fails to resume the thread, e.g. for an id its
     *                                    server does not know, as {@link CodexClient#resumeThread(String)} does
     */
    public PooledThread resumeThread(String threadId) {
        Objects.requireNonNull(threadId, "threadId");
        checkOpen();
        PoolMember m = place();
        return new PooledThread(this, m, m.client().resumeThread(threadId));
    }

    /** The healthy member with the least load: running plus queued turns, then threads. */
    private PoolMember place() {
        return members.stream().filter(PoolMember::healthy)
                .min(Comparator.comparingInt(PoolMember::load).thenComparingInt(PoolMember::threadCount))
                .orElseThrow(() -> new CodexPoolRejectedException("no member of the pool is healthy"));
    }

    /** Starts a turn on {@code thread}'s member, now or when a place frees up. */
    CompletableFuture<CodexTurn> startTurn(PooledThread thread, TurnStartParams params) {
        if (draining || closed) {
            return CompletableFuture.failedFuture(new CodexPoolRejectedException(
                    "the pool is " + (closed ? "closed" : "draining") + ": it accepts no new turns"));
        }
        return thread.member().submit(thread::handle, t -> t.startTurnAsync(params));
    }

    /**
     * Checks every member's health now, one after another: a member given with a readiness URI is asked
     * {@code /readyz} (each probe waits at most its request timeout); a member whose client gave up is replaced,
     * which builds a new client and so blocks for its start. The answer of {@code /readyz} holds until the next
     * check: a member found not ready gets no new threads until a later check finds it ready. Call it
     * periodically when members have readiness URIs.
     *
     * @return how many members are healthy after the check
     */
    public int checkHealth() {
        int healthy = 0;
        for (PoolMember m : members) {
            m.checkReadiness();
            if (m.healthy()) {
                healthy++;
            }
        }
        return healthy;
    }

    /**
     * {@return the counts of each member, in the order the members were added} Each member's counts are taken at
     * once, but the members one after another: the list is not one instant of the whole pool. For monitoring.
     */
    public List<MemberStats> stats() {
        List<MemberStats> out = new ArrayList<>();
        for (PoolMember m : members) {
            out.add(m.stats());
        }
        return out;
    }

    /**
     * {@return the client of the member named {@code memberName} at this moment, empty when the pool has no member of
     * that name} The pool owns the client: use it for calls of its own ({@code rpc()}, {@code listThreads()}, its
     * server's process), not to close it. A member that gave up restoring its server gets a new client, which this
     * then returns.
     *
     * @param memberName the member's name, as given to the builder (spawned members: {@code spawned-1}, …)
     */
    public Optional<CodexClient> memberClient(String memberName) {
        Objects.requireNonNull(memberName, "memberName");
        return members.stream().filter(m -> m.name().equals(memberName)).findFirst().map(PoolMember::client);
    }

    /**
     * Stops accepting turns and waits, at most {@code timeout}, for the running and queued ones to end. From the
     * call on, new threads and turns are rejected with {@link CodexPoolRejectedException}, for good: a drained pool
     * does not accept work again. The pool stays open for reads until {@link #close()}.
     *
     * @param timeout how long to wait at most
     * @return whether every running and queued turn ended in time; false when the time ran out or the calling
     *         thread was interrupted (its interrupt status is set again)
     */
    public boolean drain(Duration timeout) {
        draining = true;
        List<CompletableFuture<Void>> idle = new ArrayList<>();
        for (PoolMember m : members) {
            idle.add(m.idle());
        }
        try {
            CompletableFuture.allOf(idle.toArray(CompletableFuture[]::new))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            throw new CodexException("draining the pool failed", e.getCause());
        }
    }

    /** Closes every member (its server process too, for a spawned one); queued turns fail. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        draining = true;
        RuntimeException first = null;
        for (PoolMember m : members) {
            try {
                m.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private void checkOpen() {
        if (closed || draining) {
            throw new CodexPoolRejectedException("the pool is " + (closed ? "closed" : "draining")
                    + ": it accepts no new threads");
        }
    }

    /**
     * The counts of one member.
     *
     * @param name          the member's name
     * @param healthy       whether new threads may go to it
     * @param runningTurns  turns running (started and not ended)
     * @param queuedTurns   turns waiting for a place
     * @param threads       threads placed on it
     * @param rejectedTurns turns rejected because its queue was full
     * @param replacements  how often its client was replaced after giving up
     * @param serverPid     the process of a spawned server, when there is one
     */
    public record MemberStats(String name, boolean healthy, int runningTurns, int queuedTurns, int threads,
                              long rejectedTurns, long replacements, Optional<Long> serverPid) {
        /**
         * Checks that every member is present.
         *
         * @param name          the member's name
         * @param healthy       whether new threads may go to it
         * @param runningTurns  turns running (started and not ended)
         * @param queuedTurns   turns waiting for a place
         * @param threads       threads placed on it
         * @param rejectedTurns turns rejected because its queue was full
         * @param replacements  how often its client was replaced after giving up
         * @param serverPid     the process of a spawned server, when there is one
         */
        public MemberStats {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(serverPid, "serverPid");
        }
    }

    /** Configures and builds a {@link CodexPool}. */
    public static final class Builder {
        private record Spec(String name, Supplier<CodexClient> factory, URI readiness) {
        }

        private final List<Spec> specs = new ArrayList<>();
        private int maxTurns = 8;
        private int maxQueued = 64;

        private Builder() {
        }

        /**
         * A member whose client {@code factory} builds (and builds again when the client gave up). Give each client
         * a {@link CodexClientBuilder#restartPolicy(RestartPolicy) restart policy}.
         *
         * @param name    the member's name, in its {@link MemberStats} and in log messages
         * @param factory builds the member's client: once in {@link #build()}, and again for each replacement
         * @return this builder
         */
        public Builder member(String name, Supplier<CodexClient> factory) {
            specs.add(new Spec(Objects.requireNonNull(name, "name"), Objects.requireNonNull(factory, "factory"),
                    null));
            return this;
        }

        /**
         * A member reached over WebSocket at {@code uri}, whose health is also asked of its {@code /readyz}
         * ({@link ReadinessProbe}); {@code factory} builds its client (e.g. with a transport factory for the URI).
         *
         * @param name    the member's name, in its {@link MemberStats} and in log messages
         * @param uri     the server's {@code ws://} or {@code wss://} URI (checked by {@link #build()});
         *                {@link CodexPool#checkHealth()} asks {@code /readyz} on its host and port
         * @param factory builds the member's client: once in {@link #build()}, and again for each replacement
         * @return this builder
         */
        public Builder member(String name, URI uri, Supplier<CodexClient> factory) {
            specs.add(new Spec(Objects.requireNonNull(name, "name"), Objects.requireNonNull(factory, "factory"),
                    Objects.requireNonNull(uri, "uri")));
            return this;
        }

        /**
         * {@code count} members that each spawn their own app-server, configured by {@code configure}. They are named
         * {@code spawned-N}, after their position among all the members (from 1).
         *
         * @param count     how many members to add
         * @param configure gives a fresh client builder for each client to build: one per member in
         *                  {@link #build()}, and one for each replacement
         * @return this builder
         */
        public Builder spawned(int count, Supplier<CodexClientBuilder> configure) {
            Objects.requireNonNull(configure, "configure");
            int base = specs.size();
            for (int i = 0; i < count; i++) {
                member("spawned-" + (base + i + 1), () -> configure.get().build());
            }
            return this;
        }

        /**
         * The most turns one member runs at once (default 8).
         *
         * @param turns the cap, at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code turns} is below 1
         */
        public Builder maxTurnsPerMember(int turns) {
            if (turns < 1) {
                throw new IllegalArgumentException("maxTurnsPerMember must be at least 1");
            }
            this.maxTurns = turns;
            return this;
        }

        /**
         * The most turns that wait for a place on one member (default 64); 0 rejects at once when it is full.
         *
         * @param turns the bound of each member's queue, at least 0
         * @return this builder
         * @throws IllegalArgumentException when {@code turns} is negative
         */
        public Builder maxQueuedTurnsPerMember(int turns) {
            if (turns < 0) {
                throw new IllegalArgumentException("maxQueuedTurnsPerMember must not be negative");
            }
            this.maxQueued = turns;
            return this;
        }

        /**
         * Builds every member's client, one after another (each spawned server starts and completes its handshake
         * here); when one fails, closes those built and rethrows.
         *
         * @return the pool, owning every client it built
         * @throws IllegalStateException    when no member was added
         * @throws IllegalArgumentException when a member's readiness URI is not a {@code ws://} or {@code wss://}
         *                                  URI with a host
         * @throws CodexException           when a member's client could not be built (its server did not start, or
         *                                  the handshake failed); anything else a factory throws is rethrown as it is
         */
        public CodexPool build() {
            if (specs.isEmpty()) {
                throw new IllegalStateException("a pool needs at least one member");
            }
            List<PoolMember> built = new ArrayList<>();
            try {
                for (Spec s : specs) {
                    built.add(new PoolMember(s.name(), s.factory(),
                            s.readiness() == null ? null : ReadinessProbe.of(s.readiness()), maxTurns, maxQueued));
                }
            } catch (RuntimeException e) {
                for (PoolMember m : built) {
                    try {
                        m.close();
                    } catch (RuntimeException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw e;
            }
            LOG.debug("pool of {} members built", built.size());
            return new CodexPool(built);
        }
    }
}

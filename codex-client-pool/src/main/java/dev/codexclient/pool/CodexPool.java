package dev.codexclient.pool;

import dev.codexclient.Codex;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexExperimental;
import dev.codexclient.CodexThread;
import dev.codexclient.DynamicTool;
import dev.codexclient.Subscription;
import dev.codexclient.ThreadOptions;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexPoolRejectedException;
import dev.codexclient.pool.internal.Joins;
import dev.codexclient.pool.internal.PlacedThread;
import dev.codexclient.pool.internal.PoolRuntime;
import dev.codexclient.pool.internal.PoolSettings;
import dev.codexclient.pool.internal.PoolTimer;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ExtensionTelemetry;
import dev.codexclient.transport.ReadinessProbe;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

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
 *     CodexThread thread = pool.startThread();              // a PooledThread
 *     TurnResult r = thread.startTurn("Summarise README.md").await(Duration.ofMinutes(5));
 * }
 * }</pre>
 *
 * <p>Members come from the builder ({@link Builder#member(String, Supplier)}, {@link Builder#spawned}) or from a
 * {@link MemberResolver} ({@link Builder#resolver}) that the pool asks again every
 * {@link Builder#resolveEvery(Duration) interval}: endpoints it did not have become members, members it no longer
 * names drain (no new threads or turns, running turns finish) and close.
 *
 * <p>Members restart on their own with their client's {@link dev.codexclient.RestartPolicy} (give each one a
 * policy): a member whose server dies is restarted and its threads resumed there. A member whose
 * client gave up is replaced with a new client from its factory; its threads are resumed on the replacement when
 * next used. Health is checked on a timer ({@link Builder#healthCheckEvery(Duration, Duration)}): a member whose
 * client is closed, whose spawned process died, or whose server does not answer ({@code /readyz} for a member with
 * an address, a cheap call otherwise) gets no new threads; after {@link Builder#ejectAfter(int) failures in a row} it
 * is ejected and checked again with a growing backoff until it passes. The pool reports these changes to its
 * {@link Builder#telemetryListener(CodexTelemetryListener) listener}.
 *
 * <p><b>The client's face.</b> A pool is a {@link Codex}: code that takes one (a framework bridge, the agent runner,
 * {@code CodexConversations}, an application service) runs on a pool as on a single client. Its threads are
 * {@link CodexThread}s ({@link PooledThread}); {@link #onNotification} hears every member, those the resolver adds
 * later and the replacements of their clients included; {@link #mask} masks what any member's client masks; a thread's
 * {@link ThreadOptions} (its tools, its approval policy) are given again wherever the thread is resumed. Every
 * {@code …Async} method never blocks, not even for a member's new client to start (that start runs on the pool's
 * thread), so one thread can start a thousand turns and let them wait for their places.
 *
 * <p>{@link #drain(Duration)} stops accepting turns and waits for the running and queued ones; {@link #close()}
 * closes every member, ending every process the pool spawned.
 */
public final class CodexPool implements Codex, AutoCloseable {
    private final PoolRuntime runtime;

    private CodexPool(PoolRuntime runtime) {
        this.runtime = runtime;
    }

    /** {@return a new builder of a pool, with no members yet} */
    public static Builder builder() {
        return new Builder();
    }

    // ------------------------------------------------------------------------------------------------ threads
    // Each blocking form joins its async twin (one implementation): it waits for the member to be chosen (a member's
    // new client, when its old one gave up, is built on the pool's thread) and for the member's answer, at most its
    // request timeout. Each async twin never blocks.

    /**
     * Starts a thread with the server's defaults on the least loaded healthy member, waiting for the member's answer
     * (at most its request timeout). A member whose client gave up is replaced first, which waits for the new
     * client's start.
     *
     * @return the new thread, placed on the member (for good, unless the members share their storage and it is
     *         lost)
     * @throws CodexPoolRejectedException when no member is healthy, or the pool is draining or closed
     * @throws CodexException             when the member's client fails to start the thread, as
     *                                    {@link CodexClient#startThread()} does
     */
    @Override
    public PooledThread startThread() {
        return startThread(ThreadStartParams.builder().build());
    }

    /**
     * Starts a thread on the least loaded healthy member, as {@link #startThread()} does.
     *
     * @param params the {@code thread/start} params (model, working directory, sandbox, ...)
     * @return the new thread, placed on the member
     * @throws CodexPoolRejectedException when no member is healthy, or the pool is draining or closed
     * @throws CodexException             when the member's client fails to start the thread, as
     *                                    {@link CodexClient#startThread(ThreadStartParams)} does
     */
    @Override
    public PooledThread startThread(ThreadStartParams params) {
        return startThread(params, ThreadOptions.none());
    }

    /**
     * Starts a thread with tools of its own on the least loaded healthy member, as {@link #startThread()} does; the
     * tools stay the thread's wherever it is resumed (see {@link #startThread(ThreadStartParams, ThreadOptions)}).
     *
     * @param params the {@code thread/start} params
     * @param tools  the thread's own tools; empty for none
     * @return the new thread, placed on the member
     * @throws CodexPoolRejectedException when no member is healthy, or the pool is draining or closed
     * @throws CodexException             when the member's client fails to start the thread, as
     *                                    {@link CodexClient#startThread(ThreadStartParams, List)} does
     */
    @Override
    @CodexExperimental("dynamicTools")
    public PooledThread startThread(ThreadStartParams params, List<DynamicTool> tools) {
        return startThread(params, ThreadOptions.tools(tools));
    }

    /**
     * Starts a thread with options of its own (its tools, its approval policy; see {@link ThreadOptions}) on the least
     * loaded healthy member, as {@link #startThread()} does. The options are the thread's wherever it runs: given
     * again when it is resumed on its member's new client, moved to another member, or started again.
     *
     * @param params  the {@code thread/start} params
     * @param options the thread's own tools and approval policy
     * @return the new thread, placed on the member
     * @throws CodexPoolRejectedException when no member is healthy, or the pool is draining or closed
     * @throws CodexException             when the member's client fails to start the thread, as
     *                                    {@link CodexClient#startThread(ThreadStartParams, ThreadOptions)} does
     */
    @Override
    public PooledThread startThread(ThreadStartParams params, ThreadOptions options) {
        runtime.checkMayBlock("startThread");
        return Joins.join(startPlaced(params, options), "a thread to start on the pool");
    }

    /**
     * {@link #startThread(ThreadStartParams, ThreadOptions)} without blocking: no thread waits for the member's choice,
     * for a replacement's start or for the answer.
     *
     * @param params  the {@code thread/start} params
     * @param options the thread's own tools and approval policy
     * @return a future of the new thread, a {@link PooledThread}; it fails with the exceptions the blocking form
     *         throws
     */
    @Override
    public CompletableFuture<CodexThread> startThreadAsync(ThreadStartParams params, ThreadOptions options) {
        return startPlaced(params, options).thenApply(t -> t);
    }

    private CompletableFuture<PooledThread> startPlaced(ThreadStartParams params, ThreadOptions options) {
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(options, "options");
        return runtime.startThread(params, options).thenApply(this::view);
    }

    /**
     * Resumes a stored thread on the least loaded healthy member, with its turns, as
     * {@link CodexClient#resumeThread(String)} does ({@link #resumeThreadWithoutTurns(String)} leaves them out),
     * waiting for the member's answer (at most its request timeout). Any member may be chosen, so the members must
     * share the thread's storage ({@code CODEX_HOME}). When the thread is resumed again later (on its member's new
     * client, or another member), it is without its turns: the pool needs the thread there, not its history.
     *
     * @param threadId the id of the stored thread
     * @return the resumed thread, placed on the member
     * @throws CodexPoolRejectedException when no member is healthy, or the pool is draining or closed
     * @throws CodexException             when the member's client fails to resume the thread, e.g. for an id its
     *                                    server does not know, as {@link CodexClient#resumeThread(String)} does
     */
    @Override
    public PooledThread resumeThread(String threadId) {
        runtime.checkMayBlock("resumeThread");
        return Joins.join(resumePlaced(threadId), "a thread to resume on the pool");
    }

    /**
     * {@link #resumeThread(String)} without blocking.
     *
     * @param threadId the id of the stored thread
     * @return a future of the resumed thread, a {@link PooledThread}; it fails with the exceptions the blocking form
     *         throws
     */
    @Override
    public CompletableFuture<CodexThread> resumeThreadAsync(String threadId) {
        return resumePlaced(threadId).thenApply(t -> t);
    }

    private CompletableFuture<PooledThread> resumePlaced(String threadId) {
        Objects.requireNonNull(threadId, "threadId");
        return runtime.resumeThread(threadId).thenApply(this::view);
    }

    /**
     * Resumes a stored thread with overrides on the least loaded healthy member, as {@link #resumeThread(String)}
     * does (see {@link CodexClient#resumeThread(ThreadResumeParams)}).
     *
     * @param params the {@code thread/resume} params: the thread id and the settings to change
     * @return the resumed thread, placed on the member
     * @throws CodexPoolRejectedException when no member is healthy, or the pool is draining or closed
     * @throws CodexException             when the member's client fails to resume the thread
     */
    @Override
    public PooledThread resumeThread(ThreadResumeParams params) {
        return resumeThread(params, ThreadOptions.none());
    }

    /**
     * Resumes a stored thread that has tools of its own, as {@link #resumeThread(ThreadResumeParams, ThreadOptions)}
     * does.
     *
     * @param params the {@code thread/resume} params: the thread id and the settings to change
     * @param tools  the thread's own tools; empty for none
     * @return the resumed thread, placed on the member
     * @throws CodexPoolRejectedException when no member is healthy, or the pool is draining or closed
     * @throws CodexException             when the member's client fails to resume the thread
     */
    @Override
    @CodexExperimental("dynamicTools")
    public PooledThread resumeThread(ThreadResumeParams params, List<DynamicTool> tools) {
        return resumeThread(params, ThreadOptions.tools(tools));
    }

    /**
     * Resumes a stored thread with overrides and options of its own (see {@link ThreadOptions}) on the least loaded
     * healthy member, as {@link #resumeThread(String)} does. The options and the overrides are given again wherever
     * the thread is resumed later (its member's new client, another member).
     *
     * @param params  the {@code thread/resume} params: the thread id and the settings to change
     * @param options the thread's own tools and approval policy
     * @return the resumed thread, placed on the member
     * @throws CodexPoolRejectedException when no member is healthy, or the pool is draining or closed
     * @throws CodexException             when the member's client fails to resume the thread
     */
    @Override
    public PooledThread resumeThread(ThreadResumeParams params, ThreadOptions options) {
        runtime.checkMayBlock("resumeThread");
        return Joins.join(resumePlaced(params, options), "a thread to resume on the pool");
    }

    /**
     * {@link #resumeThread(ThreadResumeParams, ThreadOptions)} without blocking.
     *
     * @param params  the {@code thread/resume} params
     * @param options the thread's own tools and approval policy
     * @return a future of the resumed thread, a {@link PooledThread}; it fails with the exceptions the blocking form
     *         throws
     */
    @Override
    public CompletableFuture<CodexThread> resumeThreadAsync(ThreadResumeParams params, ThreadOptions options) {
        return resumePlaced(params, options).thenApply(t -> t);
    }

    private CompletableFuture<PooledThread> resumePlaced(ThreadResumeParams params, ThreadOptions options) {
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(options, "options");
        return runtime.resumeThread(params, options).thenApply(this::view);
    }

    /**
     * Resumes a stored thread to go on with it, without its turns where the server can leave them out, on the least
     * loaded healthy member, as {@link Codex#resumeThreadWithoutTurns(String)} says and {@link #resumeThread(String)}
     * places it.
     *
     * @param threadId the id of the stored thread
     * @return the resumed thread, placed on the member; its {@link PooledThread#info()} holds no turns
     * @throws CodexPoolRejectedException when no member is healthy, or the pool is draining or closed
     * @throws CodexException             when the member's client fails to resume the thread
     */
    @Override
    public PooledThread resumeThreadWithoutTurns(String threadId) {
        Objects.requireNonNull(threadId, "threadId");
        return resumeThread(ThreadResumeParams.builder().threadId(threadId).excludeTurns(true).build());
    }

    private PooledThread view(PlacedThread placed) {
        return new PooledThread(runtime, placed);
    }

    // ------------------------------------------------------------------------------------------------ the face

    /**
     * Every notification of every member, in wire order per codex thread, on the lane of its thread, from now on: the
     * members of the moment, their clients' replacements, and the members the resolver adds later (see
     * {@link CodexClient#onNotification(Consumer)}).
     *
     * @param listener called with each notification, on the member's callback thread of the notification's codex
     *                 thread; it may call back into the pool
     * @return the subscription, whose {@code close()} removes the listener
     */
    @Override
    public Subscription onNotification(Consumer<? super ServerNotification> listener) {
        return runtime.onNotification(listener);
    }

    /**
     * {@return {@code text} with every secret masked that the clients of the pool's members mask} Each member's
     * client of the moment masks in turn, so a secret given to any member's builder is masked. {@code null} gives the
     * empty string.
     *
     * @param text the text to mask
     */
    @Override
    public String mask(CharSequence text) {
        return runtime.mask(text);
    }

    /**
     * Publishes telemetry of the caller's own (an integration's: an agent run started, a tool invoked) to the pool's
     * {@link Builder#telemetryListener(CodexTelemetryListener) listener} ({@link CodexTelemetryListener#extensionTelemetry}),
     * after the pool's records reported before it, one at a time. Does nothing without a listener. Never waits for a
     * server; works once closed too.
     *
     * @param telemetry the record
     */
    @Override
    public void publishTelemetry(ExtensionTelemetry telemetry) {
        runtime.publish(Objects.requireNonNull(telemetry, "telemetry"));
    }

    /**
     * Checks every member's health now, one after another, as the pool's timer does
     * ({@link Builder#healthCheckEvery(Duration, Duration)}): a member with an address is asked {@code /readyz},
     * another a cheap call ({@code thread/loaded/list}), each waiting at most the check timeout; a member whose
     * client gave up is replaced, which builds a new client and so blocks for its start. A member that fails gets no
     * new threads until a later check passes; after {@link Builder#ejectAfter(int) a number of failures in a row} it
     * is ejected, and checked again only after its backoff. A draining member is not checked.
     *
     * @return how many members are healthy after the check
     */
    public int checkHealth() {
        return runtime.checkHealth();
    }

    /**
     * {@return the counts of each member, in the order the members were added} Each member's counts are taken at
     * once, but the members one after another: the list is not one instant of the whole pool. For monitoring.
     */
    public List<MemberStats> stats() {
        return runtime.stats();
    }

    /**
     * {@return whether the pool's {@link Builder#warmSpare(Supplier) warm spare} is started and waits} False without
     * a warm spare, and while the next one starts after a member took it. For monitoring.
     */
    public boolean warmSpareReady() {
        return runtime.spareReady();
    }

    /**
     * {@return the client of the member named {@code memberName} at this moment, empty when the pool has no member of
     * that name} The pool owns the client: use it for calls of its own ({@code rpc()}, {@code listThreads()}, its
     * server's process), not to close it. A member that gave up restarting its server gets a new client, which this
     * then returns.
     *
     * @param memberName the member's name, as given to the builder (spawned members: {@code spawned-1}, …)
     */
    public Optional<CodexClient> memberClient(String memberName) {
        Objects.requireNonNull(memberName, "memberName");
        return runtime.memberClient(memberName);
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
        Objects.requireNonNull(timeout, "timeout");
        return runtime.drain(timeout);
    }

    /** Closes every member (its server process too, for a spawned one); queued turns fail. Idempotent. */
    @Override
    public void close() {
        runtime.close();
    }

    /** Configures and builds a {@link CodexPool}. */
    public static final class Builder {
        private final List<PoolRuntime.GivenMember> specs = new ArrayList<>();
        private int maxTurns = 8;
        private int maxQueued = 64;
        private MemberResolver resolver;
        private Function<PoolEndpoint, CodexClient> resolvedFactory;
        private Duration resolveEvery = Duration.ofSeconds(30);
        private Duration healthCheckEvery = Duration.ofSeconds(10);
        private Duration checkTimeout = Duration.ofSeconds(5);
        private int ejectAfter = 3;
        private Duration initialBackoff = Duration.ofSeconds(5);
        private Duration maxBackoff = Duration.ofMinutes(2);
        private Duration drainTimeout = Duration.ofMinutes(10);
        private Duration queueTimeout = Duration.ofMinutes(10);
        private boolean sharedStorage;
        private PoolSettings.StartRetry startRetry = new PoolSettings.StartRetry(5, Duration.ofMillis(250),
                Duration.ofSeconds(4));
        private Supplier<CodexClient> warmSpare;
        private CodexTelemetryListener listener = CodexTelemetryListener.NONE;
        private PoolTimer timer;
        private Executor executor;

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
            specs.add(new PoolRuntime.GivenMember(Objects.requireNonNull(name, "name"), Optional.empty(),
                    Objects.requireNonNull(factory, "factory")));
            return this;
        }

        /**
         * A member reached over WebSocket at {@code uri}, whose health is also asked of its {@code /readyz}
         * ({@link ReadinessProbe}); {@code factory} builds its client (e.g. with a transport factory for the URI).
         *
         * @param name    the member's name, in its {@link MemberStats} and in log messages
         * @param uri     the server's {@code ws://} or {@code wss://} URI (checked by {@link #build()}); its health
         *                checks ask {@code /readyz} on its host and port
         * @param factory builds the member's client: once in {@link #build()}, and again for each replacement
         * @return this builder
         */
        public Builder member(String name, URI uri, Supplier<CodexClient> factory) {
            specs.add(new PoolRuntime.GivenMember(Objects.requireNonNull(name, "name"),
                    Optional.of(Objects.requireNonNull(uri, "uri")), Objects.requireNonNull(factory, "factory")));
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
         * Members from a resolver, beside any given one by one: the pool asks {@code resolver} in {@link #build()}
         * and then every {@link #resolveEvery(Duration) interval}, builds a client with {@code factory} for each
         * endpoint it did not have, and drains the members no longer named. Each member's health is asked of its
         * endpoint's {@code /readyz}. Give each client a {@link CodexClientBuilder#restartPolicy(RestartPolicy)
         * restart policy}: a server that restarts at the same address is connected to again and its threads resumed.
         *
         * <pre>{@code
         * CodexPool.builder()
         *         .resolver(MemberResolver.srv("ws", "_ws._tcp.codex.default.svc.cluster.local"),
         *                 endpoint -> CodexClient.builder()
         *                         .transportFactory(() -> WebSocketTransport.builder(endpoint.uri())
         *                                 .bearerToken(tokens).build())
         *                         .restartPolicy(RestartPolicy.defaults())
         *                         .build())
         *         .build();
         * }</pre>
         *
         * @param resolver names the members
         * @param factory  builds the client of one endpoint: when it is first named, and again for each
         *                 replacement; a factory that throws leaves the endpoint out until the next resolution
         * @return this builder
         */
        public Builder resolver(MemberResolver resolver, Function<PoolEndpoint, CodexClient> factory) {
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            this.resolvedFactory = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /**
         * How often the resolver is asked again (default 30 s), timed from the end of the previous answer.
         *
         * @param interval positive
         * @return this builder
         */
        public Builder resolveEvery(Duration interval) {
            this.resolveEvery = positive(interval, "resolveEvery");
            return this;
        }

        /**
         * How often every member's health is checked (default 10 s; {@link Duration#ZERO} turns the timer off,
         * leaving {@link CodexPool#checkHealth()}), and how long one check may take (default 5 s).
         *
         * @param interval zero or positive
         * @param timeout  positive
         * @return this builder
         */
        public Builder healthCheckEvery(Duration interval, Duration timeout) {
            Objects.requireNonNull(interval, "interval");
            if (interval.isNegative()) {
                throw new IllegalArgumentException("healthCheckEvery must not be negative");
            }
            this.healthCheckEvery = interval;
            this.checkTimeout = positive(timeout, "timeout");
            return this;
        }

        /**
         * How many failed checks in a row eject a member (default 3).
         *
         * @param failures at least 1
         * @return this builder
         */
        public Builder ejectAfter(int failures) {
            if (failures < 1) {
                throw new IllegalArgumentException("ejectAfter must be at least 1");
            }
            this.ejectAfter = failures;
            return this;
        }

        /**
         * How long an ejected member waits before it is checked again (default 5 s), doubling after each further
         * failure up to {@code max} (default 2 min).
         *
         * @param initial positive
         * @param max     at least {@code initial}
         * @return this builder
         */
        public Builder readmitBackoff(Duration initial, Duration max) {
            positive(initial, "initial");
            positive(max, "max");
            if (max.compareTo(initial) < 0) {
                throw new IllegalArgumentException("the backoff's max is below its initial wait");
            }
            this.initialBackoff = initial;
            this.maxBackoff = max;
            return this;
        }

        /**
         * How long a member its resolver no longer names may drain before it is closed anyway, failing what still
         * runs (default 10 min).
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder drainTimeout(Duration timeout) {
            this.drainTimeout = positive(timeout, "drainTimeout");
            return this;
        }

        /**
         * How a member's start that fails because codex found its state database busy or locked is tried again
         * (default: 5 starts in all, pauses from 250 ms doubling up to 4 s, each drawn from the upper half of its
         * bound so that servers that collided do not collide again). codex keeps its state in SQLite files under
         * {@code CODEX_HOME}, and a server that finds them held by another past its busy timeout exits with
         * "failed to initialize sqlite state runtime": a server that could not start yet, not a dead member. Any
         * other failure of a start is not tried again. Applies to every start of a member's client: in
         * {@link #build()}, when a member is replaced or added by the resolver, and the warm spare's.
         *
         * @param attempts       starts in all, at least 1 (1 turns the retry off)
         * @param initialBackoff the bound of the first pause, positive
         * @param maxBackoff     the bound no pause exceeds, at least {@code initialBackoff}
         * @return this builder
         */
        public Builder startRetry(int attempts, Duration initialBackoff, Duration maxBackoff) {
            if (attempts < 1) {
                throw new IllegalArgumentException("startRetry's attempts must be at least 1");
            }
            positive(initialBackoff, "initialBackoff");
            positive(maxBackoff, "maxBackoff");
            if (maxBackoff.compareTo(initialBackoff) < 0) {
                throw new IllegalArgumentException("startRetry's max backoff is below its initial backoff");
            }
            this.startRetry = new PoolSettings.StartRetry(attempts, initialBackoff, maxBackoff);
            return this;
        }

        /**
         * Keeps one warm spare: a client built by {@code factory}, started and handshaken beside the members and
         * serving no thread. A member without an address ({@link #member(String, Supplier)}, {@link #spawned}) whose
         * server process exits takes the spare at once, closing its lost client, and a member whose client gave up
         * takes it instead of starting a new one; either way the replacement costs no start, and the pool starts the
         * next spare on its own thread. The member's threads are resumed on the spare when next used, so the spare
         * must share the members' storage ({@code CODEX_HOME}): build it as the members are built. When no spare is
         * ready (it is still starting), a member's client restarts its server by its own restart policy, or is
         * replaced with a new client, as without a spare. A spare costs one idle server's memory.
         *
         * <pre>{@code
         * Supplier<CodexClientBuilder> configure = () -> CodexClient.builder().codexHome(home);
         * CodexPool.builder().spawned(3, configure).warmSpare(() -> configure.get().build()).build();
         * }</pre>
         *
         * @param factory builds the spare's client: once after {@link #build()}, and again each time a member took it
         * @return this builder
         */
        public Builder warmSpare(Supplier<CodexClient> factory) {
            this.warmSpare = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /**
         * Whether the members share one thread storage (default false): one {@code CODEX_HOME}, spawned on one
         * machine or on a volume every server mounts. With it, a thread outlives the permanent loss of its member:
         * a thread whose member is ejected, or dropped by its resolver, or closed, and that has no turn running
         * there, moves to the least loaded healthy member when next used ({@link PooledThread#startTurn(String)},
         * {@link PooledThread#memberThread()}), which resumes it from the storage with its whole conversation; it keeps its
         * id, and {@link PooledThread#memberName()} names the new member. A thread that never had a turn is started
         * again there (codex stores a thread with its first turn). Without it, such a thread stays on its member and
         * its turns fail, as a thread on storage of its own has nowhere else to go. See docs/SCALING.md for what
         * shared storage asks of a deployment.
         *
         * @param shared whether the members share their storage
         * @return this builder
         */
        public Builder sharedStorage(boolean shared) {
            this.sharedStorage = shared;
            return this;
        }

        /**
         * The listener of the pool's own events: members added, removed, ejected and readmitted, threads
         * re-created ({@link CodexTelemetryListener#poolMemberAdded} and the rest). The members' clients have listeners
         * of their own, given to their builders; the same listener may serve both.
         *
         * @param listener called one event at a time: from the pool's thread for what its timers find, from the
         *                 caller's for what a call does (a thread moved, re-created; an integration's record)
         * @return this builder
         */
        public Builder telemetryListener(CodexTelemetryListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** The pool's clock and timer; tests put a manual one here. */
        Builder timer(PoolTimer timer) {
            this.timer = Objects.requireNonNull(timer, "timer");
            return this;
        }

        /** Where the pool resolves and checks; tests run it on the thread that advances their clock. */
        Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        private static Duration positive(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive");
            }
            return d;
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
         * How long a turn may wait in a member's queue for a place (default 10 min): past it, the turn leaves the
         * queue and fails with {@link dev.codexclient.errors.CodexTimeoutException} without having started. It
         * bounds {@link PooledThread#startTurn(String)}'s wait, with the member's request timeout for
         * {@code turn/start}.
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder queueTimeout(Duration timeout) {
            this.queueTimeout = positive(timeout, "queueTimeout");
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
         * Builds every given member's client, one after another (each spawned server starts and completes its
         * handshake here), asks the resolver once and builds its members' clients, then starts the timers. When a
         * given member's client fails, closes those built and rethrows; a resolver that fails or names nobody yet
         * leaves the pool without resolved members until a later answer (placing a thread then fails with
         * {@link CodexPoolRejectedException}).
         *
         * @return the pool, owning every client it built
         * @throws IllegalStateException    when no member was added and there is no resolver
         * @throws IllegalArgumentException when a member's readiness URI is not a {@code ws://} or {@code wss://}
         *                                  URI with a host
         * @throws CodexException           when a member's client could not be built (its server did not start, or
         *                                  the handshake failed); anything else a factory throws is rethrown as it is
         */
        public CodexPool build() {
            if (specs.isEmpty() && resolver == null) {
                throw new IllegalStateException("a pool needs at least one member or a resolver");
            }
            PoolSettings settings = new PoolSettings(resolver, resolvedFactory, resolveEvery, healthCheckEvery,
                    checkTimeout, ejectAfter, initialBackoff, maxBackoff, drainTimeout, maxTurns, maxQueued,
                    queueTimeout, sharedStorage, startRetry, warmSpare, listener,
                    timer, executor, timer == null);
            return new CodexPool(PoolRuntime.start(List.copyOf(specs), settings));
        }
    }
}

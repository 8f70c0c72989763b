package dev.codexclient.internal.session;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.DynamicTool;
import dev.codexclient.RetryPolicy;
import dev.codexclient.ServerInfo;
import dev.codexclient.Subscription;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.requests.ServerRequestCarryOver;
import dev.codexclient.internal.requests.ServerRequestRouter;
import dev.codexclient.internal.requests.ServerRequestTelemetry;
import dev.codexclient.internal.requests.ToolTable;
import dev.codexclient.internal.rpc.Callbacks;
import dev.codexclient.internal.rpc.JsonWireCodec;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.rpc.RpcSettings;
import dev.codexclient.internal.telemetry.TelemetryEmitter;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.internal.time.SystemScheduler;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadForkParams;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.protocol.ThreadListResponse;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadResumeResponse;
import dev.codexclient.protocol.ThreadSearchParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.telemetry.ExtensionTelemetry;
import dev.codexclient.transport.StdioTransport;
import dev.codexclient.transport.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The engine of one client, and the one place its parts are made: each part gets the few collaborators it needs
 * when it is made, and none reaches another through the runtime. The public {@code CodexClient} is a view of it:
 * each of the client's methods is one call here. Threads and turns have engines of their own, which this returns
 * and the handles wrap: a {@link ThreadLink} per thread, a {@link TurnState} per turn. Nothing here knows the
 * handles' types.
 *
 * <p>The parts: the {@link ConnectionSupervisor} (the connection of the moment, restarts), the {@link Inbound} side
 * (what arrives: notifications to listeners and threads, server requests to the {@link ServerRequestRouter}),
 * the {@link HeldThreads}, the {@link TurnStarts} and {@link Calls}, {@link Waits}, the {@link Callbacks} (executor
 * and delivery lanes), the {@link Scheduler} and the {@link TelemetryEmitter}.
 */
public final class ClientRuntime {
    private final ClientSettings settings;
    private final ObjectMapper mapper = ProtocolJson.mapper();
    private final Scheduler scheduler;
    private final Redactor redactor;
    /** Where the client's telemetry goes; disabled (and free) without a listener. */
    private final TelemetryEmitter telemetry;
    private final Callbacks callbacks;
    /** The dynamic tools: the client's, declared on every thread, and each thread's own. */
    private final ToolTable tools;
    private final HeldThreads held;
    private final Inbound inbound;
    private final ConnectionSupervisor supervisor;
    private final Calls calls;
    private final Waits waits;
    private final FlowPublishers flows;
    private final ThreadLink.Context threads;
    /** The handshake every connection begins with. */
    private final Handshake handshake;
    private final ConnectionTelemetry connectionTelemetry;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile ServerInfo serverInfo;

    /**
     * @param settings      what the client was built with
     * @param first         the first connection's transport, unstarted
     * @param executor      the callback executor
     * @param ownsCallbacks whether the client shuts the executor down
     * @param results       makes the public result of a turn from its end
     * @param failures      the failure a result reports
     */
    public ClientRuntime(ClientSettings settings, Transport first, ExecutorService executor, boolean ownsCallbacks,
                         Function<TurnState.End, TurnResult> results, Function<TurnResult, CodexException> failures) {
        this.settings = settings;
        ObjectMapper userMapper = settings.userMapper().orElseGet(() -> new ObjectMapper()
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false));
        this.scheduler = settings.scheduler().orElseGet(SystemScheduler::new);
        this.redactor = settings.redactor();
        this.callbacks = new Callbacks(executor);
        // Delivered like a listener's callback, so a close() from inside the telemetry listener does not wait for
        // itself.
        this.telemetry = settings.telemetryListener() == dev.codexclient.telemetry.CodexTelemetryListener.NONE
                ? TelemetryEmitter.none() : new TelemetryEmitter(settings.telemetryListener(), callbacks::callback);
        RetryPolicy retry = settings.retryPolicy();
        RpcSettings rpcSettings = new RpcSettings(settings.requestTimeout(), retry.maxAttempts(),
                retry.initialBackoff(), retry.maxBackoff(), retry.maxTotal());
        this.handshake = new Handshake(mapper, settings.introduction(), settings.initializeTimeout(), scheduler);
        this.tools = new ToolTable(settings.handlers().tools());
        // Synchronous approval policies block while they decide: they run where server-request handlers run.
        // The telemetry of a server request is made where it is decided.
        ServerRequestRouter serverRequests = new ServerRequestRouter(mapper, userMapper, settings.handlers(), tools,
                callbacks::handler, telemetry.enabled() ? new ServerRequestTelemetry(telemetry, scheduler) : null);
        this.held = new HeldThreads(callbacks, settings.replayBytes());
        ServerRequestCarryOver carried = settings.restartPolicy().isPresent() ? new ServerRequestCarryOver() : null;
        this.inbound = new Inbound(settings.listeners(), held, serverRequests, carried, tools, callbacks,
                () -> serverInfo);
        // With a restart policy the executor outlives each connection: the client shuts it down itself.
        boolean connectionOwnsCallbacks = ownsCallbacks && settings.restartPolicy().isEmpty();
        JsonWireCodec codec = new JsonWireCodec(mapper);
        this.supervisor = new ConnectionSupervisor(first, settings.restartPolicy().orElse(null),
                settings.transports(), (t, handler) -> new RpcConnection(t, codec, rpcSettings, callbacks,
                connectionOwnsCallbacks, scheduler, redactor::redact, handler, telemetry),
                inbound::handler, scheduler, settings.requestTimeout(), held, carried, telemetry, new Edges(),
                callbacks, ownsCallbacks);
        this.calls = new Calls(supervisor, settings.introduction().experimentalApi(), settings.requestTimeout(),
                () -> serverInfo);
        this.waits = new Waits(supervisor::isReaderThread, callbacks, scheduler, settings.requestTimeout());
        this.flows = new FlowPublishers(callbacks, settings.publisherBufferSize(), settings.publisherOverflow(),
                settings.publisherDeltaInterval(), scheduler, closed::get);
        TurnState.Context turns = new TurnState.Context(calls, waits, scheduler, callbacks, flows, held,
                supervisor::paging, telemetry,
                settings.interruptGrace(), settings.replayLimit(), settings.replayBytes(), results, failures);
        TurnStarts starts = new TurnStarts(held, turns, waits, supervisor, calls, settings.turnWatchdog());
        this.threads = new ThreadLink.Context(calls, waits, held, starts, flows, callbacks, userMapper,
                this::linkFor);
        this.connectionTelemetry = new ConnectionTelemetry(telemetry, scheduler);
    }

    // ------------------------------------------------------------------------------------------------ life

    /**
     * Performs the first handshake, blocking: the client is ready when it returns.
     *
     * @throws CodexTransportException when the server cannot be started or ends during the handshake
     */
    public void start() {
        RpcConnection connection = supervisor.connection();
        Handshake.Done done;
        try {
            Duration guard = settings.initializeTimeout().plus(settings.requestTimeout()).plusSeconds(5);
            done = waits.call(handshake.perform(connection), "initialize", guard);
        } catch (CodexTransportException e) {
            throw Handshake.connectionEnd(connection, e);
        }
        serverInfo = done.info();
        connectionTelemetry.opened(supervisor.transport(), done.info(), done.took());
        supervisor.established(done.info());
    }

    /** What the runtime does when its connection is replaced or ends for good. */
    private final class Edges implements ConnectionSupervisor.Edges {
        @Override
        public CompletableFuture<ServerInfo> handshake(RpcConnection connection) {
            return handshake.perform(connection).thenApply(Handshake.Done::info);
        }

        @Override
        public void replaced(ServerInfo info) {
            serverInfo = info;
        }

        @Override
        public TurnPaging paging(ServerInfo info) {
            return TurnPaging.of(info, settings.introduction().experimentalApi());
        }

        @Override
        public void ended(CodexTransportException cause) {
            // Not `closed`: that flag guards close(), which must still release the executor and transport after
            // the server died on its own; isClosed() already reports the ended connection.
            scheduler.shutdown();
            // The end of the connection is told last, after the threads' turns have ended on their lanes.
            inbound.ended(cause, () -> connectionTelemetry.closed(closed.get() ? null : cause));
        }
    }

    /** {@return what the server reported about itself in its latest {@code initialize} result} */
    public ServerInfo serverInfo() {
        return serverInfo;
    }

    /** {@return typed calls of every protocol method, with the client's request timeout} */
    public Calls rpc() {
        return calls;
    }

    /**
     * Publishes an integration's telemetry behind what the client queued before it.
     *
     * @param report the integration's record
     */
    public void publish(ExtensionTelemetry report) {
        telemetry.emit(l -> l.extensionTelemetry(report));
    }

    // ------------------------------------------------------------------------------------------------ threads

    /**
     * Starts a thread with the client's tools and its own, waiting at most the request timeout.
     *
     * @param params     the {@code thread/start} params
     * @param threadOnly the thread's own tools
     * @return the new thread
     */
    public ThreadLink startThread(ThreadStartParams params, List<DynamicTool> threadOnly) {
        Map<String, DynamicTool> own = threadTools(threadOnly);
        ThreadInfo started = waits.call(calls.threadStart(withTools(params, own)), "thread/start").thread();
        declareTools(started.id(), own);
        return linkFor(started);
    }

    /** {@return {@link #startThread} without blocking} */
    public CompletableFuture<ThreadLink> startThreadAsync(ThreadStartParams params, List<DynamicTool> threadOnly) {
        Map<String, DynamicTool> own;
        ThreadStartParams withTools;
        try {
            own = threadTools(threadOnly);
            withTools = withTools(params, own);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        // Declared before the future completes: no turn, so no tool call, can start earlier.
        return calls.threadStart(withTools).thenApply(r -> {
            declareTools(r.thread().id(), own);
            return linkFor(r.thread());
        });
    }

    /**
     * Resumes a stored thread, waiting out a restart, and answers its own tools from then on.
     *
     * @param params     the {@code thread/resume} params
     * @param threadOnly the thread's own tools
     * @return the resumed thread
     */
    public ThreadLink resumeThread(ThreadResumeParams params, List<DynamicTool> threadOnly) {
        Map<String, DynamicTool> own = threadTools(threadOnly);
        ThreadInfo resumed = waits.call(resume(params), "thread/resume").thread();
        declareTools(resumed.id(), own);
        return linkFor(resumed);
    }

    /** {@return {@link #resumeThread} without blocking} */
    public CompletableFuture<ThreadLink> resumeThreadAsync(ThreadResumeParams params, List<DynamicTool> threadOnly) {
        Map<String, DynamicTool> own;
        try {
            own = threadTools(threadOnly);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return resume(params).thenApply(r -> {
            declareTools(r.thread().id(), own);
            return linkFor(r.thread());
        });
    }

    /** Sends {@code thread/resume} for the user, waiting out a restart. */
    private CompletableFuture<ThreadResumeResponse> resume(ThreadResumeParams params) {
        Objects.requireNonNull(params, "params");
        if (Boolean.TRUE.equals(params.excludeTurns())) {
            // A wish, not a requirement: a server that cannot leave the turns out returns them.
            return supervisor.paging().resume(params, p -> supervisor.resume(null, p, null));
        }
        return supervisor.resume(null, params, null);
    }

    /** {@return a new thread with the history of the thread {@code params} names} */
    public ThreadLink forkThread(ThreadForkParams params) {
        return linkFor(waits.call(calls.threadFork(params), "thread/fork").thread());
    }

    /** {@return {@link #forkThread} without blocking} */
    public CompletableFuture<ThreadLink> forkThreadAsync(ThreadForkParams params) {
        return calls.threadFork(params).thenApply(r -> linkFor(r.thread()));
    }

    /** {@return the thread the client holds for {@code threadId}; empty when it holds none, or is closed} */
    public Optional<ThreadLink> heldThread(String threadId) {
        // An ended client holds nothing, even while its threads' lanes still deliver what was read before the end.
        return isClosed() ? Optional.empty() : held.link(threadId);
    }

    /** The link of a thread the server described: the held one if the thread is held, else a new one. */
    private ThreadLink linkFor(ThreadInfo described) {
        return held.link(described.id()).orElseGet(() -> new ThreadLink(threads, described, supervisor.generation()));
    }

    /**
     * {@return one page of the stored threads}, waiting at most the request timeout
     *
     * @param params the listing's params
     * @param cursor where the page starts; null for the params' own
     */
    public ThreadListResponse listPage(ThreadListParams params, String cursor) {
        return waits.call(calls.threadList(page(params, cursor)), "thread/list");
    }

    /** {@return every stored thread matching {@code params}, all pages, without blocking} */
    public CompletableFuture<List<ThreadInfo>> listAllAsync(ThreadListParams params) {
        Objects.requireNonNull(params, "params");
        return listFrom(params, params.cursor(), new ArrayList<>());
    }

    private CompletableFuture<List<ThreadInfo>> listFrom(ThreadListParams params, String cursor,
                                                         List<ThreadInfo> into) {
        return calls.threadList(page(params, cursor)).thenCompose(r -> {
            if (r.data() != null) {
                into.addAll(r.data());
            }
            String next = r.nextCursor();
            return next == null || next.isEmpty() ? CompletableFuture.completedFuture(List.copyOf(into))
                    : listFrom(params, next, into);
        });
    }

    private ThreadListParams page(ThreadListParams params, String cursor) {
        ObjectNode tree = mapper.valueToTree(params);
        if (cursor != null) {
            tree.put("cursor", cursor);
        }
        return convert(tree, ThreadListParams.class);
    }

    // ------------------------------------------------------------------------------------------------ tools

    /**
     * {@return {@code params} with this client's dynamic tools and the thread's own added to {@code dynamicTools},
     * after any the params already declare}
     */
    private ThreadStartParams withTools(ThreadStartParams params, Map<String, DynamicTool> threadOnly) {
        Objects.requireNonNull(params, "params");
        List<DynamicTool> declared = new ArrayList<>(tools.clientTools());
        declared.addAll(threadOnly.values());
        if (declared.isEmpty()) {
            return params;
        }
        List<JsonNode> specs = new ArrayList<>();
        if (params.dynamicTools() != null) {
            params.dynamicTools().forEach(t -> specs.add(mapper.valueToTree(t)));
        }
        for (DynamicTool t : declared) {
            ObjectNode spec = mapper.createObjectNode();
            spec.put("type", "function");
            spec.put("name", t.name());
            spec.put("description", t.description());
            spec.set("inputSchema", t.inputSchemaNode());
            specs.add(spec);
        }
        ObjectNode tree = mapper.valueToTree(params);
        tree.set("dynamicTools", mapper.valueToTree(specs));
        return convert(tree, ThreadStartParams.class);
    }

    /**
     * Checks the tools given to one thread.
     *
     * @throws IllegalStateException    when the client was not built with the experimental API, which dynamic tools
     *                                  need
     * @throws IllegalArgumentException when two share a name, or one has the name of a tool of the client
     */
    private Map<String, DynamicTool> threadTools(List<DynamicTool> threadOnly) {
        Objects.requireNonNull(threadOnly, "tools");
        if (!threadOnly.isEmpty() && !settings.introduction().experimentalApi()) {
            throw new IllegalStateException("dynamic tools are an experimental codex API: call "
                    + "experimentalApi(true) on the builder to declare tools on a thread");
        }
        return tools.checked(threadOnly);
    }

    /** Answers the tool calls of a started or resumed thread with its own tools, from now on. */
    private void declareTools(String threadId, Map<String, DynamicTool> threadOnly) {
        if (!threadOnly.isEmpty()) {
            tools.declare(threadId, threadOnly);
        }
    }

    private <T> T convert(JsonNode tree, Class<T> type) {
        try {
            return mapper.treeToValue(tree, type);
        } catch (Exception e) {
            throw new CodexException("could not build " + type.getSimpleName(), e);
        }
    }

    // ------------------------------------------------------------------------------------------------ notifications

    /**
     * Adds a listener of every notification.
     *
     * @param listener the listener
     * @return its subscription
     */
    public Subscription onNotification(Consumer<? super ServerNotification> listener) {
        return inbound.onNotification(listener);
    }

    /** {@return every notification of the client, from each subscription on, as a hot publisher} */
    public Flow.Publisher<ServerNotification> publisher() {
        return flows.hot("the client's notifications", inbound::subscribe);
    }

    /**
     * Starts a streamed thread search ({@code thread/search/stream}).
     *
     * @param params the search
     * @return its engine, running
     */
    public ThreadSearchEngine searchThreads(ThreadSearchParams params) {
        Objects.requireNonNull(params, "params");
        return ThreadSearchEngine.start(new ThreadSearchEngine.Context(calls, waits, callbacks, flows,
                inbound::subscribe, settings.publisherBufferSize()), params);
    }

    // ------------------------------------------------------------------------------------------------ closing

    /** {@return whether the client was closed or its connection ended for good} */
    public boolean isClosed() {
        return closed.get() || supervisor.isClosed();
    }

    /** {@return the redacted tail of a spawned server's standard error; empty for other transports} */
    public String serverStderrTail() {
        return supervisor.transport() instanceof StdioTransport stdio ? stdio.stderrTail() : "";
    }

    /** {@return {@code text} with every secret this client masks replaced, as its logs and reports mask them} */
    public String mask(CharSequence text) {
        return redactor.redact(text);
    }

    /** {@return the server process of the moment, when the client runs it as a child} */
    public Optional<ProcessHandle> serverProcess() {
        return supervisor.process();
    }

    /**
     * Closes the client, once, within the close timeout it was built with (the transport's own without one).
     */
    public void close() {
        close(settings.closeTimeout().orElse(null));
    }

    /**
     * Closes the client, once.
     *
     * @param transportTimeout bounds the end of the server; null for the transport's own
     */
    public void close(Duration transportTimeout) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            // Ends the server within the client's bound; the connection's own close then finds it closed.
            supervisor.close(transportTimeout);
        } finally {
            scheduler.shutdown();
        }
    }

    /**
     * What the tests and diagnostics count inside a client, at the time of the call.
     *
     * @param heldThreads            the threads held
     * @param lanes                  the delivery lanes with work queued or running
     * @param pendingRequests        the calls waiting for an answer
     * @param inflightServerRequests the server requests being handled
     * @param registeredSecrets      the secrets the client masks
     * @param notificationListeners  the notification listeners
     * @param telemetryEnabled       whether a telemetry listener is registered
     */
    public record Diagnostics(int heldThreads, int lanes, int pendingRequests, int inflightServerRequests,
                              int registeredSecrets, int notificationListeners, boolean telemetryEnabled) {
    }

    /** {@return what the client holds now} */
    public Diagnostics diagnostics() {
        RpcConnection c = supervisor.connection();
        return new Diagnostics(held.size(), c.laneCount(), c.pendingCount(), c.inflightServerRequestCount(),
                redactor.registeredCount(), inbound.listenerCount(), telemetry.enabled());
    }
}

package dev.codexclient.internal.session;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.DynamicTool;
import dev.codexclient.RetryPolicy;
import dev.codexclient.ServerInfo;
import dev.codexclient.Subscription;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.events.CodexEventListener;
import dev.codexclient.events.ConnectionClosed;
import dev.codexclient.events.ConnectionOpened;
import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.events.EventEmitter;
import dev.codexclient.internal.requests.ServerRequestRouter;
import dev.codexclient.internal.requests.ServerRequestTelemetry;
import dev.codexclient.internal.requests.ToolTable;
import dev.codexclient.internal.rpc.IncomingNotification;
import dev.codexclient.internal.rpc.IncomingRequest;
import dev.codexclient.internal.rpc.JsonWireCodec;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.rpc.RpcSettings;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.internal.time.SystemScheduler;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadResumeResponse;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.protocol.TurnStartResponse;
import dev.codexclient.transport.StdioTransport;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine of one client: it owns the supervised connection, the threads held, the waits, the scheduler, the
 * telemetry emitter, the redactor and the limits, and does the handshake. The public handles ({@code CodexClient},
 * {@code CodexThread}, {@code CodexTurn}, the publishers and streams) are views built over it; nothing here knows
 * their types.
 *
 * <p>A notification travels: the connection's reader decodes it and queues it on its thread's delivery lane; the
 * lane calls {@link Session#onNotification}, which hands it to the client's notification listeners and to the
 * thread's {@link ThreadState} (through {@link HeldThreads}), which hands it to the thread's listeners and its turn.
 * A server request goes from the connection's dispatcher through {@link Session#onRequest} to the
 * {@link ServerRequestRouter}, whose decision is the reply.
 */
public final class ClientRuntime {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(ClientRuntime.class);
    }


    private final ClientSettings settings;
    private final ObjectMapper mapper = ProtocolJson.mapper();
    private final ObjectMapper userMapper;
    private final Scheduler scheduler;
    private final Redactor redactor;
    /** Where the client's telemetry goes; disabled (and free) without a listener. */
    private final EventEmitter events;
    private final Listeners<ServerNotification> listeners = new Listeners<>("notification");
    private final ServerRequestRouter router;
    /** The dynamic tools: the client's, declared on every thread, and each thread's own. */
    private final ToolTable tools;
    private final HeldThreads held;
    private final ConnectionSupervisor supervisor;
    private final Calls calls;
    private final Waits waits;
    /** The handshake every connection begins with. */
    private final Handshake handshake;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile ServerInfo serverInfo;
    /** Set once the connection's end was handed to every listener (see Session#onClosed). */
    private volatile CodexTransportException ended;
    /** Whether the listener was told of the opening (so it is told of the end); when, on the scheduler's clock. */
    private volatile boolean opened;
    private volatile long openedAtNanos;

    /**
     * @param settings      what the client was built with
     * @param first         the first connection's transport, unstarted
     * @param callbacks     the callback executor
     * @param ownsCallbacks whether the client shuts the executor down
     */
    public ClientRuntime(ClientSettings settings, Transport first, ExecutorService callbacks, boolean ownsCallbacks) {
        this.settings = settings;
        this.userMapper = settings.userMapper() != null ? settings.userMapper()
                : new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        settings.listeners().forEach(listeners::add);
        this.scheduler = settings.scheduler().orElseGet(SystemScheduler::new);
        this.redactor = settings.redactor();
        // Delivered like a listener's callback, so a close() from inside the event listener does not wait for itself.
        this.events = settings.eventListener() == CodexEventListener.NONE ? EventEmitter.none()
                : new EventEmitter(settings.eventListener(), this::runCallback);
        RetryPolicy retry = settings.retryPolicy();
        RpcSettings rpcSettings = new RpcSettings(settings.requestTimeout(), retry.maxAttempts(),
                retry.initialBackoff(), retry.maxBackoff(), retry.maxTotal());
        this.handshake = new Handshake(mapper, settings.handshake(), settings.initializeTimeout(), scheduler);
        // Before the connections: each one reports how the router answered the server's requests.
        // Synchronous approval policies block while they decide: they run where server-request handlers run.
        this.tools = new ToolTable(settings.handlers().tools());
        this.router = new ServerRequestRouter(mapper, userMapper, settings.handlers(), tools, this::runHandler);
        this.held = new HeldThreads(this, settings.replayBytes());
        // With a restart policy the executor outlives each connection: the client shuts it down itself.
        boolean connectionOwnsCallbacks = ownsCallbacks && settings.restartPolicy().isEmpty();
        JsonWireCodec codec = new JsonWireCodec(mapper);
        ServerRequestTelemetry requestTelemetry = events.enabled() ? new ServerRequestTelemetry(events, scheduler)
                : null;
        this.supervisor = new ConnectionSupervisor(first, settings.restartPolicy().orElse(null),
                settings.transports(), (t, handler) -> new RpcConnection(t, codec, rpcSettings, callbacks,
                connectionOwnsCallbacks, scheduler, redactor::redact, handler, events, requestTelemetry),
                Session::new, scheduler, settings.requestTimeout(), held, events, new Edges(), callbacks,
                ownsCallbacks);
        this.calls = new Calls(supervisor, settings.handshake().experimentalApi(), settings.requestTimeout(),
                this::serverInfo);
        this.waits = new Waits(supervisor, scheduler, settings.requestTimeout());
    }

    // ------------------------------------------------------------------------------------------------ handshake

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
        opened(done.took());
        supervisor.established();
    }

    /** What the runtime does when its connection is replaced or ends for good. */
    private final class Edges implements ConnectionSupervisor.Edges {
        @Override
        public CompletableFuture<ServerInfo> handshake(RpcConnection connection) {
            return handshake.perform(connection).thenApply(Handshake.Done::info);
        }

        @Override
        public void restored(ServerInfo info) {
            serverInfo = info;
        }

        @Override
        public void ended(CodexTransportException cause) {
            onEnded(cause);
        }
    }

    /** The client is ready: tells the event listener, which learns of the connection's end from now on. */
    private void opened(Duration handshake) {
        if (!events.enabled()) {
            return;
        }
        ConnectionOpened event = new ConnectionOpened(TransportKind.of(supervisor.transport()), serverInfo, handshake);
        openedAtNanos = scheduler.nanoTime();
        opened = true;
        events.emit(l -> l.connectionOpened(event));
    }

    /** The connection ended: tells the event listener, when it was told of the opening. */
    private void closedEvent(CodexTransportException cause) {
        if (!events.enabled() || !opened) {
            return;
        }
        ConnectionClosed event = new ConnectionClosed(closed.get() ? Optional.empty() : Optional.of(cause),
                Duration.ofNanos(Math.max(0, scheduler.nanoTime() - openedAtNanos)));
        events.emit(l -> l.connectionClosed(event));
    }

    // ------------------------------------------------------------------------------------------------ what arrives

    /** The client's handling of what one connection receives. */
    private final class Session implements RpcConnection.Handler {
        private final ConnectionSupervisor.Link link;

        Session(ConnectionSupervisor.Link link) {
            this.link = link;
        }

        @Override
        public void onNotification(IncomingNotification raw) {
            ServerNotification n = raw.notification();
            String threadId = raw.threadId().orElse(null);
            if (threadId != null && n instanceof ServerNotification.ThreadClosed) {
                // Unloaded: it calls no tool before a thread/resume, which declares its tools again. Before the
                // listeners, so one that sees the closing sees the tools gone.
                tools.forget(threadId);
            }
            listeners.deliver(n);
            if (threadId != null) {
                held.dispatch(threadId, raw.turnId().orElse(null), n, raw.size());
            }
        }

        @Override
        public CompletionStage<?> onRequest(IncomingRequest request) {
            return link.carry(request, router::route);
        }

        @Override
        public CodexRpcException refineError(CodexRpcException error) {
            return UnknownMethodErrors.refine(error, serverInfo);
        }

        @Override
        public void onClosed(CodexTransportException cause) {
            // The supervisor decides: a restart, or the end (then Edges#ended).
            link.closed(cause);
        }
    }

    /** The connection ended for good. */
    private void onEnded(CodexTransportException cause) {
        // Not `closed`: that flag guards close(), which must still release the executor and transport after
        // the server died on its own; isClosed() already reports the ended connection.
        // Set first: a subscription added from now on is ended at once (see endIfEnded).
        ended = cause;
        // Each thread on its lane, behind the events queued for it; nothing here waits for the lanes: a
        // listener blocked on a turn of another thread is released by that turn's failure on its own lane.
        held.releaseAll(cause);
        scheduler.shutdown();
        // Notification listeners keep getting what the lanes still hold; the notifications' subscriptions end
        // behind it, on every lane (ending only queues their last signal, so this waits for nothing). The end of
        // the connection is told last, after the threads' turns have ended on their lanes.
        supervisor.connection().executeAfterQueuedEvents(() -> {
            listeners.endAll(cause);
            closedEvent(cause);
        });
    }

    // ------------------------------------------------------------------------------------------------ listeners

    /**
     * Adds a listener of every notification.
     *
     * @param listener the listener
     * @return its subscription
     */
    public Subscription onNotification(Consumer<? super ServerNotification> listener) {
        return listeners.add(listener);
    }

    /**
     * Like {@link #onNotification}, with {@code onEnd} told why when the connection ends.
     *
     * @param listener the listener
     * @param onEnd    told why the connection ended
     * @return its subscription
     */
    public Subscription subscribeNotifications(Consumer<? super ServerNotification> listener,
                                               Consumer<Throwable> onEnd) {
        Listeners.Entry<ServerNotification> entry = listeners.entry(listener, () -> { }, onEnd);
        listeners.add(entry);
        endIfEnded(entry);
        return entry;
    }

    /**
     * Adds a listener of one thread's events; the runtime holds the thread while it is subscribed.
     *
     * @param link     the thread
     * @param listener the listener
     * @param onEnd    told why when the runtime lets go of the thread
     * @return its subscription
     */
    public Subscription subscribeThread(ThreadLink link, Consumer<? super ServerNotification> listener,
                                        Consumer<Throwable> onEnd) {
        ThreadState state = held.hold(link);
        Listeners.Entry<ServerNotification> entry = state.listeners().entry(listener, () -> held.unhold(state),
                onEnd);
        state.listeners().add(entry);
        endIfEnded(entry);
        return entry;
    }

    /**
     * Ends a subscription added after the connection's end was handed out, which would otherwise never be told.
     * (One added while it is being handed out may be told twice; ending is idempotent.)
     */
    private void endIfEnded(Listeners.Entry<?> entry) {
        CodexTransportException cause = ended;
        if (cause != null) {
            entry.end(cause);
        }
    }

    // ------------------------------------------------------------------------------------------------ threads

    /**
     * Sends {@code turn/start} for a thread. After a restart, a thread that was not held at the loss is not loaded
     * on the new server yet: it is resumed first.
     *
     * @param link   the thread
     * @param params the params
     * @return the server's answer
     */
    public CompletableFuture<TurnStartResponse> turnStart(ThreadLink link, TurnStartParams params) {
        if (!supervisor.recovers()) {
            return calls.turnStart(params);
        }
        return supervisor.ensureLoaded(link).thenCompose(v -> calls.turnStart(params));
    }

    /**
     * Sends {@code thread/resume} for the user, waiting out an outage.
     *
     * @param params the params
     * @return the server's answer
     */
    public CompletableFuture<ThreadResumeResponse> resumeThread(ThreadResumeParams params) {
        return supervisor.resume(null, params, null);
    }

    /**
     * {@return {@code params} with this client's dynamic tools and the thread's own added to {@code dynamicTools},
     * after any the params already declare}
     *
     * @param params     the {@code thread/start} params
     * @param threadOnly the thread's own tools, as {@link #threadTools} checked them; empty for none
     */
    public ThreadStartParams withTools(ThreadStartParams params, Map<String, DynamicTool> threadOnly) {
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
     * @param threadOnly the thread's own tools
     * @return them by name, in order
     * @throws IllegalStateException    when the client was not built with the experimental API, which dynamic tools
     *                                  need
     * @throws IllegalArgumentException when two share a name, or one has the name of a tool of the client
     */
    public Map<String, DynamicTool> threadTools(List<DynamicTool> threadOnly) {
        Objects.requireNonNull(threadOnly, "tools");
        if (!threadOnly.isEmpty() && !settings.handshake().experimentalApi()) {
            throw new IllegalStateException("dynamic tools are an experimental codex API: call "
                    + "experimentalApi(true) on the builder to declare tools on a thread");
        }
        return tools.checked(threadOnly);
    }

    /**
     * Answers the tool calls of a started or resumed thread with its own tools, from now on.
     *
     * @param threadId   the thread
     * @param threadOnly its tools, as {@link #threadTools} checked them
     */
    public void declareTools(String threadId, Map<String, DynamicTool> threadOnly) {
        if (!threadOnly.isEmpty()) {
            tools.declare(threadId, threadOnly);
        }
    }

    /**
     * {@return {@code params} for the page that starts at {@code cursor}}
     *
     * @param params the listing's params
     * @param cursor where the page starts; null for the params' own
     */
    public ThreadListParams page(ThreadListParams params, String cursor) {
        ObjectNode tree = mapper.valueToTree(params);
        if (cursor != null) {
            tree.put("cursor", cursor);
        }
        return convert(tree, ThreadListParams.class);
    }

    private <T> T convert(JsonNode tree, Class<T> type) {
        try {
            return mapper.treeToValue(tree, type);
        } catch (Exception e) {
            throw new CodexException("could not build " + type.getSimpleName(), e);
        }
    }

    /**
     * After an interrupt, gives the server a grace period to settle the turn before declaring it stalled.
     *
     * @param turn the interrupted turn
     * @return the scheduled task
     */
    public Scheduler.Task scheduleGrace(RoutedTurn turn) {
        Duration grace = settings.interruptGrace();
        try {
            return scheduler.schedule(() -> onLane(turn.threadId(), () -> {
                if (!turn.isDone()) {
                    Log.LOG.warn("turn {} did not settle within {} ms of its interrupt; completing it as stalled", turn,
                            grace.toMillis());
                    turn.stall();
                }
            }), grace);
        } catch (RejectedExecutionException closing) {
            // The client is closed: the turn fails with the connection.
            return () -> false;
        }
    }

    /**
     * Runs {@code task} on the delivery lane of {@code threadId}, behind the events queued there.
     *
     * @param threadId the lane's key
     * @param task     the task
     */
    public void onLane(String threadId, Runnable task) {
        supervisor.executeOnLane(threadId, task);
    }

    /**
     * Runs {@code task} on the callback executor (inline once the client has shut it down).
     *
     * @param task the task
     */
    public void runCallback(Runnable task) {
        supervisor.executeCallback(task);
    }

    /** Runs {@code task}, part of handling a server request, where handlers run (inline once shut down). */
    private void runHandler(Runnable task) {
        supervisor.executeHandler(task);
    }

    // ------------------------------------------------------------------------------------------------ parts

    /** {@return what the client was built with} */
    public ClientSettings settings() {
        return settings;
    }

    /** {@return the protocol's mapper} */
    public ObjectMapper mapper() {
        return mapper;
    }

    /** {@return the mapper of the user's types} */
    public ObjectMapper userMapper() {
        return userMapper;
    }

    /** {@return the client's clock and timer} */
    public Scheduler scheduler() {
        return scheduler;
    }

    /** {@return this client's secrets and the usual credential shapes, masked} */
    public Redactor redactor() {
        return redactor;
    }

    /** {@return where the client's telemetry goes} */
    public EventEmitter events() {
        return events;
    }

    /** {@return the threads the client holds} */
    public HeldThreads held() {
        return held;
    }

    /** {@return how the client blocks} */
    public Waits waits() {
        return waits;
    }

    /** {@return typed calls with the client's request timeout} */
    public Calls calls() {
        return calls;
    }

    /** {@return the supervised connection} */
    public ConnectionSupervisor supervisor() {
        return supervisor;
    }

    /** {@return how many connections replaced the first one (0 without a restart)} */
    public long generation() {
        return supervisor.generation();
    }

    /** {@return what the server reported about itself in its latest {@code initialize} result} */
    public ServerInfo serverInfo() {
        return serverInfo;
    }

    /** {@return how many notification listeners the client has} */
    public int notificationListeners() {
        return listeners.size();
    }

    // ------------------------------------------------------------------------------------------------ closing

    /** {@return whether the client was closed or its connection ended for good} */
    public boolean isClosed() {
        return closed.get() || supervisor.isClosed();
    }

    /** {@return whether the user closed the client (as opposed to the connection failing on its own)} */
    public boolean closeRequested() {
        return closed.get();
    }

    /** {@return the redacted tail of a spawned server's standard error; empty for other transports} */
    public String serverStderrTail() {
        return supervisor.transport() instanceof StdioTransport stdio ? stdio.stderrTail() : "";
    }

    /** {@return the server process of the moment, when the client runs it as a child} */
    public Optional<ProcessHandle> serverProcess() {
        return supervisor.process();
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
}

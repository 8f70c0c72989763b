package dev.codexclient;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexProtocolException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.events.CodexEventListener;
import dev.codexclient.events.ConnectionClosed;
import dev.codexclient.events.ConnectionOpened;
import dev.codexclient.internal.ClientInternals;
import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.events.EventEmitter;
import dev.codexclient.internal.rpc.CallbackPool;
import dev.codexclient.internal.rpc.IncomingNotification;
import dev.codexclient.internal.rpc.IncomingRequest;
import dev.codexclient.internal.rpc.JsonWireCodec;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.rpc.RpcSettings;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.internal.time.SystemScheduler;
import dev.codexclient.internal.transport.TransportInternals;
import dev.codexclient.protocol.ChatgptAuthTokensRefreshParams;
import dev.codexclient.protocol.ChatgptAuthTokensRefreshResponse;
import dev.codexclient.protocol.LoginAccountParams;
import dev.codexclient.protocol.McpServerElicitationRequestParams;
import dev.codexclient.protocol.McpServerElicitationRequestResponse;
import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ServerRequestMethods;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadForkParams;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.protocol.ThreadListResponse;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.ToolRequestUserInputParams;
import dev.codexclient.protocol.ToolRequestUserInputResponse;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.protocol.TurnStartResponse;
import dev.codexclient.transport.StdioTransport;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportKind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client of one codex app-server: spawns it (or uses the transport you give), performs the handshake, and
 * offers threads, turns, typed calls for every protocol method, and handlers for the requests the server sends.
 *
 * <pre>{@code
 * try (CodexClient codex = CodexClient.builder()
 *         .clientInfo("acme-bot", "Acme Bot", "1.4.0")
 *         .approvals(ApprovalPolicy.declineAll())
 *         .build()) {
 *     CodexThread thread = codex.startThread();
 *     CodexTurn turn = thread.startTurn("Run the tests and fix what fails");
 *     turn.onAgentMessageDelta(d -> System.out.print(d.delta()));
 *     TurnResult result = turn.await(Duration.ofMinutes(10));
 * }
 * }</pre>
 *
 * <p>Threading (the full rules: the "Threading" section of the README). Every method may be called from any
 * thread, listeners and handlers included. Listeners of one codex thread run one after another, in wire order, on
 * that thread's delivery lane; server-request handlers (approvals, tools, …) and the dependents of the futures
 * the client returns run on the callback executor; nothing runs on the thread that reads the connection.
 *
 * <p>One rule for every method that waits: a call to the server {@code foo(…)} waits at most the request timeout
 * and has a twin {@code fooAsync(…)} that returns a {@link CompletableFuture} and never blocks
 * ({@link #startThreadAsync}, {@link CodexThread#startTurnAsync}, {@link CodexThread#readAsync}, …); waiting for a
 * turn takes its own timeout ({@link CodexTurn#await(Duration)}, twin: {@link CodexTurn#result()}). The async twins
 * are what code inside listeners should prefer. Blocking forms work there too, except where the wait could never
 * end: waiting for a turn on the lane that delivers that turn's events, which fails at once with
 * {@link CodexDeadlockException}.
 *
 * <p>Conventions that hold across the API:
 * <ul>
 *   <li><b>Handlers are asynchronous.</b> Every handler of a server request (approvals, user input, elicitations,
 *       dynamic tools, token refresh, {@link Builder#onServerRequest any request}) returns a
 *       {@link CompletionStage}; when the server withdraws the request ({@code serverRequest/resolved}) the stage is
 *       cancelled and nothing is sent. Where a synchronous form is handy there is one functional interface plus an
 *       adapter, not two overloads a lambda could not choose between: {@link ApprovalPolicy#sync},
 *       {@link DynamicTool#of}.</li>
 *   <li><b>One approval vocabulary.</b> Every kind of approval is decided with an {@link ApprovalDecision}
 *       ({@code ACCEPT}, {@code ACCEPT_FOR_SESSION}, {@code DECLINE}, {@code CANCEL}); the protocol's own decision
 *       types stay reachable through {@code ApprovalDecision.of(...)} for what the four cannot say.</li>
 *   <li><b>Absent is {@link Optional}.</b> The hand-written API returns no null and no empty string standing for
 *       "absent"; collections are empty instead.</li>
 *   <li><b>One exception root.</b> Everything thrown is an unchecked {@link CodexException}: an error response
 *       ({@link dev.codexclient.errors.CodexRpcException}), the end of the connection
 *       ({@link CodexTransportException}: exit code and stderr tail when the server failed, neither when you closed
 *       the client), a timeout, a failed turn (with codex's typed {@code codexErrorInfo}).</li>
 *   <li><b>Bounded ends.</b> {@link #close()} says what it waits for, each step bounded, the server's part by
 *       {@link Builder#closeTimeout(Duration)}; a {@link Builder#build()} whose handshake fails ends the server
 *       at once, without a graceful wait. A spawned server's process is {@link #serverProcess()}.</li>
 * </ul>
 */
public final class CodexClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CodexClient.class);
    /** How long a failed handshake waits for the connection's end to be reported (it is, at once, normally). */
    private static final Duration CONNECTION_END_WAIT = Duration.ofSeconds(2);

    static {
        ClientInternals.install(new ClientInternals.Access() {
            @Override
            public void useScheduler(Builder builder, Scheduler scheduler) {
                builder.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            }

            @Override
            public int heldThreads(CodexClient client) {
                return client.held.size();
            }

            @Override
            public int lanes(CodexClient client) {
                return client.live.connection().laneCount();
            }

            @Override
            public int pendingRequests(CodexClient client) {
                return client.live.connection().pendingCount();
            }

            @Override
            public int registeredSecrets(CodexClient client) {
                return client.redactor.registeredCount();
            }

            @Override
            public int notificationListeners(CodexClient client) {
                return client.listeners.size();
            }

            @Override
            public int turnListeners(CodexTurn turn) {
                return turn.listenerCount();
            }

            @Override
            public void onLane(CodexThread thread, Runnable task) {
                thread.onLane(task);
            }
        });
    }

    /** The connection of the moment; replaced after a loss when a restart policy is set. */
    private final CurrentConnection live;
    /** The client's bound on close(); null to leave it to the transport's own close timeout. */
    private final Duration closeTimeout;
    private final ObjectMapper mapper = ProtocolJson.mapper();
    private final ObjectMapper userMapper;
    private final CodexRpc rpc;
    private final Scheduler scheduler;
    private final HeldThreads held;
    private final Waits waits;
    private final Listeners<ServerNotification> listeners = new Listeners<>("notification");
    private final ServerRequestRouter router;
    private final List<DynamicTool> tools;
    private final Duration requestTimeout;
    private final Duration interruptGrace;
    private final Duration turnWatchdog;
    private final int replayLimit;
    private final long replayBytesLimit;
    private final int publisherBufferSize;
    /** Set once the connection's end was handed to every listener (see Session#onClosed). */
    private volatile CodexTransportException ended;
    private final Redactor redactor;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile ServerInfo serverInfo;
    /** Where the client's events go; disabled (and free) without a listener. */
    private final EventEmitter events;
    /** Whether the listener was told of the opening (so it is told of the end); when, on the scheduler's clock. */
    private volatile boolean opened;
    private volatile long openedAtNanos;
    /** The {@code initialize} params, the login and the bound of the handshake, kept for restored connections. */
    private final ObjectNode initializeParams;
    private final LoginAccountParams login;
    private final Duration initializeTimeout;

    private CodexClient(Builder b, Transport transport, ExecutorService callbacks, boolean ownsCallbacks) {
        this.userMapper = b.userMapper != null ? b.userMapper
                : new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        this.closeTimeout = b.closeTimeout;
        this.requestTimeout = b.requestTimeout;
        this.interruptGrace = b.interruptGrace;
        this.turnWatchdog = b.turnWatchdog;
        this.replayLimit = b.replayLimit;
        this.replayBytesLimit = b.replayBytes;
        this.publisherBufferSize = b.publisherBufferSize;
        this.tools = List.copyOf(b.tools.values());
        b.listeners.forEach(listeners::add);
        this.scheduler = b.scheduler != null ? b.scheduler : new SystemScheduler();
        this.redactor = b.redactor;
        // Delivered like a listener's callback, so a close() from inside the event listener does not wait for itself.
        this.events = b.eventListener == CodexEventListener.NONE ? EventEmitter.none()
                : new EventEmitter(b.eventListener, this::runCallback);
        RetryPolicy retry = b.retryPolicy;
        RpcSettings settings = new RpcSettings(b.requestTimeout, retry.maxAttempts(), retry.initialBackoff(),
                retry.maxBackoff(), retry.maxTotal());
        this.initializeParams = initializeParams(b);
        this.login = b.login;
        this.initializeTimeout = b.initializeTimeout;
        // Before the connections: each one reports how the router answered the server's requests.
        this.router = new ServerRequestRouter(mapper, userMapper, b, this.tools, this::runCallback);
        this.held = new HeldThreads(this, replayBytesLimit);
        // With a restart policy the executor outlives each connection: the client shuts it down itself.
        boolean connectionOwnsCallbacks = ownsCallbacks && b.restartPolicy == null;
        JsonWireCodec codec = new JsonWireCodec(mapper);
        Session session = new Session();
        ServerRequestEvents serverRequestEvents = events.enabled()
                ? new ServerRequestEvents(events, scheduler, router) : null;
        this.live = new CurrentConnection(transport, b.restartPolicy, b.transports(), (t, handler) -> new RpcConnection(
                t, codec, settings, callbacks, connectionOwnsCallbacks, scheduler, redactor::redact, handler, events,
                serverRequestEvents),
                session, scheduler, b.requestTimeout, held, events, new Restorer(session), callbacks, ownsCallbacks);
        this.rpc = new CodexRpc(live, b.experimentalApi, b.requestTimeout);
        this.waits = new Waits(live, scheduler, b.requestTimeout);
    }

    /** {@return a new builder, with every setting at its default} Nothing is started until {@link Builder#build()}. */
    public static Builder builder() {
        return new Builder();
    }

    // ------------------------------------------------------------------------------------------------ handshake

    private ObjectNode initializeParams(Builder b) {
        ObjectNode params = mapper.createObjectNode();
        ObjectNode info = params.putObject("clientInfo");
        info.put("name", b.clientName);
        info.put("title", b.clientTitle);
        info.put("version", b.clientVersion);
        ObjectNode caps = params.putObject("capabilities");
        caps.put("experimentalApi", b.experimentalApi);
        if (!b.optOut.isEmpty()) {
            ArrayNode optOut = caps.putArray("optOutNotificationMethods");
            b.optOut.forEach(optOut::add);
        }
        return params;
    }

    private void initialize(Builder b) {
        ObjectNode params = initializeParams;
        RpcConnection connection = live.connection();
        connection.start();
        try {
            long started = scheduler.nanoTime();
            serverInfo = readServerInfo(await(connection.call("initialize", params, JsonNode.class,
                    b.initializeTimeout), "initialize"));
            connection.notify("initialized", null);
            long handshake = scheduler.nanoTime() - started;
            LOG.debug("initialized {} ({})", connection.describe(), serverInfo.userAgent().orElse("?"));
            if (b.login != null) {
                await(rpc.accountLoginStart(b.login), "account/login/start");
            }
            opened(handshake);
        } catch (CodexTransportException e) {
            throw connectionEnd(connection, e);
        }
        live.established();
    }

    /** The handshake on a connection that replaces a lost one; see {@link #initialize}. */
    private CompletableFuture<ServerInfo> handshake(RpcConnection connection) {
        try {
            connection.start();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return connection.call("initialize", initializeParams, JsonNode.class, initializeTimeout).thenCompose(r -> {
            ServerInfo info = readServerInfo(r);
            connection.notify("initialized", null);
            return login == null ? CompletableFuture.completedFuture(info)
                    : connection.call("account/login/start", login, JsonNode.class, null).thenApply(x -> info);
        });
    }

    /** What the client does when its connection is restored or ends for good. */
    private final class Restorer implements CurrentConnection.Client {
        private final Session session;

        Restorer(Session session) {
            this.session = session;
        }

        @Override
        public CompletableFuture<ServerInfo> handshake(RpcConnection connection) {
            return CodexClient.this.handshake(connection);
        }

        @Override
        public void restored(ServerInfo info) {
            serverInfo = info;
        }

        @Override
        public void ended(CodexTransportException cause) {
            session.onClosed(cause);
        }
    }

    /** The client is ready: tells the event listener, which learns of the connection's end from now on. */
    private void opened(long handshakeNanos) {
        if (!events.enabled()) {
            return;
        }
        ConnectionOpened event = new ConnectionOpened(TransportKind.of(live.transport()), serverInfo,
                Duration.ofNanos(Math.max(0, handshakeNanos)));
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

    /**
     * The exception that ended the connection, in place of {@code failure} when the connection ended under the
     * handshake. A server that dies at start-up can be noticed three ways: the reader sees its exit, a write finds
     * the pipe broken, or the call is made after the exit was seen. Each reports the same end; reporting it the
     * same way makes a failed start read the same on every run: the exit, its code and the stderr tail first.
     */
    private static CodexTransportException connectionEnd(RpcConnection connection,
                                                         CodexTransportException failure) {
        if (!connection.isClosed()) {
            return failure;
        }
        try {
            return connection.terminated().get(CONNECTION_END_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            java.lang.Thread.currentThread().interrupt();
            return failure;
        } catch (ExecutionException | TimeoutException e) {
            return failure;
        }
    }

    /**
     * Reads the {@code initialize} result (the schema's {@code InitializeResponse}: four strings) from its tree.
     * Binding it to the record would build Jackson's first record deserializer during the handshake, about a tenth
     * of a second in a fresh JVM, before a client that has only initialized needs any record.
     */
    private static ServerInfo readServerInfo(JsonNode result) {
        if (!result.isObject() && !result.isNull()) {
            throw new CodexProtocolException("the result of initialize is not an object: " + result.getNodeType());
        }
        return new ServerInfo(initializeMember(result, "userAgent"), initializeMember(result, "codexHome"),
                initializeMember(result, "platformFamily"), initializeMember(result, "platformOs"));
    }

    /** A string member of the {@code initialize} result: absent when missing or null, an error when not a string. */
    private static Optional<String> initializeMember(JsonNode result, String name) {
        JsonNode value = result.get(name);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isTextual()) {
            throw new CodexProtocolException("the result of initialize has a " + value.getNodeType() + " "
                    + name + " where the schema says string");
        }
        return Optional.of(value.textValue());
    }

    /** Where this client's events go (see {@link CodexEventListener}); check {@code enabled()} before building one. */
    EventEmitter events() {
        return events;
    }

    /** {@return what the server reported about itself in its {@code initialize} result} */
    public ServerInfo serverInfo() {
        return serverInfo;
    }

    /** {@return typed calls for every client request of the protocol, with this client's request timeout} */
    public CodexRpc rpc() {
        return rpc;
    }

    // ------------------------------------------------------------------------------------------------ threads

    // Each blocking form waits for the call itself and finishes on the calling thread; each async twin finishes in
    // a dependent of the call. So a blocking call needs nothing but the answer: no callback thread.

    /**
     * Starts a thread with the server's defaults and this client's dynamic tools, waiting at most the request timeout.
     *
     * @return the handle of the new thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request
     */
    public CodexThread startThread() {
        return startThread(ThreadStartParams.builder().build());
    }

    /**
     * Starts a thread. This client's {@link Builder#tool(DynamicTool) dynamic tools} are added to
     * {@code dynamicTools}, after any the params already declare.
     *
     * @param params the {@code thread/start} params (model, working directory, sandbox, ...)
     * @return the handle of the new thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request
     */
    public CodexThread startThread(ThreadStartParams params) {
        return held.handleFor(await(rpc.threadStart(withTools(params)), "thread/start").thread());
    }

    /**
     * {@link #startThread()} without blocking.
     *
     * @return a future of the new thread's handle; it fails with the exceptions {@link #startThread()} throws
     */
    public CompletableFuture<CodexThread> startThreadAsync() {
        return startThreadAsync(ThreadStartParams.builder().build());
    }

    /**
     * {@link #startThread(ThreadStartParams)} without blocking.
     *
     * @param params the {@code thread/start} params
     * @return a future of the new thread's handle; it fails with the exceptions
     *         {@link #startThread(ThreadStartParams)} throws
     */
    public CompletableFuture<CodexThread> startThreadAsync(ThreadStartParams params) {
        ThreadStartParams withTools;
        try {
            withTools = withTools(params);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return rpc.threadStart(withTools).thenApply(r -> held.handleFor(r.thread()));
    }

    private ThreadStartParams withTools(ThreadStartParams params) {
        Objects.requireNonNull(params, "params");
        if (tools.isEmpty()) {
            return params;
        }
        List<JsonNode> specs = new ArrayList<>();
        if (params.dynamicTools() != null) {
            params.dynamicTools().forEach(t -> specs.add(mapper.valueToTree(t)));
        }
        for (DynamicTool t : tools) {
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
     * Resumes a stored thread by id, with the settings it was stored with.
     *
     * @param threadId the id of the stored thread
     * @return the handle of the resumed thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request, e.g. for an unknown id
     */
    public CodexThread resumeThread(String threadId) {
        return resumeThread(ThreadResumeParams.builder().threadId(threadId).build());
    }

    /**
     * Resumes a stored thread with overrides.
     *
     * @param params the {@code thread/resume} params: the thread id and the settings to change
     * @return the handle of the resumed thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request, e.g. for an unknown id
     */
    public CodexThread resumeThread(ThreadResumeParams params) {
        return held.handleFor(await(rpc.threadResume(params), "thread/resume").thread());
    }

    /**
     * {@link #resumeThread(String)} without blocking.
     *
     * @param threadId the id of the stored thread
     * @return a future of the resumed thread's handle; it fails with the exceptions {@link #resumeThread(String)}
     *         throws
     */
    public CompletableFuture<CodexThread> resumeThreadAsync(String threadId) {
        return resumeThreadAsync(ThreadResumeParams.builder().threadId(threadId).build());
    }

    /**
     * {@link #resumeThread(ThreadResumeParams)} without blocking.
     *
     * @param params the {@code thread/resume} params
     * @return a future of the resumed thread's handle; it fails with the exceptions
     *         {@link #resumeThread(ThreadResumeParams)} throws
     */
    public CompletableFuture<CodexThread> resumeThreadAsync(ThreadResumeParams params) {
        return rpc.threadResume(params).thenApply(r -> held.handleFor(r.thread()));
    }

    /**
     * Forks a thread by id into a new thread, which starts with a copy of its history.
     *
     * @param threadId the id of the thread to fork
     * @return the handle of the new thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request, e.g. for an unknown id
     */
    public CodexThread forkThread(String threadId) {
        return forkThread(ThreadForkParams.builder().threadId(threadId).build());
    }

    /**
     * Forks a thread with overrides.
     *
     * @param params the {@code thread/fork} params: the thread id and the settings of the new thread
     * @return the handle of the new thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request, e.g. for an unknown id
     */
    public CodexThread forkThread(ThreadForkParams params) {
        return held.handleFor(await(rpc.threadFork(params), "thread/fork").thread());
    }

    /**
     * {@link #forkThread(String)} without blocking.
     *
     * @param threadId the id of the thread to fork
     * @return a future of the new thread's handle; it fails with the exceptions {@link #forkThread(String)} throws
     */
    public CompletableFuture<CodexThread> forkThreadAsync(String threadId) {
        return forkThreadAsync(ThreadForkParams.builder().threadId(threadId).build());
    }

    /**
     * {@link #forkThread(ThreadForkParams)} without blocking.
     *
     * @param params the {@code thread/fork} params
     * @return a future of the new thread's handle; it fails with the exceptions {@link #forkThread(ThreadForkParams)}
     *         throws
     */
    public CompletableFuture<CodexThread> forkThreadAsync(ThreadForkParams params) {
        return rpc.threadFork(params).thenApply(r -> held.handleFor(r.thread()));
    }

    /**
     * {@return the handle of a thread this client holds right now, or empty when it holds none for that id} A thread
     * is held while it has a turn starting or running, or a listener added by {@link CodexThread#onEvent}. Handles of
     * other threads stay usable (see {@link CodexThread}); this only finds the ones in use. Asks nothing of the server.
     *
     * @param threadId the codex thread id
     */
    public Optional<CodexThread> thread(String threadId) {
        // An ended client holds nothing, even while its threads' lanes still deliver what was read before the end.
        return isClosed() ? Optional.empty() : held.handle(threadId);
    }

    /**
     * Every stored thread matching {@code params}, page by page as the iteration proceeds (each page is one
     * {@code thread/list} call following {@code nextCursor}; each waits at most the request timeout).
     * {@link #listThreadsAsync(ThreadListParams)} is the non-blocking twin.
     *
     * @param params the filter and page size; its {@code cursor}, if any, is where the first page starts
     * @return the threads; each iteration asks the server again, and its {@code hasNext()} throws what a failed
     *         {@code thread/list} call throws ({@link CodexTransportException}, {@link CodexTimeoutException},
     *         {@link dev.codexclient.errors.CodexRpcException})
     */
    public Iterable<ThreadInfo> listThreads(ThreadListParams params) {
        Objects.requireNonNull(params, "params");
        return () -> new Iterator<>() {
            private Iterator<ThreadInfo> page = Collections.emptyIterator();
            private String cursor = params.cursor();
            private boolean last;

            @Override
            public boolean hasNext() {
                while (!page.hasNext() && !last) {
                    ThreadListResponse r = await(rpc.threadList(page(params, cursor)), "thread/list");
                    page = r.data() == null ? Collections.emptyIterator() : r.data().iterator();
                    cursor = r.nextCursor();
                    last = cursor == null || cursor.isEmpty();
                }
                return page.hasNext();
            }

            @Override
            public ThreadInfo next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return page.next();
            }
        };
    }

    /**
     * Every stored thread, newest first (server default order), fetched page by page.
     *
     * @return the threads, as {@link #listThreads(ThreadListParams)} returns them
     */
    public Iterable<ThreadInfo> listThreads() {
        return listThreads(ThreadListParams.builder().build());
    }

    /**
     * Every stored thread matching {@code params}, all pages, without blocking.
     *
     * @param params the filter and page size; its {@code cursor}, if any, is where the first page starts
     * @return a future of every matching thread, in the server's order; it fails with the first failed page's
     *         exception
     */
    public CompletableFuture<List<ThreadInfo>> listThreadsAsync(ThreadListParams params) {
        Objects.requireNonNull(params, "params");
        return listFrom(params, params.cursor(), new ArrayList<>());
    }

    private CompletableFuture<List<ThreadInfo>> listFrom(ThreadListParams params, String cursor, List<ThreadInfo> into) {
        return rpc.threadList(page(params, cursor)).thenCompose(r -> {
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

    /**
     * Every notification of the connection, in wire order per codex thread, on the lane of its thread. Closing the
     * subscription stops the deliveries. Notifications that arrived before the call are not replayed; to see them all,
     * use {@link Builder#onNotification(Consumer)}.
     *
     * @param listener called with each notification, on a callback thread; it may call back into the client
     * @return the subscription, whose {@code close()} removes the listener
     */
    public Subscription onNotification(Consumer<? super ServerNotification> listener) {
        Objects.requireNonNull(listener, "listener");
        return listeners.add(listener);
    }

    /**
     * Every notification of the connection as a hot {@link Flow.Publisher}: each subscriber gets the notifications
     * that arrive from its {@code subscribe} call on, in wire order per codex thread (the order across threads is
     * the order in which their lanes hand them over). The stream ends with {@code onComplete} when the client is
     * {@link #close() closed}, and with {@code onError(}{@link CodexTransportException}{@code )} when the connection
     * fails (the server exits, the socket drops); either comes after the notifications already received.
     *
     * <pre>{@code
     * Flux<ServerNotification> all = JdkFlowAdapter.flowPublisherToFlux(client.notifications());
     * all.ofType(ServerNotification.ThreadStarted.class).subscribe(t -> log.info("thread {}", t.params()));
     * }</pre>
     *
     * <p>Backpressure, threading and cancellation as for {@link CodexTurn#publisher()}: a subscriber that lets more
     * than {@link Builder#publisherBufferSize(int)} notifications wait ends with
     * {@link dev.codexclient.errors.CodexBackpressureException}, and only that subscriber.
     *
     * @return a hot publisher of every notification of the connection
     */
    public Flow.Publisher<ServerNotification> notifications() {
        return FlowPublishers.notifications(this);
    }

    /** Like {@link #onNotification}, with {@code onEnd} told why when the connection ends. */
    Subscription subscribeNotifications(Consumer<? super ServerNotification> listener, Consumer<Throwable> onEnd) {
        Listeners.Entry<ServerNotification> entry = listeners.entry(listener, () -> { }, onEnd);
        listeners.add(entry);
        endIfEnded(entry);
        return entry;
    }

    /**
     * Ends a subscription added after the connection's end was handed out, which would otherwise never be told.
     * (One added while it is being handed out may be told twice; ending is idempotent.)
     */
    void endIfEnded(Listeners.Entry<?> entry) {
        CodexTransportException cause = ended;
        if (cause != null) {
            entry.end(cause);
        }
    }

    // ------------------------------------------------------------------------------------------------ closing

    /** {@return whether the client was closed or its connection ended} A closed client stays closed. */
    public boolean isClosed() {
        return closed.get() || live.isClosed();
    }

    /**
     * {@return the server process, when this client runs it as a child} That is the default: it spawns
     * {@code codex app-server} over stdio; for a WebSocket or in-memory connection this is empty. Use it to watch the
     * server ({@code pid()}, {@code onExit()}, {@code info()}) or to end it from outside the client. The handle stays
     * available after the process ended ({@code isAlive()} then says so).
     *
     * <p>With codex installed by npm, the process may be the Node launcher, whose child is the native binary
     * ({@code descendants()} reaches it); the launcher forwards SIGTERM ({@code destroy()}) to it. {@link #close()}
     * ends the whole tree either way.
     */
    public Optional<ProcessHandle> serverProcess() {
        return live.process();
    }

    /**
     * {@return the server's processes as they are now: {@link #serverProcess()} first, then every live process it
     * started, each after its parent} Empty when this client runs no server process. With codex installed by npm
     * and a Node without {@code process.execve} (added in 22.15 and 23.11), the first is the Node launcher and the second the
     * native {@code codex} binary it runs, which itself may run commands of a turn; with a newer Node the launcher
     * has become the native binary, which is then the first. To end the server from outside as a crash would,
     * {@code destroyForcibly()} each of them. A process started or ended after the call is not reflected.
     */
    public List<ProcessHandle> serverProcessTree() {
        Optional<ProcessHandle> root = serverProcess();
        if (root.isEmpty()) {
            return List.of();
        }
        List<ProcessHandle> tree = new ArrayList<>();
        tree.add(root.get());
        // Breadth first, so that each process comes after its parent.
        for (int i = 0; i < tree.size(); i++) {
            try {
                tree.get(i).children().forEach(tree::add);
            } catch (RuntimeException e) {
                // A platform that cannot list children: what was found is all there is to give.
                break;
            }
        }
        return List.copyOf(tree);
    }

    /**
     * Closes the client: fails every pending call and running turn with a {@link CodexTransportException}
     * ({@code "the client was closed"}), withdraws the requests the server was still waiting on, ends the
     * connection, and stops every thread the client started. Idempotent; may be called from a listener or a
     * handler.
     *
     * <p>What it waits for, each step bounded:
     * <ol>
     *   <li>the server to end: a spawned server has its stdin closed and gets the
     *       {@link Builder#closeTimeout(Duration) close timeout} (5 s by default) to exit on its own, then it and
     *       every process it started are terminated (SIGTERM, then SIGKILL a second or two later). Idle codex exits
     *       at once; some versions first wait for a command that is still running, which the close timeout cuts
     *       short. A WebSocket gets the same bound on its close handshake;</li>
     *   <li>the events already received to reach their listeners (up to 5 s; not when called from a listener or
     *       handler of this client, which would be waiting for itself);</li>
     *   <li>the client's own callback threads to finish what they run (up to 2 s; an executor you passed with
     *       {@link Builder#callbackExecutor} is left alone).</li>
     * </ol>
     */
    @Override
    public void close() {
        closeWith(closeTimeout);
    }

    /** Closes the client; {@code transportTimeout} bounds the end of the server, null for the transport's own. */
    private void closeWith(Duration transportTimeout) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            // Ends the server within the client's bound; the connection's own close then finds it closed.
            live.close(transportTimeout);
        } finally {
            scheduler.shutdown();
        }
    }

    // ------------------------------------------------------------------------------------------------ internals

    private final class Session implements RpcConnection.Handler {
        @Override
        public void onNotification(IncomingNotification raw) {
            ServerNotification n = raw.notification();
            listeners.deliver(n);
            String threadId = raw.threadId().orElse(null);
            if (threadId != null) {
                held.dispatch(threadId, raw.turnId().orElse(null), n, raw.size());
            }
        }

        @Override
        public CompletionStage<?> onRequest(IncomingRequest request) {
            return router.route(request);
        }

        @Override
        public CodexRpcException refineError(CodexRpcException error) {
            return UnknownMethodErrors.refine(error, serverInfo);
        }

        @Override
        public void onClosed(CodexTransportException cause) {
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
            live.connection().executeAfterQueuedEvents(() -> {
                listeners.endAll(cause);
                closedEvent(cause);
            });
        }
    }

    void onLane(String threadId, Runnable task) {
        live.executeOnLane(threadId, task);
    }

    /** Runs {@code task} on the callback executor (inline once the client has shut it down). */
    void runCallback(Runnable task) {
        live.executeCallback(task);
    }

    ObjectMapper userMapper() {
        return userMapper;
    }

    /** Whether {@link #close()} was called (as opposed to the connection failing on its own). */
    boolean closeRequested() {
        return closed.get();
    }

    int publisherBufferSize() {
        return publisherBufferSize;
    }

    int replayLimit() {
        return replayLimit;
    }

    long replayBytesLimit() {
        return replayBytesLimit;
    }

    /** Masks this client's secrets (API key, tokens, registered secrets) and the usual credential shapes. */
    Redactor redactor() {
        return redactor;
    }

    /** Starts the client-wide watchdog on a new turn, when one is configured. */
    void watchNewTurn(CodexTurn turn) {
        if (turnWatchdog != null) {
            turn.watchdog(turnWatchdog);
        }
    }

    Scheduler.Task schedule(Runnable task, Duration delay) {
        return scheduler.schedule(task, delay);
    }

    Scheduler scheduler() {
        return scheduler;
    }

    /** After an interrupt, give the server a grace period to settle the turn before declaring it stalled. */
    Scheduler.Task scheduleGrace(CodexTurn turn) {
        try {
            return schedule(() -> turn.thread().onLane(() -> {
                if (!turn.isDone()) {
                    LOG.warn("turn {} did not settle within {} ms of its interrupt; completing it as stalled", turn,
                            interruptGrace.toMillis());
                    turn.stall();
                }
            }), interruptGrace);
        } catch (RejectedExecutionException closed) {
            // The client is closed: the turn fails with the connection.
            return () -> false;
        }
    }

    private <T> T convert(JsonNode tree, Class<T> type) {
        try {
            return mapper.treeToValue(tree, type);
        } catch (Exception e) {
            throw new CodexException("could not build " + type.getSimpleName(), e);
        }
    }

    /** Waits for a call started by the client API (see {@link Waits#call}). */
    <T> T await(CompletableFuture<T> future, String what) {
        return waits.call(future, what);
    }

    /** How many connections replaced the first one (0 without a restart). */
    long generation() {
        return live.generation();
    }

    /**
     * Sends {@code turn/start} for {@code handle}'s thread. After a restart, a thread that was not held at the loss
     * is not loaded on the new server yet: it is resumed first.
     */
    CompletableFuture<TurnStartResponse> turnStart(CodexThread handle, TurnStartParams params) {
        if (!live.recovers()) {
            return rpc.turnStart(params);
        }
        return live.ensureLoaded(handle).thenCompose(v -> rpc.turnStart(params));
    }

    Waits waits() {
        return waits;
    }

    HeldThreads held() {
        return held;
    }

    static Duration positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
        return d;
    }

    // ------------------------------------------------------------------------------------------------ builder

    /** Configures and builds a {@link CodexClient}; {@link #build()} spawns the server and performs the handshake. */
    public static final class Builder {
        private Supplier<? extends Transport> transport;
        /** Whether {@link #transport} gives one transport only (so a lost connection cannot be replaced). */
        private boolean singleTransport;
        private RestartPolicy restartPolicy;
        private final StdioTransport.Builder stdio = StdioTransport.builder();
        /** The stdio settings made on this builder, by method, to tell a user they clash with transport(...). */
        private final Set<String> stdioSettings = new LinkedHashSet<>();
        private Duration closeTimeout;
        private String clientName = "codex-client-java";
        private String clientTitle = "codex-client (Java)";
        private String clientVersion = dev.codexclient.internal.ClientVersion.current();
        private boolean experimentalApi;
        private final Set<String> optOut = new LinkedHashSet<>();
        private Duration requestTimeout = Duration.ofSeconds(60);
        private Duration initializeTimeout = Duration.ofSeconds(30);
        private Duration interruptGrace = Duration.ofSeconds(10);
        private Duration turnWatchdog;
        private RetryPolicy retryPolicy = RetryPolicy.defaults();
        private ExecutorService executor;
        private ObjectMapper userMapper;
        private int replayLimit = 10_000;
        private long replayBytes = 8L * 1024 * 1024;
        private int publisherBufferSize = 4096;
        /** This client's own: secrets registered with one client are never masked or kept by another. */
        private final Redactor redactor = new Redactor();

        {
            // The stdio transport this builder spawns masks what the client masks, refreshed tokens included.
            TransportInternals.shareRedactor(stdio, redactor);
        }
        /** The client's clock and timer; tests put a manual one here (see ClientInternals). */
        Scheduler scheduler;
        private LoginAccountParams login;
        private CodexEventListener eventListener = CodexEventListener.NONE;
        final Map<String, DynamicTool> tools = new LinkedHashMap<>();
        final List<Consumer<ServerNotification>> listeners = new ArrayList<>();
        ApprovalPolicy<ApprovalRequest> approvals;
        /** Policies for one kind of approval, by method (see {@link #onCommandApproval}). */
        final Map<String, ApprovalPolicy<?>> kindApprovals = new LinkedHashMap<>();
        final Map<String, ServerRequestRouter.Route<?, ?>> handlers = new LinkedHashMap<>();
        final Map<String, Function<JsonNode, CompletionStage<?>>> rawHandlers = new LinkedHashMap<>();

        private Builder() {
        }

        // ---------------------------------------------------------------- transport

        /**
         * Uses this transport instead of spawning {@code codex app-server}. The settings of the server the client
         * would spawn ({@link #codexBinary}, {@link #command}, {@link #codexHome}, {@link #workingDirectory},
         * {@link #environment}, {@link #stdio}) do not apply to a transport of your own: {@link #build()} rejects
         * them, rather than ignoring them. Configure your transport with them instead, e.g.
         * {@code StdioTransport.builder().codexHome(...)}.
         *
         * @param transport an unstarted transport; the client starts it in {@link #build()} and closes it on close
         * @return this builder
         */
        public Builder transport(Transport transport) {
            Objects.requireNonNull(transport, "transport");
            this.transport = () -> transport;
            this.singleTransport = true;
            return this;
        }

        /**
         * Opens the transport of each connection with {@code factory}, instead of spawning
         * {@code codex app-server}: once at {@link #build()}, and again for each connection that replaces a lost
         * one under a {@link #restartPolicy(RestartPolicy) restart policy}. Each call must return a new,
         * unstarted transport, e.g. {@code () -> WebSocketTransport.builder(uri).build()}. The settings of the
         * server the client would spawn do not apply, as with {@link #transport(Transport)}.
         *
         * @param factory makes a new, unstarted transport on each call
         * @return this builder
         */
        public Builder transportFactory(Supplier<? extends Transport> factory) {
            this.transport = Objects.requireNonNull(factory, "factory");
            this.singleTransport = false;
            return this;
        }

        /**
         * Restores a lost connection (off by default): when the spawned app-server dies, a new one is spawned; when
         * a WebSocket or Unix-socket connection drops, the client reconnects (with a
         * {@link #transportFactory(Supplier) transport factory}). Either way the handshake is redone and every
         * thread the client holds is resumed ({@code thread/resume}); {@link CodexThread} handles and their
         * listeners stay valid. A turn running at the loss goes on if the server reached again still runs it,
         * completes from the server's report if it finished meanwhile, and otherwise (a new server) ends with
         * {@link dev.codexclient.errors.CodexServerRestartedException} naming its thread and turn. Calls pending at
         * the loss fail with {@link CodexTransportException}; calls made during the restore wait for it, within
         * their timeout. An approval or other server request still being decided is not asked again when the
         * server sends it anew after the resume: the decision goes to the new connection, once. When the policy
         * gives up, the client ends as it would without one. The {@link #eventListener(CodexEventListener) event
         * listener} sees each step.
         *
         * @param policy how often and how fast to try again, see {@link RestartPolicy}
         * @return this builder
         */
        public Builder restartPolicy(RestartPolicy policy) {
            this.restartPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** Where the transports of connections come from: the factory given, or the stdio settings. */
        private Supplier<? extends Transport> transports() {
            return transport != null ? transport : stdio::build;
        }

        /**
         * The codex executable to spawn (default: {@code codex} on the {@code PATH}).
         *
         * @param executable the path of the {@code codex} executable; it is run with the argument {@code app-server}
         * @return this builder
         */
        public Builder codexBinary(Path executable) {
            stdio.executable(executable);
            stdioSettings.add("codexBinary(...)");
            return this;
        }

        /**
         * The full command to spawn, e.g. {@code List.of("/opt/codex/bin/codex", "app-server")}; instead of
         * {@link #codexBinary(Path)}, not together with it.
         *
         * @param command the executable followed by its arguments
         * @return this builder
         * @throws IllegalArgumentException when {@code command} is empty
         */
        public Builder command(List<String> command) {
            if (command.isEmpty()) {
                throw new IllegalArgumentException("command must name an executable");
            }
            stdio.executable(command.get(0)).args(List.copyOf(command.subList(1, command.size())));
            stdioSettings.add("command(...)");
            return this;
        }

        /**
         * Sets {@code CODEX_HOME} for the spawned server (configuration, sessions, auth).
         *
         * @param codexHome the directory; without this setting the server inherits the variable, or uses
         *                  {@code ~/.codex}
         * @return this builder
         */
        public Builder codexHome(Path codexHome) {
            stdio.codexHome(codexHome);
            stdioSettings.add("codexHome(...)");
            return this;
        }

        /**
         * The working directory of the spawned server.
         *
         * @param directory the directory (default: this JVM's working directory)
         * @return this builder
         */
        public Builder workingDirectory(Path directory) {
            stdio.workingDirectory(directory);
            stdioSettings.add("workingDirectory(...)");
            return this;
        }

        /**
         * An environment variable for the spawned server, added to the ones it inherits from this JVM.
         *
         * @param name  the variable's name
         * @param value its value
         * @return this builder
         */
        public Builder environment(String name, String value) {
            stdio.environment(name, value);
            stdioSettings.add("environment(...)");
            return this;
        }

        /**
         * Further settings of the spawned server's stdio transport (line cap, stderr tail, close timeout).
         *
         * @param configure called at once with the builder of the transport the client will spawn
         * @return this builder
         */
        public Builder stdio(Consumer<StdioTransport.Builder> configure) {
            configure.accept(stdio);
            stdioSettings.add("stdio(...)");
            return this;
        }

        /**
         * The longest {@link CodexClient#close()} waits for the server to end on its own before ending it by force.
         * For the spawned server: how long after its stdin is closed it may take to exit (codex exits at once when
         * idle, but some versions first wait for a running command); then it and every process it started get
         * SIGTERM, and SIGKILL a second or two later. {@code Duration.ZERO} skips the wait. For a WebSocket: the
         * bound on the close handshake.
         *
         * <p>Without this setting the transport's own close timeout applies: for the spawned server
         * {@link StdioTransport.Builder#gracefulCloseTimeout(Duration)} (5 s by default, settable through
         * {@link #stdio(Consumer)}); when both are set, this one wins. It applies as well to a transport given with
         * {@link #transport(Transport)}.
         *
         * @param timeout the longest wait, zero or more
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is negative
         */
        public Builder closeTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "closeTimeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("closeTimeout must not be negative: " + timeout);
            }
            this.closeTimeout = timeout;
            return this;
        }

        // ---------------------------------------------------------------- handshake

        /**
         * How this client introduces itself in {@code initialize} (shows up in codex's logs and user agent).
         *
         * @param name    a machine name, e.g. {@code acme-bot}; codex puts it first in its user agent
         * @param title   a name for people, e.g. {@code Acme Bot}
         * @param version the version of your application, e.g. {@code 1.4.0}
         * @return this builder
         */
        public Builder clientInfo(String name, String title, String version) {
            this.clientName = Objects.requireNonNull(name, "name");
            this.clientTitle = Objects.requireNonNull(title, "title");
            this.clientVersion = Objects.requireNonNull(version, "version");
            return this;
        }

        /**
         * Opts into experimental methods and fields (see {@link dev.codexclient.protocol.Experimental}). Dynamic tools
         * need it.
         *
         * @param enabled whether to declare the {@code experimentalApi} capability (default: false)
         * @return this builder
         */
        public Builder experimentalApi(boolean enabled) {
            this.experimentalApi = enabled;
            return this;
        }

        /**
         * Asks the server never to send these notification methods (exact names, e.g. {@code "thread/started"}). Calls
         * add up.
         *
         * @param methods the notification methods to opt out of
         * @return this builder
         */
        public Builder optOutNotifications(String... methods) {
            optOut.addAll(List.of(methods));
            return this;
        }

        /**
         * Logs in with an API key right after the handshake. The key is never logged.
         *
         * @param apiKey the OpenAI API key
         * @return this builder
         */
        public Builder apiKey(String apiKey) {
            Objects.requireNonNull(apiKey, "apiKey");
            redactor.register(apiKey);

            this.login = new LoginAccountParams.ApiKey(apiKey);
            return this;
        }

        /**
         * Logs in with ChatGPT tokens your application manages, right after the handshake. Pair it with
         * {@link #onChatgptTokenRefresh} so codex can ask for fresh tokens when these expire. Tokens are never
         * logged.
         *
         * @param accessToken      the ChatGPT access token
         * @param chatgptAccountId the ChatGPT account (workspace) id the token belongs to
         * @param planType         the ChatGPT plan (e.g. {@code "plus"}), or {@code null} to let codex find out
         * @return this builder
         */
        public Builder chatgptAuthTokens(String accessToken, String chatgptAccountId, String planType) {
            Objects.requireNonNull(accessToken, "accessToken");
            Objects.requireNonNull(chatgptAccountId, "chatgptAccountId");
            redactor.register(accessToken);
            this.login = new LoginAccountParams.ChatgptAuthTokens(accessToken, chatgptAccountId, planType);
            return this;
        }

        // ---------------------------------------------------------------- timing

        /**
         * Default time a request waits for its response (default 60 s); per call via {@code rpc().withTimeout}.
         *
         * @param timeout the time, positive
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is zero or negative
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive(timeout, "requestTimeout");
            return this;
        }

        /**
         * Time the handshake may take (default 30 s).
         *
         * @param timeout the time, positive
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is zero or negative
         */
        public Builder initializeTimeout(Duration timeout) {
            this.initializeTimeout = positive(timeout, "initializeTimeout");
            return this;
        }

        /**
         * How long an interrupted turn may take to settle before its handle completes as stalled (10 s).
         *
         * @param grace the time, positive
         * @return this builder
         * @throws IllegalArgumentException when {@code grace} is zero or negative
         */
        public Builder interruptGracePeriod(Duration grace) {
            this.interruptGrace = positive(grace, "interruptGracePeriod");
            return this;
        }

        /**
         * Watches every turn for silence (off by default): a turn that sees no event for {@code idle} is checked
         * against the server's view ({@code thread/read}), completed from it if the server finished the turn, and
         * otherwise interrupted and, failing that, completed as {@link TurnResult#stalled() stalled} after the
         * {@link #interruptGracePeriod(Duration) grace period}. Per turn: {@link CodexTurn#watchdog(Duration)}.
         *
         * @param idle the longest silence a turn may have, positive
         * @return this builder
         * @throws IllegalArgumentException when {@code idle} is zero or negative
         */
        public Builder turnWatchdog(Duration idle) {
            this.turnWatchdog = positive(idle, "turnWatchdog");
            return this;
        }

        /**
         * The retry policy for {@code -32001} overload errors (default {@link RetryPolicy#defaults()}).
         *
         * @param policy the policy; {@link RetryPolicy#none()} turns retries off
         * @return this builder
         */
        public Builder retryPolicy(RetryPolicy policy) {
            this.retryPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * The executor for listeners, handlers and future completions (default: the client's own executor on a cached
         * pool of daemon threads that every client in the JVM shares; closing the client shuts its executor down and
         * waits for its running callbacks). An executor you pass is not shut down by the client. It must run tasks on
         * threads of its own, never on the submitting thread, and have a thread for each listener or handler that may
         * block at the same time (see the "Threading" section of the README).
         *
         * @param executor the executor
         * @return this builder
         */
        public Builder callbackExecutor(ExecutorService executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * How many events each turn keeps for listeners attached late (default 10 000); see also
         * {@link #turnReplayBytes(long)}. The oldest go first.
         *
         * @param events the number of events, zero or more; zero keeps none
         * @return this builder
         * @throws IllegalArgumentException when {@code events} is negative
         */
        public Builder turnReplayLimit(int events) {
            if (events < 0) {
                throw new IllegalArgumentException("turnReplayLimit must not be negative");
            }
            this.replayLimit = events;
            return this;
        }

        /**
         * How many bytes of events each turn keeps for listeners attached late (default 8 MiB), measured by the
         * length of their lines on the wire. The same bound applies to the events a thread holds for a turn whose
         * {@code turn/start} response has not arrived yet.
         *
         * @param bytes the number of bytes, zero or more
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is negative
         */
        public Builder turnReplayBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("turnReplayBytes must not be negative");
            }
            this.replayBytes = bytes;
            return this;
        }

        /**
         * How many events a subscription to one of the client's {@link java.util.concurrent.Flow.Publisher}s
         * ({@link CodexTurn#publisher()}, {@link CodexThread#publisher()}, {@link CodexClient#notifications()}) holds
         * beyond what its subscriber requested, before it gives up on that subscriber (default 4096). Events within
         * the outstanding demand are on their way to {@code onNext}; a turn's replayed events do not count either.
         * When more wait, that subscription alone ends with
         * {@link dev.codexclient.errors.CodexBackpressureException}: the connection never waits for a subscriber and
         * no event is dropped in silence. A subscription thus holds at most its outstanding demand plus this many
         * events (a subscriber that requests {@code Long.MAX_VALUE} takes on the buffering itself).
         *
         * @param events how many events may wait beyond a subscriber's demand; at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code events} is less than 1
         */
        public Builder publisherBufferSize(int events) {
            if (events < 1) {
                throw new IllegalArgumentException("publisherBufferSize must be positive: " + events);
            }
            this.publisherBufferSize = events;
            return this;
        }

        /**
         * The mapper that binds your types: dynamic-tool arguments and structured turn output (default: a plain
         * {@link ObjectMapper} that ignores unknown properties). Register modules here, e.g. for {@code Optional}.
         * The protocol's own types keep the client's internal mapper, whatever this one is configured to do.
         *
         * @param mapper the mapper; the client does not change its configuration
         * @return this builder
         */
        public Builder objectMapper(ObjectMapper mapper) {
            this.userMapper = Objects.requireNonNull(mapper, "mapper");
            return this;
        }

        // ---------------------------------------------------------------- handlers

        /**
         * Decides every kind of approval: commands, file changes, permission grants, and their legacy forms
         * (default: {@link ApprovalPolicy#declineAll()}, logged once per kind). A policy for one kind
         * ({@link #onCommandApproval}, {@link #onFileChangeApproval}) takes precedence for that kind.
         *
         * <pre>{@code
         * .approvals(ApprovalPolicy.sync(request -> request instanceof ApprovalRequest.Command c
         *         && c.params().command().startsWith("git ") ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE))
         * }</pre>
         *
         * @param policy the policy for every kind of approval request
         * @return this builder
         */
        public Builder approvals(ApprovalPolicy<ApprovalRequest> policy) {
            this.approvals = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Decides command approvals ({@code item/commandExecution/requestApproval}), in place of
         * {@link #approvals}' policy for them. Asynchronous, like every handler; for a synchronous decision wrap it
         * in {@link ApprovalPolicy#sync}:
         * <pre>{@code
         * .onCommandApproval(ApprovalPolicy.sync(command -> command.params().command().startsWith("ls")
         *         ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE))
         * }</pre>
         * A later {@link #onServerRequest} for the same method replaces it, and the other way round.
         *
         * @param policy the policy for command approvals
         * @return this builder
         */
        public Builder onCommandApproval(ApprovalPolicy<? super ApprovalRequest.Command> policy) {
            return kindApproval(ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL.method(), policy);
        }

        /**
         * Decides file-change approvals ({@code item/fileChange/requestApproval}), in place of {@link #approvals}'
         * policy for them; see {@link #onCommandApproval}.
         *
         * @param policy the policy for file-change approvals
         * @return this builder
         */
        public Builder onFileChangeApproval(ApprovalPolicy<? super ApprovalRequest.FileChange> policy) {
            return kindApproval(ServerRequestMethods.ITEM_FILE_CHANGE_REQUEST_APPROVAL.method(), policy);
        }

        private Builder kindApproval(String method, ApprovalPolicy<?> policy) {
            Objects.requireNonNull(policy, "policy");
            handlers.remove(method);
            kindApprovals.put(method, policy);
            return this;
        }

        /**
         * Answers questions the agent asks the user ({@code item/tool/requestUserInput}).
         *
         * @param handler called on a callback thread with each request's params; its stage is cancelled when the
         *                server withdraws the request, and a failed stage becomes a JSON-RPC error reply
         * @return this builder
         */
        public Builder onUserInput(
                Function<ToolRequestUserInputParams, CompletionStage<ToolRequestUserInputResponse>> handler) {
            return onServerRequest(ServerRequestMethods.ITEM_TOOL_REQUEST_USER_INPUT, handler);
        }

        /**
         * Answers MCP elicitations ({@code mcpServer/elicitation/request}); default: decline.
         *
         * @param handler called on a callback thread with each request's params; its stage is cancelled when the
         *                server withdraws the request, and a failed stage becomes a JSON-RPC error reply
         * @return this builder
         */
        public Builder onElicitation(Function<McpServerElicitationRequestParams,
                CompletionStage<McpServerElicitationRequestResponse>> handler) {
            return onServerRequest(ServerRequestMethods.MCP_SERVER_ELICITATION_REQUEST, handler);
        }

        /**
         * Supplies fresh ChatGPT tokens when codex's expire ({@code account/chatgptAuthTokens/refresh}). The access
         * tokens it returns are masked in logs like the first ones.
         *
         * @param handler called on a callback thread with each request's params; a failed stage becomes a JSON-RPC
         *                error reply
         * @return this builder
         */
        public Builder onChatgptTokenRefresh(Function<ChatgptAuthTokensRefreshParams,
                CompletionStage<ChatgptAuthTokensRefreshResponse>> handler) {
            Objects.requireNonNull(handler, "handler");
            return onServerRequest(ServerRequestMethods.ACCOUNT_CHATGPT_AUTH_TOKENS_REFRESH, p -> {
                CompletableFuture<ChatgptAuthTokensRefreshResponse> source = handler.apply(p).toCompletableFuture();
                return ServerRequestRouter.cancelsSource(source, source.thenApply(r -> {
                    if (r != null && r.accessToken() != null) {
                        // Bounded: a client refreshing for weeks keeps the latest tokens only.
                        redactor.registerRefreshed(r.accessToken());
                    }
                    return r;
                }));
            });
        }

        /**
         * Answers any server request of the protocol with a typed handler, e.g.
         * {@code onServerRequest(ServerRequestMethods.CURRENT_TIME_READ, p -> ...)}. The stage is cancelled when the
         * server withdraws the request; a failed stage becomes a JSON-RPC error reply. A later call for the same method
         * replaces the handler.
         *
         * @param <P>     the request's params type
         * @param <R>     the request's result type
         * @param method  the request method, from {@code ServerRequestMethods}
         * @param handler called on a callback thread with each request's params
         * @return this builder
         */
        public <P, R> Builder onServerRequest(MethodDescriptor<P, R> method,
                                              Function<? super P, ? extends CompletionStage<R>> handler) {
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(handler, "handler");
            kindApprovals.remove(method.method());
            handlers.put(method.method(), new ServerRequestRouter.Route<>(method, handler));
            return this;
        }

        /**
         * Answers a server request this SDK version does not know (a method newer than its schema), with raw JSON
         * params in and any JSON-serialisable result out. Unknown requests without a handler get a JSON-RPC
         * {@code -32601} (method not found) reply.
         *
         * @param method  the exact method name
         * @param handler called on a callback thread with the raw params; a failed stage becomes a JSON-RPC error reply
         * @return this builder
         */
        public Builder onUnknownServerRequest(String method, Function<JsonNode, CompletionStage<?>> handler) {
            rawHandlers.put(Objects.requireNonNull(method, "method"), Objects.requireNonNull(handler, "handler"));
            return this;
        }

        /**
         * Declares a dynamic tool: sent on every {@code thread/start}, called on {@code item/tool/call}. Dynamic tools
         * are experimental in codex: {@link #build()} requires {@link #experimentalApi(boolean) experimentalApi(true)}.
         *
         * @param tool the tool
         * @return this builder
         * @throws IllegalArgumentException when a tool of the same name was declared already
         */
        public Builder tool(DynamicTool tool) {
            Objects.requireNonNull(tool, "tool");
            if (tools.putIfAbsent(tool.name(), tool) != null) {
                throw new IllegalArgumentException("a tool named " + tool.name() + " is already registered");
            }
            return this;
        }

        /**
         * A listener for every notification, registered before the handshake so none is missed.
         *
         * @param listener called with each notification, in wire order per codex thread, on a callback thread
         * @return this builder
         */
        public Builder onNotification(Consumer<? super ServerNotification> listener) {
            Objects.requireNonNull(listener, "listener");
            listeners.add(listener::accept);
            return this;
        }

        /**
         * The listener told about this client's connection, requests, server requests, turns and recovery (see
         * {@link CodexEventListener} for when and on which thread). One per client; combine several with
         * {@link CodexEventListener#composite(CodexEventListener...)}. None by default, which costs nothing.
         *
         * @param listener the listener; a later call replaces it
         * @return this builder
         */
        public Builder eventListener(CodexEventListener listener) {
            this.eventListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * A secret (API key, token) to mask wherever the client logs or reports text. Keys given to {@link #apiKey} and
         * {@link #chatgptAuthTokens} are masked without it.
         *
         * @param secret the text to mask
         * @return this builder
         */
        public Builder secret(String secret) {
            redactor.register(Objects.requireNonNull(secret, "secret"));
            return this;
        }

        /**
         * Spawns the server (or opens the given transport), performs {@code initialize} / {@code initialized},
         * logs in when an API key was given, and returns the ready client.
         *
         * <p>When the handshake fails, the server is ended at once (a spawned one gets SIGTERM, and SIGKILL a second
         * later), without the graceful wait of {@link CodexClient#close()}: {@code build()} fails within the
         * {@link #initializeTimeout(Duration) initialize timeout} plus about a second.
         *
         * @return the connected, initialized client; close it when done
         * @throws CodexTransportException when the server cannot be started or ends during the handshake; for a
         *                                 server that exits, the message and {@code exitCode()} give its exit code
         *                                 and {@code stderrTail()} what it wrote last, however the end was noticed
         * @throws CodexTimeoutException   when the server does not answer {@code initialize} in time
         * @throws dev.codexclient.errors.CodexRpcException when the server rejects the handshake
         * @throws IllegalStateException   when settings contradict each other, e.g. {@link #transport(Transport)}
         *                                 with settings of the server the client would spawn
         */
        public CodexClient build() {
            if (!tools.isEmpty() && !experimentalApi) {
                throw new IllegalStateException("dynamic tools are an experimental codex API: call "
                        + "experimentalApi(true) on the builder to declare " + tools.keySet());
            }
            checkTransportSettings();
            boolean ownsExecutor = executor == null;
            ExecutorService callbacks = ownsExecutor
                    ? new CallbackPool() : executor;
            Transport t;
            try {
                t = transport != null ? transport.get() : stdio.build();
            } catch (RuntimeException e) {
                if (ownsExecutor) {
                    callbacks.shutdownNow();
                }
                throw e;
            }
            CodexClient client = new CodexClient(this, t, callbacks, ownsExecutor);
            try {
                client.initialize(this);
                return client;
            } catch (RuntimeException e) {
                // A server that failed its handshake has nothing left to finish: no graceful wait, so build()
                // fails within the initialize timeout plus the time it takes to end the process.
                client.closeWith(Duration.ZERO);
                throw e;
            }
        }

        /** Rejects settings that would be silently ignored. */
        private void checkTransportSettings() {
            if (restartPolicy != null && singleTransport) {
                throw new IllegalStateException("restartPolicy(...) replaces a lost connection with a new transport, "
                        + "but transport(...) gives one transport only: use transportFactory(...) instead");
            }
            if (transport != null && !stdioSettings.isEmpty()) {
                throw new IllegalStateException("transport(...) was given together with "
                        + String.join(", ", stdioSettings) + ", which configure the codex app-server the client "
                        + "would spawn itself; with a transport of your own they would be ignored. Configure that "
                        + "transport instead (e.g. StdioTransport.builder().codexHome(...)), or drop transport(...)");
            }
            if (stdioSettings.contains("codexBinary(...)") && stdioSettings.contains("command(...)")) {
                throw new IllegalStateException("codexBinary(...) and command(...) both name the program to spawn; "
                        + "use one of them (command(...) for a program with arguments of its own)");
            }
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive: " + d);
            }
            return d;
        }
    }
}

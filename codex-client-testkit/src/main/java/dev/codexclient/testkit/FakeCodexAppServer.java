package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.testkit.internal.fake.InMemoryLink;
import dev.codexclient.testkit.internal.fake.Json;
import dev.codexclient.testkit.internal.fake.RelayServer;
import dev.codexclient.testkit.internal.fake.ServerLink;
import dev.codexclient.testkit.internal.fake.WorkerGroup;
import dev.codexclient.transport.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A scriptable fake {@code codex app-server} for tests: script the answers, run the client, verify what it sent.
 * No model, no network, no codex binary.
 *
 * <pre>{@code
 * try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
 *     fake.onTurnStart(turn -> turn.agentMessage("Hello").tokenUsage(10, 2).completed());
 *     Transport transport = fake.connectInMemory();          // or: fake.childProcessCommand()
 *     ... run the client over the transport ...
 *     RecordedRequest start = fake.takeRequest("turn/start", Duration.ofSeconds(5));
 *     assertThat(start.params().path("threadId").asText()).isNotEmpty();
 * }
 * }</pre>
 *
 * <p>With no scripting at all the common flow works: {@code initialize} gets a realistic result, {@code thread/start},
 * {@code thread/resume}, {@code thread/fork}, {@code thread/list}, {@code thread/read}, {@code thread/name/set},
 * {@code thread/archive}, {@code thread/unarchive}, {@code thread/compact/start}, {@code thread/unsubscribe},
 * {@code turn/start}, {@code turn/steer} and {@code turn/interrupt} get schema-shaped answers, and each turn plays a short agent message
 * and completes. Requests before {@code initialize} get -32600 "Not initialized"; unknown methods get -32601.
 *
 * <p>Two ways to connect: {@link #connectInMemory()} hands out a {@link Transport}; {@link #childProcessCommand()}
 * gives a command for a real child process that relays its stdio to this fake, so a client's stdio transport is
 * tested for real. Every message the fake sends carries what codex sends (notifications have {@code emittedAtMs};
 * server-request ids are integers from 0 per connection).
 */
public final class FakeCodexAppServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FakeCodexAppServer.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /** Threads in one {@code thread/list} page when the request gives no {@code limit}. */
    private static final int DEFAULT_LIST_LIMIT = 25;
    private static final String LIST_CURSOR_PREFIX = "fake-cursor-";
    static final int OVERLOADED = -32001;
    static final String OVERLOADED_MESSAGE = "Server overloaded; retry later.";

    private final int instance = INSTANCES.incrementAndGet();
    /** The fake's threads, borrowed from a pool all fakes share: a test suite builds one fake per test. */
    private final WorkerGroup workers = new WorkerGroup();
    /** Handles the client's messages one at a time, in the order they came. */
    private final Executor dispatcher = workers.serial();
    /** Started with the first delayed answer only. */
    private final ScheduledExecutorService scheduler;
    private final ReplayScript replayScript;
    private final List<Stubbing> rules = new ArrayList<>();
    private final List<Session> sessions = new CopyOnWriteArrayList<>();
    // Synchronized lists, not copy-on-write: a long session records every message, and copying the whole list on
    // each one made a run of many thousand turns quadratic.
    private final List<JsonNode> received = java.util.Collections.synchronizedList(new ArrayList<>());
    private final List<JsonNode> sent = java.util.Collections.synchronizedList(new ArrayList<>());
    private final List<RecordedRequest> requests = new ArrayList<>();
    private final Map<String, Integer> methodCursors = new HashMap<>();
    private final LinkedBlockingQueue<RecordedRequest> requestQueue = new LinkedBlockingQueue<>();
    private final LinkedBlockingQueue<RecordedNotification> notificationQueue = new LinkedBlockingQueue<>();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final Map<String, ObjectNode> threads = new ConcurrentHashMap<>();
    private final Map<String, long[]> tokenTotals = new ConcurrentHashMap<>();
    private final Map<String, TurnContext> activeTurns = new ConcurrentHashMap<>();
    private final Deque<BiConsumer<RecordedRequest, TurnScript>> queuedTurns = new ArrayDeque<>();
    private final AtomicLong ids = new AtomicLong();
    private final Object stallLock = new Object();
    private final Object connectLock = new Object();
    private volatile BiConsumer<RecordedRequest, TurnScript> turnScript =
            (request, turn) -> turn.agentMessage("Done.").completed();
    private volatile JsonNode initializeResult = defaultInitializeResult();
    private volatile JsonNode clientCapabilities;
    private volatile JsonNode clientInfo;
    private volatile Duration serverRequestTimeout = Duration.ofSeconds(10);
    private volatile Duration replayStepTimeout = Duration.ofSeconds(10);
    private volatile boolean stalled;
    private volatile boolean neverCompleteNextTurn;
    private volatile boolean closed;
    private volatile RelayServer relay;
    private long receivedSequence;

    /** A fake with the built-in defaults. */
    public FakeCodexAppServer() {
        this(null);
    }

    private FakeCodexAppServer(ReplayScript replayScript) {
        this.replayScript = replayScript;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(daemon("codex-fake-scheduler-" + instance));
    }

    /**
     * A fake that plays the server side of a recorded session (a JSONL file written by {@link WireRecorder}):
     * each recorded client request is answered, once the client sends a request of the same method, with the
     * recorded response under the client's id; notifications and server requests are replayed in recorded order.
     * Divergences (the client never sends what the recording expects) are reported by {@link #failures()}.
     *
     * @param recording a JSONL file written by {@link WireRecorder}
     * @return a fake that replays the recording
     * @throws IOException when the recording cannot be read or is not a recording
     */
    public static FakeCodexAppServer replay(Path recording) throws IOException {
        return replay(recording, Duration.ofSeconds(10));
    }

    /**
     * Like {@link #replay(Path)}, waiting at most {@code stepTimeout} for each client request the recording needs
     * before reporting a divergence and stopping.
     *
     * @param recording a JSONL file written by {@link WireRecorder}
     * @param stepTimeout how long to wait for each client request the recording needs
     * @return a fake that replays the recording
     * @throws IOException when the recording cannot be read or is not a recording
     */
    public static FakeCodexAppServer replay(Path recording, Duration stepTimeout) throws IOException {
        FakeCodexAppServer fake = new FakeCodexAppServer(ReplayScript.load(recording));
        fake.replayStepTimeout = Objects.requireNonNull(stepTimeout, "stepTimeout");
        return fake;
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    // ---------------------------------------------------------------- connecting

    /**
     * A new in-memory connection to this fake; give the returned transport to the client under test.
     *
     * @return a transport for the client under test
     */
    public Transport connectInMemory() {
        ensureOpen();
        InMemoryLink link = InMemoryLink.create();
        attach(link);
        return link.clientTransport();
    }

    /**
     * A command line ({@code java -cp … RelayMain <port> <token>}) for the client to spawn with its ordinary stdio
     * transport. The child connects back to this fake over loopback TCP and relays its stdin and stdout, so the
     * client talks to a real process; it exits when its stdin closes or this fake closes.
     *
     * @return the command line, for {@code CodexClient.builder().command(...)}
     */
    public List<String> childProcessCommand() {
        ensureOpen();
        synchronized (connectLock) {
            if (relay == null) {
                relay = new RelayServer(this::attach);
            }
            return relay.command();
        }
    }

    /**
     * Waits until {@code count} connections (in-memory or child) have been made in total; useful in child mode,
     * where the child connects asynchronously.
     *
     * @param count how many connections, counted from the fake's start
     * @param timeout how long to wait at most
     * @throws AssertionError on timeout
     */
    public void awaitConnections(int count, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (connectLock) {
            while (sessions.size() < count) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new AssertionError("expected " + count + " connection(s) to the fake within " + timeout
                            + " but saw " + sessions.size());
                }
                if (!waitQuietly(connectLock, left)) {
                    throw new AssertionError("interrupted while waiting for a connection");
                }
            }
        }
    }

    /** {@return how many connections were made so far} */
    public int connectionCount() {
        return sessions.size();
    }

    private void attach(ServerLink link) {
        Session session = new Session(link, sessions.size() + 1);
        synchronized (connectLock) {
            sessions.add(session);
            connectLock.notifyAll();
        }
        if (replayScript != null) {
            session.replay = new ReplayDriver(this, session, replayScript, replayStepTimeout);
        }
        link.start(session);
        if (session.replay != null) {
            workers.execute(session.replay::run);
        }
        LOG.debug("client connected: {}", link.describe());
    }

    // ---------------------------------------------------------------- configuration

    /**
     * Replaces the result of {@code initialize}; any Jackson-serialisable value.
     *
     * @param result the result: any Jackson-serialisable value (a protocol record, a map, a JsonNode)
     * @return this fake, for chaining
     */
    public FakeCodexAppServer initializeResult(Object result) {
        this.initializeResult = Json.tree(result);
        return this;
    }

    /**
     * How long a scripted turn waits for the client to answer an approval or tool call (default 10 s).
     *
     * @param timeout how long to wait at most
     * @return this fake, for chaining
     */
    public FakeCodexAppServer serverRequestTimeout(Duration timeout) {
        this.serverRequestTimeout = Objects.requireNonNull(timeout, "timeout");
        return this;
    }

    Duration serverRequestTimeout() {
        return serverRequestTimeout;
    }

    /** {@return the {@code capabilities} the client sent with {@code initialize}, once it did} */
    public Optional<JsonNode> clientCapabilities() {
        return Optional.ofNullable(clientCapabilities).map(JsonNode::deepCopy);
    }

    /** {@return the {@code clientInfo} the client sent with {@code initialize}, once it did} */
    public Optional<JsonNode> clientInfo() {
        return Optional.ofNullable(clientInfo).map(JsonNode::deepCopy);
    }

    // ---------------------------------------------------------------- scripting

    /**
     * A rule for requests of {@code method}; finish it with one of the {@code respond…} methods.
     *
     * @param method the JSON-RPC method, e.g. {@code thread/start}
     * @return the rule, to finish with a {@code respond…} method
     */
    public Stubbing on(String method) {
        Objects.requireNonNull(method, "method");
        return new Stubbing(this, req -> req.method().equals(method), method);
    }

    /**
     * A rule for requests of {@code method} that also satisfy {@code condition}.
     *
     * @param method the JSON-RPC method, e.g. {@code thread/start}
     * @param condition selects the requests the rule applies to
     * @return the rule, to finish with a {@code respond…} method
     */
    public Stubbing on(String method, Predicate<RecordedRequest> condition) {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(condition, "condition");
        return new Stubbing(this, req -> req.method().equals(method) && condition.test(req), method + " (if …)");
    }

    /**
     * A rule for any request that satisfies {@code condition}.
     *
     * @param condition selects the requests the rule applies to
     * @return the rule, to finish with a {@code respond…} method
     */
    public Stubbing on(Predicate<RecordedRequest> condition) {
        Objects.requireNonNull(condition, "condition");
        return new Stubbing(this, condition, "predicate");
    }

    void addRule(Stubbing rule) {
        synchronized (rules) {
            rules.add(rule);
        }
    }

    private void addRuleFirst(Stubbing rule) {
        synchronized (rules) {
            rules.add(0, rule);
        }
    }

    /**
     * The turn every {@code turn/start} plays (unless {@link #enqueueTurn(Consumer)} queued a one-off).
     *
     * @param script scripts the turn's events and its ending
     * @return this fake, for chaining
     */
    public FakeCodexAppServer onTurnStart(Consumer<TurnScript> script) {
        Objects.requireNonNull(script, "script");
        return onTurnStart((request, turn) -> script.accept(turn));
    }

    /**
     * Like {@link #onTurnStart(Consumer)}, with the {@code turn/start} request at hand, so the turn can depend on
     * the input: {@code fake.onTurnStart((req, turn) -> turn.agentMessage("echo: " + text(req)))}.
     *
     * @param script scripts the turn's events and its ending
     * @return this fake, for chaining
     */
    public FakeCodexAppServer onTurnStart(BiConsumer<RecordedRequest, TurnScript> script) {
        this.turnScript = Objects.requireNonNull(script, "script");
        return this;
    }

    /**
     * A turn for the next {@code turn/start} only; queued turns are played in order before the default one.
     *
     * @param script scripts the turn's events and its ending
     * @return this fake, for chaining
     */
    public FakeCodexAppServer enqueueTurn(Consumer<TurnScript> script) {
        Objects.requireNonNull(script, "script");
        return enqueueTurn((request, turn) -> script.accept(turn));
    }

    /**
     * Like {@link #enqueueTurn(Consumer)}, with the {@code turn/start} request at hand.
     *
     * @param script scripts the turn's events and its ending
     * @return this fake, for chaining
     */
    public FakeCodexAppServer enqueueTurn(BiConsumer<RecordedRequest, TurnScript> script) {
        Objects.requireNonNull(script, "script");
        synchronized (queuedTurns) {
            queuedTurns.add(script);
        }
        return this;
    }

    /**
     * Sends a notification to the newest connection; {@code emittedAtMs} is added as codex does.
     *
     * @param method the JSON-RPC method, e.g. {@code thread/start}
     * @param params the params: any Jackson-serialisable value (a protocol record, a map, a JsonNode)
     */
    public void notify(String method, Object params) {
        emitOn(currentSession(), method, Json.tree(params));
    }

    /**
     * Sends a request to the client on the newest connection; ids are integers from 0 per connection.
     *
     * @param method the JSON-RPC method, e.g. {@code thread/start}
     * @param params the params: any Jackson-serialisable value (a protocol record, a map, a JsonNode)
     * @return the request, to await or check the client's reply
     */
    public PendingServerRequest sendRequest(String method, Object params) {
        return sendRequestOn(currentSession(), method, Json.tree(params));
    }

    /**
     * Sends a request with an id of your choice, e.g. a string id ({@code RequestId.of("req-7")}): the protocol allows
     * string ids and the client must answer with the same id and JSON type.
     *
     * @param id the request id to use; the client must answer with the same id and JSON type
     * @param method the JSON-RPC method, e.g. {@code thread/start}
     * @param params the params: any Jackson-serialisable value (a protocol record, a map, a JsonNode)
     * @return the request, to await or check the client's reply
     * @throws IllegalStateException when a request with this id is still waiting for the client's reply
     */
    public PendingServerRequest sendRequest(RequestId id, String method, Object params) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(method, "method");
        return sendRequestOn(currentSession(), id, method, Json.tree(params));
    }

    /**
     * Sends {@code item/commandExecution/requestApproval} for {@code command} with codex's usual decisions.
     *
     * @param threadId the thread the request belongs to
     * @param turnId the turn the request belongs to
     * @param command the command line to approve
     * @return the request, to await or check the client's reply
     */
    public PendingServerRequest requestCommandApproval(String threadId, String turnId, String command) {
        ObjectNode params = Json.object().put("threadId", threadId).put("turnId", turnId)
                .put("itemId", nextId("call")).put("startedAtMs", System.currentTimeMillis())
                .put("command", command).put("cwd", System.getProperty("user.dir"))
                .put("reason", "fake: command needs approval");
        ArrayNode decisions = params.putArray("availableDecisions");
        decisions.add("accept");
        decisions.addObject().putObject("acceptWithExecpolicyAmendment").putArray("execpolicy_amendment")
                .add(command.split(" ")[0]);
        decisions.add("cancel");
        return sendRequest("item/commandExecution/requestApproval", params);
    }

    /**
     * Sends {@code item/fileChange/requestApproval}.
     *
     * @param threadId the thread the request belongs to
     * @param turnId the turn the request belongs to
     * @param reason why the change needs approval; null for none
     * @return the request, to await or check the client's reply
     */
    public PendingServerRequest requestFileChangeApproval(String threadId, String turnId, String reason) {
        ObjectNode params = Json.object().put("threadId", threadId).put("turnId", turnId)
                .put("itemId", nextId("patch")).put("startedAtMs", System.currentTimeMillis())
                .put("reason", reason).putNull("grantRoot");
        return sendRequest("item/fileChange/requestApproval", params);
    }

    /**
     * Sends a dynamic tool call ({@code item/tool/call}); {@code arguments} is any value.
     *
     * @param threadId the thread the request belongs to
     * @param turnId the turn the request belongs to
     * @param tool the dynamic tool's name
     * @param arguments the tool's arguments: any Jackson-serialisable value
     * @return the request, to await or check the client's reply
     */
    public PendingServerRequest requestToolCall(String threadId, String turnId, String tool, Object arguments) {
        ObjectNode params = Json.object().put("threadId", threadId).put("turnId", turnId)
                .put("callId", nextId("call")).put("tool", tool).putNull("namespace");
        params.set("arguments", Json.tree(arguments));
        return sendRequest("item/tool/call", params);
    }

    /**
     * Sends {@code item/tool/requestUserInput} with one free-text question.
     *
     * @param threadId the thread the request belongs to
     * @param turnId the turn the request belongs to
     * @param questionId the id of the question, echoed in the answer
     * @param question the question's text
     * @return the request, to await or check the client's reply
     */
    public PendingServerRequest requestUserInput(String threadId, String turnId, String questionId,
                                                 String question) {
        ObjectNode params = Json.object().put("threadId", threadId).put("turnId", turnId)
                .put("itemId", nextId("input")).put("isBlocking", true);
        params.putArray("questions").addObject().put("id", questionId).put("header", "Question")
                .put("question", question).put("isOther", false).put("isSecret", false).putNull("options");
        return sendRequest("item/tool/requestUserInput", params);
    }

    /**
     * Sends {@code mcpServer/elicitation/request} in {@code form} mode with {@code requestedSchema}.
     *
     * @param threadId the thread the request belongs to
     * @param serverName the name of the MCP server asking
     * @param message the message shown to the user
     * @param requestedSchema the JSON schema of the form the user is asked to fill in: any Jackson-serialisable value
     * @return the request, to await or check the client's reply
     */
    public PendingServerRequest requestElicitation(String threadId, String serverName, String message,
                                                   Object requestedSchema) {
        ObjectNode params = Json.object().put("threadId", threadId).putNull("turnId").put("serverName", serverName)
                .put("mode", "form").put("message", message);
        params.set("requestedSchema", Json.tree(requestedSchema));
        return sendRequest("mcpServer/elicitation/request", params);
    }

    /**
     * Sends {@code account/chatgptAuthTokens/refresh} with reason {@code unauthorized}.
     *
     * @return the request, to await or check the client's reply
     */
    public PendingServerRequest requestChatgptTokenRefresh() {
        ObjectNode params = Json.object().put("reason", "unauthorized").putNull("previousAccountId");
        return sendRequest("account/chatgptAuthTokens/refresh", params);
    }

    // ---------------------------------------------------------------- faults

    /**
     * Applies a fault now, on the newest connection (rules-type faults need no connection).
     *
     * @param fault the fault to apply
     */
    public void apply(Fault fault) {
        Objects.requireNonNull(fault, "fault");
        if (fault instanceof Fault.Overloaded o) {
            Stubbing rule = new Stubbing(this, req -> req.method().equals(o.method()), "overloaded " + o.method());
            rule.times(o.times());
            Reply reply = Reply.error(OVERLOADED, OVERLOADED_MESSAGE);
            rule.action = req -> reply;
            addRuleFirst(rule);
        } else if (fault instanceof Fault.Stall) {
            stalled = true;
        } else if (fault instanceof Fault.NeverCompleteTurn) {
            neverCompleteNextTurn = true;
        } else {
            applyOn(currentSession(), fault);
        }
    }

    /**
     * Applies {@code fault} instead of answering the next client request, whatever its method (like
     * MockWebServer's enqueued failure responses). Enqueued faults are used in order and before any other rule.
     *
     * @param fault the fault to apply
     * @return this fake, for chaining
     */
    public FakeCodexAppServer enqueueFault(Fault fault) {
        Objects.requireNonNull(fault, "fault");
        Stubbing rule = new Stubbing(this, req -> true, "enqueued " + fault);
        rule.times(1);
        rule.action = req -> fault;
        synchronized (rules) {
            int position = 0;
            while (position < rules.size() && rules.get(position).description.startsWith("enqueued ")) {
                position++;
            }
            rules.add(position, rule);
        }
        return this;
    }

    /** Ends a {@link Fault#stall()}: requests recorded while stalled stay unanswered; new ones are answered. */
    public void resume() {
        synchronized (stallLock) {
            stalled = false;
            stallLock.notifyAll();
        }
    }

    private void applyOn(Session session, Fault fault) {
        ServerLink link = session.link;
        if (fault instanceof Fault.CloseStdout) {
            link.closeStdout();
        } else if (fault instanceof Fault.Exit e) {
            session.closed = true;
            link.exit(e.code());
        } else if (fault instanceof Fault.GarbageLine g) {
            writeRaw(session, (g.text() + "\n").getBytes(StandardCharsets.UTF_8));
        } else if (fault instanceof Fault.SlowFragments f) {
            slowFragments(session, f);
        } else if (fault instanceof Fault.HugeLine h) {
            String filler = "x".repeat(Math.max(1, h.bytes() - 100));
            emitOn(session, "warning", Json.object().putNull("threadId").put("message", filler));
        } else if (fault instanceof Fault.FloodStderr f) {
            link.floodStderr(f.bytes());
        } else if (fault instanceof Fault.Hang) {
            link.ignoreStdinEof();
            apply(Fault.stall());
        } else if (fault instanceof Fault.Stderr e) {
            link.writeStderr(e.text().getBytes(StandardCharsets.UTF_8));
        } else if (fault instanceof Fault.UnknownNotification u) {
            emitOn(session, u.method(), Json.object().put("note", "not part of the protocol"));
        } else if (fault instanceof Fault.UnknownServerRequest u) {
            sendRequestOn(session, u.method(), Json.object().put("note", "not part of the protocol"));
        } else if (fault instanceof Fault.ResponseWithUnknownId r) {
            ObjectNode msg = Json.object().put("id", r.id());
            msg.putObject("result");
            write(session, msg);
        } else {
            apply(fault);
        }
    }

    private void slowFragments(Session session, Fault.SlowFragments f) {
        ObjectNode msg = notification("warning", Json.object().putNull("threadId").put("message", f.message()));
        byte[] line = (msg.toString() + "\n").getBytes(StandardCharsets.UTF_8);
        TreeSet<Integer> cuts = new TreeSet<>();
        for (int i = f.fragmentBytes(); i < line.length; i += f.fragmentBytes()) {
            cuts.add(i);
        }
        for (int i = 0; i < line.length; i++) {
            if ((line[i] & 0xC0) == 0x80) {
                cuts.add(i); // inside a multi-byte character, whatever the fragment size
                break;
            }
        }
        synchronized (session.writeLock) {
            int start = 0;
            cuts.add(line.length);
            for (int cut : cuts) {
                byte[] part = new byte[cut - start];
                System.arraycopy(line, start, part, 0, part.length);
                session.link.writeRaw(part);
                start = cut;
                if (cut < line.length) {
                    sleep(f.pause());
                }
            }
            sent.add(msg);
        }
    }

    // ---------------------------------------------------------------- verification

    /**
     * The next client request in arrival order (including {@code initialize}).
     *
     * @param timeout how long to wait at most
     * @return the request
     * @throws AssertionError when none arrives within {@code timeout}
     */
    public RecordedRequest takeRequest(Duration timeout) {
        return pollRequest(timeout).orElseThrow(() -> new AssertionError("no client request within " + timeout
                + "; received so far: " + methodsReceived()));
    }

    /**
     * The next client request in arrival order, if one arrives within {@code timeout}.
     *
     * @param timeout how long to wait at most
     * @return the request, or empty if none arrived in time
     */
    public Optional<RecordedRequest> pollRequest(Duration timeout) {
        return Optional.ofNullable(poll(requestQueue, timeout));
    }

    /**
     * The next request of {@code method} not yet taken by this method (a per-method cursor, independent of
     * {@link #takeRequest(Duration)}).
     *
     * @param method the JSON-RPC method, e.g. {@code thread/start}
     * @param timeout how long to wait at most
     * @return the request
     * @throws AssertionError when none arrives within {@code timeout}
     */
    public RecordedRequest takeRequest(String method, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (requests) {
            while (true) {
                int from = methodCursors.getOrDefault(method, 0);
                for (int i = from; i < requests.size(); i++) {
                    if (requests.get(i).method().equals(method)) {
                        methodCursors.put(method, i + 1);
                        return requests.get(i);
                    }
                }
                methodCursors.put(method, requests.size());
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new AssertionError("no " + method + " request within " + timeout
                            + "; received so far: " + methodsReceived());
                }
                if (!waitQuietly(requests, left)) {
                    throw new AssertionError("interrupted while waiting for a " + method + " request");
                }
            }
        }
    }

    /**
     * The next client notification (e.g. {@code initialized}) in arrival order.
     *
     * @param timeout how long to wait at most
     * @return the notification
     * @throws AssertionError when none arrives within {@code timeout}
     */
    public RecordedNotification takeNotification(Duration timeout) {
        RecordedNotification n = poll(notificationQueue, timeout);
        if (n == null) {
            throw new AssertionError("no client notification within " + timeout);
        }
        return n;
    }

    /** {@return how many requests the client sent so far} */
    public int requestCount() {
        synchronized (requests) {
            return requests.size();
        }
    }

    /** {@return every request the client sent, in order} */
    public List<RecordedRequest> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    /**
     * {@return every message the client sent, in order: requests, notifications, responses; a line that was not JSON is
     * kept as a text node}
     */
    public List<JsonNode> receivedMessages() {
        synchronized (received) {
            return received.stream().<JsonNode>map(JsonNode::deepCopy).toList();
        }
    }

    /** {@return every message the fake wrote as JSON, in order (garbage and raw fault bytes excluded)} */
    public List<JsonNode> sentMessages() {
        synchronized (sent) {
            return sent.stream().<JsonNode>map(JsonNode::deepCopy).toList();
        }
    }

    /** {@return thread ids handed out or resumed, in creation order} */
    public List<String> threadIds() {
        return List.copyOf(threads.keySet().stream().sorted((a, b) -> Long.compare(
                threads.get(a).path("createdSeq").asLong(), threads.get(b).path("createdSeq").asLong())).toList());
    }

    /**
     * {@return problems seen while serving: assertion failures thrown by reply callbacks of scripted turns, exceptions
     * from {@link Stubbing#respondWith} functions, unanswered approvals, replay divergences}
     */
    public List<Throwable> failures() {
        return List.copyOf(failures);
    }

    /** Throws the first of {@link #failures()} (others attached as suppressed), if any. */
    public void verifyNoFailures() {
        if (failures.isEmpty()) {
            return;
        }
        AssertionError error = new AssertionError("the fake codex app-server saw " + failures.size()
                + " failure(s); first: " + failures.get(0), failures.get(0));
        failures.stream().skip(1).forEach(error::addSuppressed);
        throw error;
    }

    void recordFailure(Throwable t) {
        LOG.debug("fake failure recorded", t);
        failures.add(t);
    }

    private static <T> T poll(LinkedBlockingQueue<T> queue, Duration timeout) {
        try {
            return queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for a client message", e);
        }
    }

    private String methodsReceived() {
        synchronized (requests) {
            return requests.stream().map(RecordedRequest::method).toList().toString();
        }
    }

    // ---------------------------------------------------------------- lifecycle

    /** Ends every connection (children are told to exit with 0), stops every thread this fake started. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        resume();
        for (Session s : sessions) {
            s.closed = true;
            s.link.exit(0);
            s.pending.values().forEach(p -> p.reply.completeExceptionally(
                    new IllegalStateException("the fake codex app-server closed")));
        }
        RelayServer r = relay;
        if (r != null) {
            r.close();
        }
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

    boolean isClosed() {
        return closed;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the fake codex app-server is closed");
        }
    }


    // ---------------------------------------------------------------- wire

    Session currentSession() {
        ensureOpen();
        if (sessions.isEmpty()) {
            throw new IllegalStateException("no client is connected to the fake yet");
        }
        return sessions.get(sessions.size() - 1);
    }

    static ObjectNode notification(String method, JsonNode params) {
        ObjectNode msg = Json.object().put("method", method);
        if (params != null && !params.isMissingNode()) {
            msg.set("params", params);
        }
        msg.put("emittedAtMs", System.currentTimeMillis());
        return msg;
    }

    void emitOn(Session session, String method, JsonNode params) {
        write(session, notification(method, params));
    }

    void write(Session session, ObjectNode message) {
        byte[] bytes = Json.bytes(message);
        synchronized (session.writeLock) {
            session.link.writeLine(bytes);
            sent.add(message);
        }
    }

    void writeRaw(Session session, byte[] bytes) {
        synchronized (session.writeLock) {
            session.link.writeRaw(bytes);
        }
    }

    PendingServerRequest sendRequestOn(Session session, String method, JsonNode params) {
        return sendRequestOn(session, RequestId.of(session.nextServerRequestId.getAndIncrement()), method, params);
    }

    private PendingServerRequest sendRequestOn(Session session, RequestId id, String method, JsonNode params) {
        PendingServerRequest pending = new PendingServerRequest(this, id, method,
                params == null ? Json.object() : params);
        if (session.closed) {
            pending.reply.completeExceptionally(new IllegalStateException("the client is disconnected"));
            return pending;
        }
        if (session.pending.putIfAbsent(id, pending) != null) {
            throw new IllegalStateException("server request " + id + " is still pending");
        }
        ObjectNode msg = Json.object();
        msg.set("id", Json.tree(id));
        msg.put("method", method);
        msg.set("params", pending.params());
        write(session, msg);
        return pending;
    }

    void emitResolved(String threadId, RequestId id) {
        ObjectNode params = Json.object().put("threadId", threadId);
        params.set("requestId", Json.tree(id));
        notify("serverRequest/resolved", params);
    }

    private void respond(Session session, RecordedRequest request, Reply reply) {
        ObjectNode msg = Json.object();
        msg.set("id", Json.tree(request.id()));
        if (reply instanceof Reply.Result r) {
            msg.set("result", r.value().deepCopy());
            if (request.method().equals("initialize")) {
                session.initialized = true;
            }
        } else {
            Reply.Error e = (Reply.Error) reply;
            ObjectNode error = msg.putObject("error").put("code", e.code()).put("message", e.message());
            e.data().ifPresent(d -> error.set("data", d.deepCopy()));
        }
        if (!session.closed) {
            write(session, msg);
        }
    }

    // ---------------------------------------------------------------- inbound

    /** One client connection and its protocol state. */
    final class Session implements ServerLink.Listener {
        final ServerLink link;
        final int number;
        final Object writeLock = new Object();
        final AtomicLong nextServerRequestId = new AtomicLong();
        final Map<RequestId, PendingServerRequest> pending = new ConcurrentHashMap<>();
        volatile boolean initialized;
        volatile boolean closed;
        ReplayDriver replay;

        Session(ServerLink link, int number) {
            this.link = link;
            this.number = number;
        }

        @Override
        public void onClientLine(byte[] line) {
            execute(() -> handleLine(this, line));
        }

        @Override
        public void onClientClosed() {
            execute(() -> {
                closed = true;
                pending.values().forEach(p -> p.reply.completeExceptionally(
                        new IllegalStateException("the client disconnected")));
                pending.clear();
                if (replay != null) {
                    replay.onClientClosed();
                }
                LOG.debug("client closed connection {}", link.describe());
            });
        }
    }

    private void execute(Runnable task) {
        try {
            dispatcher.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    recordFailure(e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("fake closed; dropping a client message");
        }
    }

    private void handleLine(Session session, byte[] line) {
        long sequence = receivedSequence++;
        JsonNode msg;
        try {
            msg = Json.parse(line);
        } catch (IOException e) {
            received.add(TextNode.valueOf(new String(line, StandardCharsets.UTF_8)));
            LOG.warn("client sent a line that is not JSON ({} bytes)", line.length);
            return;
        }
        received.add(msg);
        if (!msg.isObject()) {
            LOG.warn("client sent a JSON value that is not an object");
            return;
        }
        JsonNode id = msg.get("id");
        boolean hasId = id != null && !id.isNull();
        JsonNode method = msg.get("method");
        if (method != null && method.isTextual() && hasId) {
            RecordedRequest request = new RecordedRequest(requestId(id), method.asText(), msg.get("params"), msg,
                    sequence);
            synchronized (requests) {
                requests.add(request);
                requests.notifyAll();
            }
            requestQueue.add(request);
            if (request.method().equals("initialize")) {
                clientInfo = request.params().get("clientInfo");
                clientCapabilities = request.params().get("capabilities");
            }
            if (session.replay != null) {
                session.replay.onClientRequest(request);
            } else if (!stalled) {
                answer(session, request);
            }
        } else if (method != null && method.isTextual()) {
            RecordedNotification n = new RecordedNotification(method.asText(), msg.get("params"), msg, sequence);
            notificationQueue.add(n);
            if (session.replay != null) {
                session.replay.onClientNotification(n);
            }
        } else if (hasId && (msg.has("result") || msg.has("error"))) {
            RequestId rid = requestId(id);
            PendingServerRequest p = session.pending.remove(rid);
            if (p != null) {
                p.reply.complete(new ClientReply(rid, msg));
            } else {
                LOG.warn("client answered server request {} which is not pending", rid);
            }
            if (session.replay != null) {
                session.replay.onClientResponse(rid);
            }
        } else {
            LOG.warn("client sent a message that is neither request, notification nor response");
        }
    }

    private static RequestId requestId(JsonNode id) {
        if (id.isIntegralNumber()) {
            return RequestId.of(id.asLong());
        }
        return RequestId.of(id.isTextual() ? id.asText() : id.toString());
    }

    private void answer(Session session, RecordedRequest request) {
        boolean isInitialize = request.method().equals("initialize");
        if (!isInitialize && !session.initialized) {
            respond(session, request, Reply.error(-32600, "Not initialized"));
            return;
        }
        if (isInitialize && session.initialized) {
            respond(session, request, Reply.error(-32600, "Already initialized"));
            return;
        }
        Stubbing rule = null;
        synchronized (rules) {
            for (Stubbing candidate : rules) {
                if (candidate.remaining != 0 && matches(candidate, request)) {
                    if (candidate.remaining > 0) {
                        candidate.remaining--;
                    }
                    rule = candidate;
                    break;
                }
            }
        }
        if (rule == null) {
            defaultAnswer(session, request);
            return;
        }
        Object outcome;
        try {
            outcome = rule.action.apply(request);
        } catch (Throwable t) {
            recordFailure(t);
            outcome = Reply.error(-32603, "fake: scripted answer failed: " + t);
        }
        Object result = outcome;
        if (rule.delay.isZero()) {
            deliver(session, request, result);
        } else {
            try {
                scheduler.schedule(() -> execute(() -> deliver(session, request, result)),
                        rule.delay.toNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                LOG.debug("fake closed before a delayed answer");
            }
        }
    }

    private boolean matches(Stubbing rule, RecordedRequest request) {
        try {
            return rule.matcher.test(request);
        } catch (RuntimeException e) {
            recordFailure(e);
            return false;
        }
    }

    private void deliver(Session session, RecordedRequest request, Object outcome) {
        if (outcome == Stubbing.Special.DEFAULT) {
            defaultAnswer(session, request);
        } else if (outcome == Stubbing.Special.NO_REPLY) {
            LOG.debug("not answering {} as scripted", request);
        } else if (outcome instanceof Fault fault) {
            applyOn(session, fault);
        } else if (outcome instanceof Reply reply) {
            respond(session, request, reply);
        } else {
            respond(session, request, Reply.result(outcome));
        }
    }

    // ---------------------------------------------------------------- built-in answers

    private void defaultAnswer(Session session, RecordedRequest request) {
        JsonNode params = request.params();
        switch (request.method()) {
            case "initialize" -> respond(session, request, new Reply.Result(initializeResult.deepCopy()));
            case "thread/start" -> {
                ObjectNode thread = newThread(UUIDs.next(), params);
                respond(session, request, Reply.result(threadResponse(thread, params)));
                ObjectNode started = Json.object();
                started.set("thread", thread.deepCopy());
                emitOn(session, "thread/started", started);
            }
            case "thread/resume" -> {
                String threadId = params.path("threadId").asText("");
                ObjectNode thread = threads.containsKey(threadId) ? publicThread(threads.get(threadId))
                        : newThread(threadId, params);
                respond(session, request, Reply.result(threadResponse(thread, params)));
            }
            case "thread/fork" -> {
                ObjectNode thread = newThread(UUIDs.next(), params);
                thread.put("forkedFromId", params.path("threadId").asText(""));
                threads.get(thread.get("id").asText()).put("forkedFromId", params.path("threadId").asText(""));
                respond(session, request, Reply.result(threadResponse(thread, params)));
                ObjectNode started = Json.object();
                started.set("thread", thread.deepCopy());
                emitOn(session, "thread/started", started);
            }
            case "thread/list" -> listThreads(session, request);
            case "thread/archive" -> withThread(session, request, stored -> {
                stored.put("archived", true);
                respond(session, request, Reply.result(Json.object()));
            });
            case "thread/unarchive" -> withThread(session, request, stored -> {
                stored.remove("archived");
                respond(session, request, Reply.result(Json.object().set("thread", publicThread(stored))));
            });
            case "thread/read" -> withThread(session, request, stored -> {
                ObjectNode thread = publicThread(stored);
                if (!params.path("includeTurns").asBoolean(false)) {
                    thread.putArray("turns");   // as codex does: turns only when asked for
                }
                respond(session, request, Reply.result(Json.object().set("thread", thread)));
            });
            case "thread/name/set" -> withThread(session, request, stored -> {
                String name = params.path("name").asText("");
                stored.put("name", name);
                respond(session, request, Reply.result(Json.object()));
                emitOn(session, "thread/name/updated", Json.object().put("threadId", stored.get("id").asText())
                        .put("threadName", name));
            });
            case "thread/compact/start" -> withThread(session, request, stored ->
                    respond(session, request, Reply.result(Json.object())));
            case "thread/unsubscribe" -> {
                boolean known = threads.containsKey(params.path("threadId").asText(""));
                respond(session, request, Reply.result(Json.object().put("status",
                        known ? "unsubscribed" : "notLoaded")));
            }
            case "turn/start" -> startTurn(session, request);
            case "turn/interrupt" -> {
                respond(session, request, Reply.result(Json.object()));
                TurnContext turn = activeTurns.get(params.path("turnId").asText(""));
                if (turn != null) {
                    turn.interruptRequested = true;
                }
            }
            case "turn/steer" -> {
                String expected = params.path("expectedTurnId").asText("");
                TurnContext turn = activeTurns.get(expected);
                if (turn == null) {
                    respond(session, request, Reply.error(-32600, "no active turn " + expected + " to steer"));
                } else {
                    respond(session, request, Reply.result(Json.object().put("turnId", expected)));
                }
            }
            default -> respond(session, request, Reply.error(-32601, "Method not found: " + request.method()));
        }
    }

    /**
     * {@code thread/list} as codex answers it: newest first by default ({@code sortKey} {@code created_at} or
     * {@code updated_at}, {@code sortDirection}), {@code limit} threads a page with an opaque {@code nextCursor} for
     * the next one, and no turns in the listed threads.
     */
    private void listThreads(Session session, RecordedRequest request) {
        JsonNode params = request.params();
        boolean archived = params.path("archived").asBoolean(false);
        String sortField = "updated_at".equals(params.path("sortKey").asText()) ? "updatedAt" : "createdAt";
        Comparator<ObjectNode> order = Comparator.<ObjectNode>comparingLong(t -> t.path(sortField).asLong())
                .thenComparingLong(t -> t.path("createdSeq").asLong());
        if (!"asc".equals(params.path("sortDirection").asText())) {
            order = order.reversed();
        }
        List<ObjectNode> matching = new ArrayList<>();
        for (String id : threadIds()) {
            ObjectNode stored = threads.get(id);
            if (stored.path("archived").asBoolean(false) == archived) {
                matching.add(stored);
            }
        }
        matching.sort(order);
        int offset = 0;
        String cursor = params.path("cursor").asText("");
        if (!cursor.isEmpty()) {
            if (!cursor.matches(LIST_CURSOR_PREFIX + "[0-9]{1,9}")) {
                respond(session, request, Reply.error(-32600, "invalid cursor: " + cursor));
                return;
            }
            offset = Math.min(Integer.parseInt(cursor.substring(LIST_CURSOR_PREFIX.length())), matching.size());
        }
        long requested = params.path("limit").asLong(0);
        int limit = requested > 0 ? (int) Math.min(requested, DEFAULT_LIST_LIMIT * 4L) : DEFAULT_LIST_LIMIT;
        int end = Math.min(offset + limit, matching.size());
        ObjectNode result = Json.object();
        ArrayNode data = result.putArray("data");
        for (ObjectNode stored : matching.subList(offset, end)) {
            ObjectNode thread = publicThread(stored);
            thread.putArray("turns");
            data.add(thread);
        }
        if (end < matching.size()) {
            result.put("nextCursor", LIST_CURSOR_PREFIX + end);
        } else {
            result.putNull("nextCursor");
        }
        result.putNull("backwardsCursor");
        respond(session, request, Reply.result(result));
    }

    /**
     * Keeps an ended turn in its thread, as codex keeps it in the thread's history: {@code thread/read} with
     * {@code includeTurns} returns it, and the thread's preview and {@code updatedAt} follow it.
     */
    void turnEnded(String threadId, ObjectNode turn, String userText) {
        ObjectNode stored = threads.get(threadId);
        if (stored == null) {
            return;
        }
        synchronized (stored) {
            if (stored.get("turns") instanceof ArrayNode turns) {
                turns.add(turn.deepCopy());
            }
            stored.put("updatedAt", Instant.now().getEpochSecond());
            if (stored.path("preview").asText("").isEmpty() && !userText.isEmpty()) {
                stored.put("preview", userText);
            }
        }
    }

    /** Runs {@code action} with the stored thread the request names, or answers that there is no such thread. */
    private void withThread(Session session, RecordedRequest request, Consumer<ObjectNode> action) {
        String threadId = request.params().path("threadId").asText("");
        ObjectNode stored = threads.get(threadId);
        if (stored == null) {
            respond(session, request, Reply.error(-32600, "thread not found: " + threadId));
            return;
        }
        action.accept(stored);
    }

    private void startTurn(Session session, RecordedRequest request) {
        JsonNode params = request.params();
        String threadId = params.path("threadId").asText("");
        ObjectNode thread = threads.get(threadId);
        if (thread == null) {
            respond(session, request, Reply.error(-32600, "thread not found: " + threadId));
            return;
        }
        BiConsumer<RecordedRequest, TurnScript> configure;
        synchronized (queuedTurns) {
            configure = queuedTurns.isEmpty() ? turnScript : queuedTurns.poll();
        }
        TurnScript script = new TurnScript();
        try {
            configure.accept(request, script);
        } catch (RuntimeException e) {
            recordFailure(e);
            respond(session, request, Reply.error(-32603, "fake: turn script failed: " + e));
            return;
        }
        if (neverCompleteNextTurn) {
            neverCompleteNextTurn = false;
            script.neverComplete();
        }
        String turnId = nextId("turn");
        TurnContext turn = new TurnContext(this, session, threadId, turnId, thread.path("cwd").asText(),
                params.path("input"));
        activeTurns.put(turnId, turn);
        respond(session, request, Reply.result(Json.object().set("turn", turn.turnNode("inProgress", null,
                false))));
        try {
            workers.execute(() -> {
                try {
                    turn.play(script);
                } catch (TurnContext.Stop ignored) {
                    // closed while playing
                } finally {
                    activeTurns.remove(turnId);
                }
            });
        } catch (RejectedExecutionException e) {
            activeTurns.remove(turnId);
        }
    }

    private ObjectNode newThread(String id, JsonNode params) {
        long now = Instant.now().getEpochSecond();
        String cwd = params.path("cwd").isTextual() ? params.path("cwd").asText() : System.getProperty("user.dir");
        ObjectNode thread = Json.object().put("id", id).put("sessionId", id).putNull("forkedFromId")
                .put("preview", "").put("ephemeral", params.path("ephemeral").asBoolean(false))
                .put("modelProvider", "openai").put("createdAt", now).put("updatedAt", now);
        thread.putObject("status").put("type", "idle");
        thread.putNull("path");
        thread.put("cwd", cwd).put("cliVersion", "0.169.0").put("source", "appServer").putNull("agentNickname")
                .putNull("agentRole").putNull("gitInfo").putNull("name").putNull("projectId");
        thread.putArray("turns");
        ObjectNode stored = thread.deepCopy();
        stored.put("createdSeq", ids.incrementAndGet());
        threads.put(id, stored);
        return thread;
    }

    private static ObjectNode publicThread(ObjectNode stored) {
        ObjectNode copy;
        synchronized (stored) {
            copy = stored.deepCopy();
        }
        copy.remove("createdSeq");
        copy.remove("archived");
        return copy;
    }

    private static ObjectNode threadResponse(ObjectNode thread, JsonNode params) {
        String cwd = thread.path("cwd").asText();
        ObjectNode result = Json.object();
        result.set("thread", thread.deepCopy());
        result.put("model", params.path("model").isTextual() ? params.path("model").asText() : "gpt-5.1-codex");
        result.put("modelProvider", "openai").putNull("serviceTier").put("cwd", cwd);
        result.putArray("instructionSources");
        result.set("approvalPolicy", params.path("approvalPolicy").isMissingNode()
                || params.path("approvalPolicy").isNull()
                ? TextNode.valueOf("on-request") : params.get("approvalPolicy").deepCopy());
        result.put("approvalsReviewer", "user");
        String mode = params.path("sandbox").asText("workspace-write");
        ObjectNode sandbox = result.putObject("sandbox");
        switch (mode) {
            case "danger-full-access" -> sandbox.put("type", "dangerFullAccess");
            case "read-only" -> sandbox.put("type", "readOnly").put("networkAccess", false);
            default -> {
                sandbox.put("type", "workspaceWrite");
                sandbox.putArray("writableRoots").add(cwd);
                sandbox.put("networkAccess", false).put("excludeTmpdirEnvVar", false).put("excludeSlashTmp", false);
            }
        }
        result.putNull("reasoningEffort");
        return result;
    }

    private static JsonNode defaultInitializeResult() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String platformOs = os.contains("mac") ? "macos" : os.contains("win") ? "windows" : "linux";
        String family = platformOs.equals("windows") ? "windows" : "unix";
        String home = Path.of(System.getProperty("java.io.tmpdir"), "codex-fake-home").toAbsolutePath().toString();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("userAgent", "codex_fake/0.169.0 (" + platformOs + "; " + System.getProperty("os.arch")
                + ") codex-client-testkit");
        result.put("codexHome", home);
        result.put("platformFamily", family);
        result.put("platformOs", platformOs);
        return Json.tree(result);
    }

    long[] addTokenUsage(String threadId, long input, long cached, long output, long reasoning) {
        long[] total = tokenTotals.computeIfAbsent(threadId, k -> new long[4]);
        synchronized (total) {
            total[0] += input;
            total[1] += cached;
            total[2] += output;
            total[3] += reasoning;
            return total.clone();
        }
    }

    String nextId(String prefix) {
        return prefix + "-" + ids.incrementAndGet();
    }

    void awaitNotStalled(BooleanSupplier giveUp) {
        synchronized (stallLock) {
            while (stalled && !giveUp.getAsBoolean()) {
                if (!waitQuietly(stallLock, 20)) {
                    throw new TurnContext.Stop();
                }
            }
        }
    }

    /** Waits on {@code monitor}; false when interrupted (the flag is restored). */
    private static boolean waitQuietly(Object monitor, long millis) {
        try {
            monitor.wait(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Random UUIDs, like the thread ids codex hands out. */
    private static final class UUIDs {
        static String next() {
            return java.util.UUID.randomUUID().toString();
        }
    }
}

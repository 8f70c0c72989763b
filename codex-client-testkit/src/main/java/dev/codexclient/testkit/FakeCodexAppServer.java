package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.testkit.internal.fake.Connection;
import dev.codexclient.testkit.internal.fake.Json;
import dev.codexclient.transport.Transport;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Predicate;

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
 * {@code turn/start}, {@code turn/steer} and {@code turn/interrupt} get schema-shaped answers, and each turn plays a
 * short agent message and completes. Requests before {@code initialize} get -32600 "Not initialized"; unknown methods
 * get -32601.
 *
 * <p>Two ways to connect: {@link #connectInMemory()} hands out a {@link Transport}; {@link #childProcessCommand()}
 * gives a command for a real child process that relays its stdio to this fake, so a client's stdio transport is
 * tested for real. Every message the fake sends carries what codex sends (notifications have {@code emittedAtMs};
 * server-request ids are integers from 0 per connection). The fake keeps no reference to a connection that ended,
 * so a closed client can be collected while the fake lives on.
 *
 * <p>By default the fake records all traffic for the verification methods; a long or heavy test can keep only the
 * newest messages or nothing: {@code FakeCodexAppServer.builder().recording(Recording.off()).build()} (see
 * {@link Recording}).
 */
public final class FakeCodexAppServer implements AutoCloseable {
    private final FakeContext fake;
    private final TurnPlayer turns;
    private final FaultInjector faults;
    private final RequestAnswerer answerer;
    private final FakeConnections connections;

    /** A fake with the built-in defaults, recording everything. */
    public FakeCodexAppServer() {
        this(Recording.all(), null, Duration.ofSeconds(10));
    }

    private FakeCodexAppServer(Recording recording, ReplayScript replayScript, Duration replayStepTimeout) {
        this.fake = new FakeContext(recording);
        this.turns = new TurnPlayer(fake);
        this.faults = new FaultInjector(fake, turns);
        this.answerer = new RequestAnswerer(fake, turns, faults);
        faults.bind(this, answerer);
        this.connections = new FakeConnections(fake, answerer, replayScript, replayStepTimeout);
    }

    /**
     * A builder for a fake with other settings than {@link #FakeCodexAppServer()}'s.
     *
     * @return a builder with the defaults
     */
    public static Builder builder() {
        return new Builder();
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
        Objects.requireNonNull(stepTimeout, "stepTimeout");
        return new FakeCodexAppServer(Recording.all(), ReplayScript.load(recording), stepTimeout);
    }

    /** Settings for a new {@link FakeCodexAppServer}. */
    public static final class Builder {
        private Recording recording = Recording.all();

        private Builder() {
        }

        /**
         * What the fake keeps of the traffic for the verification methods (default {@link Recording#all()}).
         *
         * @param recording {@link Recording#all()}, {@link Recording#last(int)} or {@link Recording#off()}
         * @return this builder, for chaining
         */
        public Builder recording(Recording recording) {
            this.recording = Objects.requireNonNull(recording, "recording");
            return this;
        }

        /** {@return a new fake with these settings} */
        public FakeCodexAppServer build() {
            return new FakeCodexAppServer(recording, null, Duration.ofSeconds(10));
        }
    }

    // ---------------------------------------------------------------- connecting

    /**
     * A new in-memory connection to this fake; give the returned transport to the client under test.
     *
     * @return a transport for the client under test
     */
    public Transport connectInMemory() {
        return connections.connectInMemory();
    }

    /**
     * A command line ({@code java -cp … RelayMain <port> <token>}) for the client to spawn with its ordinary stdio
     * transport. The child connects back to this fake over loopback TCP and relays its stdin and stdout, so the
     * client talks to a real process; it exits when its stdin closes or this fake closes.
     *
     * @return the command line, for {@code CodexClient.builder().command(...)}
     */
    public List<String> childProcessCommand() {
        return connections.childProcessCommand();
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
        connections.awaitConnections(count, timeout);
    }

    /** {@return how many connections were made so far} */
    public int connectionCount() {
        return connections.connectionCount();
    }

    // ---------------------------------------------------------------- configuration

    /**
     * Replaces the result of {@code initialize}; any Jackson-serialisable value.
     *
     * @param result the result: any Jackson-serialisable value (a protocol record, a map, a JsonNode)
     * @return this fake, for chaining
     */
    public FakeCodexAppServer initializeResult(Object result) {
        answerer.initializeResult(Json.tree(result));
        return this;
    }

    /**
     * How long a scripted turn waits for the client to answer an approval or tool call (default 10 s).
     *
     * @param timeout how long to wait at most
     * @return this fake, for chaining
     */
    public FakeCodexAppServer serverRequestTimeout(Duration timeout) {
        fake.serverRequestTimeout(timeout);
        return this;
    }

    /**
     * Holds the final page of each {@code thread/search/stream} to come (its partial rows still go at once), so
     * that a test can cancel a search in flight: {@code thread/search/stream/cancel} then fails the held search
     * with {@code -32600 "thread search cancelled"}, as codex does. {@link #releaseThreadSearches()} answers the
     * held ones.
     *
     * @param hold whether to hold the pages of the searches to come
     * @return this fake, for chaining
     */
    public FakeCodexAppServer holdThreadSearches(boolean hold) {
        fake.searches.hold(hold);
        return this;
    }

    /**
     * Answers the searches held by {@link #holdThreadSearches(boolean)} with their pages, in the order they came.
     *
     * @return how many were answered
     */
    public int releaseThreadSearches() {
        return fake.searches.release();
    }

    /** {@return what this fake keeps of the traffic} */
    public Recording recording() {
        return fake.journal.recording();
    }

    /** {@return the {@code capabilities} the client sent with {@code initialize}, once it did} */
    public Optional<JsonNode> clientCapabilities() {
        return fake.journal.clientCapabilities();
    }

    /** {@return the {@code clientInfo} the client sent with {@code initialize}, once it did} */
    public Optional<JsonNode> clientInfo() {
        return fake.journal.clientInfo();
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
        answerer.add(rule);
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
        turns.defaultScript(script);
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
        turns.enqueue(script);
        return this;
    }

    /**
     * Sends a notification to the newest connection; {@code emittedAtMs} is added as codex does.
     *
     * @param method the JSON-RPC method, e.g. {@code thread/start}
     * @param params the params: any Jackson-serialisable value (a protocol record, a map, a JsonNode)
     */
    public void notify(String method, Object params) {
        newest().notify(method, Json.tree(params));
    }

    /**
     * Sends a request to the client on the newest connection; ids are integers from 0 per connection.
     *
     * @param method the JSON-RPC method, e.g. {@code thread/start}
     * @param params the params: any Jackson-serialisable value (a protocol record, a map, a JsonNode)
     * @return the request, to await or check the client's reply
     */
    public PendingServerRequest sendRequest(String method, Object params) {
        return fake.sendRequest(newest(), method, Json.tree(params));
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
        return fake.sendRequest(newest(), id, method, Json.tree(params));
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
        return sendRequest("item/commandExecution/requestApproval",
                ServerRequestParams.commandApproval(fake.nextId("call"), threadId, turnId, command));
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
        return sendRequest("item/fileChange/requestApproval",
                ServerRequestParams.fileChangeApproval(fake.nextId("patch"), threadId, turnId, reason));
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
        return sendRequest("item/tool/call",
                ServerRequestParams.toolCall(fake.nextId("call"), threadId, turnId, tool, Json.tree(arguments)));
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
        return sendRequest("item/tool/requestUserInput",
                ServerRequestParams.userInput(fake.nextId("input"), threadId, turnId, questionId, question));
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
        return sendRequest("mcpServer/elicitation/request",
                ServerRequestParams.elicitation(threadId, serverName, message, Json.tree(requestedSchema)));
    }

    /**
     * Sends {@code account/chatgptAuthTokens/refresh} with reason {@code unauthorized}.
     *
     * @return the request, to await or check the client's reply
     */
    public PendingServerRequest requestChatgptTokenRefresh() {
        return sendRequest("account/chatgptAuthTokens/refresh", ServerRequestParams.chatgptTokenRefresh());
    }

    // ---------------------------------------------------------------- faults

    /**
     * Applies a fault now, on the newest connection (rules-type faults need no connection).
     *
     * @param fault the fault to apply
     */
    public void apply(Fault fault) {
        Objects.requireNonNull(fault, "fault");
        if (!faults.applyToFake(fault)) {
            faults.applyOn(newest(), fault);
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
        Stubbing rule = new Stubbing(this, req -> true, RequestAnswerer.enqueuedDescription(fault));
        rule.times(1);
        rule.action = req -> fault;
        answerer.enqueue(rule);
        return this;
    }

    /** Ends a {@link Fault#stall()}: requests recorded while stalled stay unanswered; new ones are answered. */
    public void resume() {
        fake.resume();
    }

    // ---------------------------------------------------------------- verification

    /**
     * The next client request in arrival order (including {@code initialize}).
     *
     * @param timeout how long to wait at most
     * @return the request
     * @throws AssertionError when none arrives within {@code timeout}
     * @throws IllegalStateException at once when the fake was built with {@link Recording#off()}
     */
    public RecordedRequest takeRequest(Duration timeout) {
        return fake.journal.takeRequest(timeout);
    }

    /**
     * The next client request in arrival order, if one arrives within {@code timeout}.
     *
     * @param timeout how long to wait at most
     * @return the request, or empty if none arrived in time
     * @throws IllegalStateException at once when the fake was built with {@link Recording#off()}
     */
    public Optional<RecordedRequest> pollRequest(Duration timeout) {
        return fake.journal.pollRequest(timeout);
    }

    /**
     * The next request of {@code method} not yet taken by this method (a per-method cursor, independent of
     * {@link #takeRequest(Duration)}).
     *
     * @param method the JSON-RPC method, e.g. {@code thread/start}
     * @param timeout how long to wait at most
     * @return the request
     * @throws AssertionError when none arrives within {@code timeout}
     * @throws IllegalStateException at once when the fake was built with {@link Recording#off()}
     */
    public RecordedRequest takeRequest(String method, Duration timeout) {
        return fake.journal.takeRequest(method, timeout);
    }

    /**
     * The next client notification (e.g. {@code initialized}) in arrival order.
     *
     * @param timeout how long to wait at most
     * @return the notification
     * @throws AssertionError when none arrives within {@code timeout}
     * @throws IllegalStateException at once when the fake was built with {@link Recording#off()}
     */
    public RecordedNotification takeNotification(Duration timeout) {
        return fake.journal.takeNotification(timeout);
    }

    /** {@return how many requests the client sent so far, whatever the fake's {@link Recording} keeps} */
    public int requestCount() {
        return fake.journal.requestCount();
    }

    /**
     * {@return every request the client sent, in order; with {@link Recording#last(int)} the newest ones it keeps}
     *
     * @throws IllegalStateException when the fake was built with {@link Recording#off()}
     */
    public List<RecordedRequest> requests() {
        return fake.journal.requests();
    }

    /**
     * {@return every message the client sent, in order: requests, notifications, responses; a line that was not JSON is
     * kept as a text node; with {@link Recording#last(int)} the newest ones it keeps}
     *
     * @throws IllegalStateException when the fake was built with {@link Recording#off()}
     */
    public List<JsonNode> receivedMessages() {
        return fake.journal.receivedMessages();
    }

    /**
     * {@return every message the fake wrote as JSON, in order (garbage and raw fault bytes excluded); with
     * {@link Recording#last(int)} the newest ones it keeps}
     *
     * @throws IllegalStateException when the fake was built with {@link Recording#off()}
     */
    public List<JsonNode> sentMessages() {
        return fake.journal.sentMessages();
    }

    /** {@return thread ids handed out or resumed, in creation order} */
    public List<String> threadIds() {
        return fake.store.threadIds();
    }

    /**
     * {@return problems seen while serving: assertion failures thrown by reply callbacks of scripted turns, exceptions
     * from {@link Stubbing#respondWith} functions, unanswered approvals, replay divergences}
     */
    public List<Throwable> failures() {
        return fake.failures();
    }

    /** Throws the first of {@link #failures()} (others attached as suppressed), if any. */
    public void verifyNoFailures() {
        List<Throwable> failures = fake.failures();
        if (failures.isEmpty()) {
            return;
        }
        AssertionError error = new AssertionError("the fake codex app-server saw " + failures.size()
                + " failure(s); first: " + failures.get(0), failures.get(0));
        failures.stream().skip(1).forEach(error::addSuppressed);
        throw error;
    }

    // ---------------------------------------------------------------- lifecycle

    /** Ends every connection (children are told to exit with 0), stops every thread this fake started. */
    @Override
    public void close() {
        if (!fake.close()) {
            return;
        }
        connections.closeAll();
        fake.stopThreads();
    }

    boolean isClosed() {
        return fake.isClosed();
    }

    /** The newest connection, where the test's notifications, requests and faults go. */
    private Connection newest() {
        return connections.newest();
    }
}

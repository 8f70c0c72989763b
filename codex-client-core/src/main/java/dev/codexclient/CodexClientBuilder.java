package dev.codexclient;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.internal.ClientVersion;
import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.requests.RequestHandlerRegistry;
import dev.codexclient.internal.rpc.CallbackPool;
import dev.codexclient.internal.session.ClientRuntime;
import dev.codexclient.internal.session.ClientSettings;
import dev.codexclient.internal.session.ServerSource;
import dev.codexclient.internal.session.TurnState;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.ChatgptAuthTokensRefreshParams;
import dev.codexclient.protocol.ChatgptAuthTokensRefreshResponse;
import dev.codexclient.protocol.LoginAccountParams;
import dev.codexclient.protocol.McpServerElicitationRequestParams;
import dev.codexclient.protocol.McpServerElicitationRequestResponse;
import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ServerRequestMethods;
import dev.codexclient.protocol.ToolRequestUserInputParams;
import dev.codexclient.protocol.ToolRequestUserInputResponse;
import dev.codexclient.transport.StdioTransport;
import dev.codexclient.transport.Transport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/** Configures and builds a {@link CodexClient}; {@link #build()} spawns the server and performs the handshake. */
// One job, every setting of a client: the file is long because each setting is documented where a user finds it;
// what the settings decide lives in ServerSource, RequestHandlerRegistry and the runtime.
public final class CodexClientBuilder {
    private RestartPolicy restartPolicy;
    private Duration closeTimeout;
    private String clientName = "codex-client-java";
    private String clientTitle = "codex-client (Java)";
    private String clientVersion = ClientVersion.current();
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
    private PublisherOverflow publisherOverflow = PublisherOverflow.FAIL;
    private Duration publisherDeltaInterval = Duration.ZERO;
    /** This client's own: secrets registered with one client are never masked or kept by another. */
    private final Redactor redactor = new Redactor();
    /** Where the server comes from; the stdio transport it spawns masks what the client masks, refreshed tokens too. */
    private final ServerSource server = new ServerSource(redactor::redact);
    /** What answers the server's requests. */
    private final RequestHandlerRegistry requestHandlers = new RequestHandlerRegistry();
    /** The client's clock and timer; tests put a manual one here (see {@link #scheduler(Scheduler)}). */
    private Scheduler scheduler;
    private LoginAccountParams login;
    private CodexTelemetryListener telemetryListener = CodexTelemetryListener.NONE;
    private final List<Consumer<ServerNotification>> listeners = new ArrayList<>();

    CodexClientBuilder() {
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
    public CodexClientBuilder transport(Transport transport) {
        server.transport(transport);
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
    public CodexClientBuilder transportFactory(Supplier<? extends Transport> factory) {
        server.transportFactory(factory);
        return this;
    }

    /**
     * Restarts a lost connection (off by default): when the spawned app-server dies, a new one is spawned; when
     * a WebSocket or Unix-socket connection drops, the client connects again (with a
     * {@link #transportFactory(Supplier) transport factory}). Either way the handshake is redone and every
     * thread the client holds is resumed ({@code thread/resume}); {@link CodexThread} handles and their
     * listeners stay valid. A turn running at the loss goes on if the server reached again still runs it,
     * completes from the server's report if it finished meanwhile, and otherwise (a new server) ends with
     * {@link dev.codexclient.errors.CodexServerRestartedException} naming its thread and turn. Calls pending at
     * the loss fail with {@link CodexTransportException}; calls made during the restart wait for it, within
     * their timeout. An approval or other server request still being decided is not asked again when the
     * server sends it anew after the resume: the decision goes to the new connection, once. When the policy
     * gives up, the client ends as it would without one. The {@link #telemetryListener(CodexTelemetryListener) event
     * listener} sees each step.
     *
     * @param policy how often and how fast to try again, see {@link RestartPolicy}
     * @return this builder
     */
    public CodexClientBuilder restartPolicy(RestartPolicy policy) {
        this.restartPolicy = Objects.requireNonNull(policy, "policy");
        return this;
    }

    /**
     * The codex executable to spawn (default: {@code codex} on the {@code PATH}).
     *
     * @param executable the path of the {@code codex} executable; it is run with the argument {@code app-server}
     * @return this builder
     */
    public CodexClientBuilder codexBinary(Path executable) {
        server.stdio("codexBinary(...)", b -> b.executable(executable));
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
    public CodexClientBuilder command(List<String> command) {
        if (command.isEmpty()) {
            throw new IllegalArgumentException("command must name an executable");
        }
        server.stdio("command(...)", b -> b.executable(command.get(0)).args(List.copyOf(command.subList(1,
                command.size()))));
        return this;
    }

    /**
     * Sets {@code CODEX_HOME} for the spawned server (configuration, sessions, auth).
     *
     * @param codexHome the directory; without this setting the server inherits the variable, or uses
     *                  {@code ~/.codex}
     * @return this builder
     */
    public CodexClientBuilder codexHome(Path codexHome) {
        server.stdio("codexHome(...)", b -> b.codexHome(codexHome));
        return this;
    }

    /**
     * The working directory of the spawned server.
     *
     * @param directory the directory (default: this JVM's working directory)
     * @return this builder
     */
    public CodexClientBuilder workingDirectory(Path directory) {
        server.stdio("workingDirectory(...)", b -> b.workingDirectory(directory));
        return this;
    }

    /**
     * An environment variable for the spawned server, added to the ones it inherits from this JVM.
     *
     * @param name  the variable's name
     * @param value its value
     * @return this builder
     */
    public CodexClientBuilder environment(String name, String value) {
        server.stdio("environment(...)", b -> b.environment(name, value));
        return this;
    }

    /**
     * Further settings of the spawned server's stdio transport (line cap, stderr tail, close timeout).
     *
     * @param configure called at once with the builder of the transport the client will spawn
     * @return this builder
     */
    public CodexClientBuilder stdio(Consumer<StdioTransport.Builder> configure) {
        server.stdio("stdio(...)", configure);
        return this;
    }

    /**
     * The longest {@link CodexClient#close()} waits for the server to end on its own before ending it by force.
     * For the spawned server: how long after its stdin is closed it may take to exit (codex exits at once when
     * idle, but some versions first wait for a running command); then it and every process it started get
     * SIGTERM, and SIGKILL a second or two later. {@code Duration.ZERO} skips the wait. For a WebSocket: the
     * bound on the close handshake.
     *
     * <p>Without this setting the transport's own close timeout applies ({@link Transport#DEFAULT_CLOSE_TIMEOUT}
     * unless its builder set another, for the spawned server with {@link #stdio(Consumer)}); when both are set, this
     * one wins. It applies as well to a transport given with
     * {@link #transport(Transport)}.
     *
     * @param timeout the longest wait, zero or more
     * @return this builder
     * @throws IllegalArgumentException when {@code timeout} is negative
     */
    public CodexClientBuilder closeTimeout(Duration timeout) {
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
    public CodexClientBuilder clientInfo(String name, String title, String version) {
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
    public CodexClientBuilder experimentalApi(boolean enabled) {
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
    public CodexClientBuilder optOutNotifications(String... methods) {
        optOut.addAll(List.of(methods));
        return this;
    }

    /**
     * Logs in with an API key right after the handshake. The key is never logged.
     *
     * @param apiKey the OpenAI API key
     * @return this builder
     */
    public CodexClientBuilder apiKey(String apiKey) {
        Objects.requireNonNull(apiKey, "apiKey");
        redactor.register(apiKey);

        this.login = new LoginAccountParams.ApiKey(apiKey);
        return this;
    }

    /**
     * Logs in with ChatGPT tokens your application manages, right after the handshake. Pair it with
     * {@link #chatgptTokenRefresh} so codex can ask for fresh tokens when these expire. Tokens are never
     * logged.
     *
     * @param accessToken      the ChatGPT access token
     * @param chatgptAccountId the ChatGPT account (workspace) id the token belongs to
     * @param planType         the ChatGPT plan (e.g. {@code "plus"}), or {@code null} to let codex find out
     * @return this builder
     */
    public CodexClientBuilder chatgptAuthTokens(String accessToken, String chatgptAccountId, String planType) {
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
    public CodexClientBuilder requestTimeout(Duration timeout) {
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
    public CodexClientBuilder initializeTimeout(Duration timeout) {
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
    public CodexClientBuilder interruptGracePeriod(Duration grace) {
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
    public CodexClientBuilder turnWatchdog(Duration idle) {
        this.turnWatchdog = positive(idle, "turnWatchdog");
        return this;
    }

    /**
     * The retry policy for {@code -32001} overload errors (default {@link RetryPolicy#defaults()}).
     *
     * @param policy the policy; {@link RetryPolicy#none()} turns retries off
     * @return this builder
     */
    public CodexClientBuilder retryPolicy(RetryPolicy policy) {
        this.retryPolicy = Objects.requireNonNull(policy, "policy");
        return this;
    }

    /**
     * The executor for listeners, handlers and future completions (default: the client's own executor on two
     * pools of daemon threads that every client in the JVM shares, one for server-request handlers and one for
     * everything else, at most 256 threads each; past a ceiling, tasks wait for a thread of their pool, so
     * handlers that block never hold up the delivery of events; closing the client shuts its executor down and
     * waits for its running callbacks). An executor you pass is not shut down by the client. It must run tasks on
     * threads of its own, never on the submitting thread, and have a thread for each listener or handler that may
     * block at the same time (see the threading guide, docs/threading.md).
     *
     * @param executor the executor
     * @return this builder
     */
    public CodexClientBuilder callbackExecutor(ExecutorService executor) {
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
    public CodexClientBuilder turnReplayLimit(int events) {
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
    public CodexClientBuilder turnReplayBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("turnReplayBytes must not be negative");
        }
        this.replayBytes = bytes;
        return this;
    }

    /**
     * How many events a subscription to one of the client's {@link java.util.concurrent.Flow.Publisher}s
     * ({@link CodexTurn#publisher()}, {@link CodexThread#publisher()}, {@link CodexClient#publisher()}) holds
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
    public CodexClientBuilder publisherBufferSize(int events) {
        if (events < 1) {
            throw new IllegalArgumentException("publisherBufferSize must be positive: " + events);
        }
        this.publisherBufferSize = events;
        return this;
    }

    /**
     * What a publisher subscription does when its subscriber lags beyond {@link #publisherBufferSize(int)}:
     * {@link PublisherOverflow#FAIL} (the default) ends it with a
     * {@link dev.codexclient.errors.CodexBackpressureException}; {@link PublisherOverflow#COALESCE_DELTAS} first
     * merges the waiting text deltas of the same item, so a slow reader (a Server-Sent Events client on a slow
     * link) gets the whole text in fewer events.
     *
     * @param overflow what a lagging subscription does
     * @return this builder
     */
    public CodexClientBuilder publisherOverflow(PublisherOverflow overflow) {
        this.publisherOverflow = Objects.requireNonNull(overflow, "overflow");
        return this;
    }

    /**
     * The shortest time between two text deltas a publisher subscription hands to its subscriber (default zero: each
     * as it comes). A delta due sooner waits, and the deltas of the same item that arrive meanwhile are merged into
     * it (as {@link PublisherOverflow#COALESCE_DELTAS} merges them), so a subscriber gets at most one delta event per
     * interval, whatever the model's pace, at the cost of at most this much delay; any other event ends the wait at
     * once. Meant for a streaming HTTP response (Server-Sent Events), whose network buffers keep requesting while the
     * reader is slow, so that merging beyond the demand alone would rarely start: there each event costs its framing
     * (some twenty bytes for one character), and a slow reader gets the text sooner in fewer, larger events.
     *
     * @param interval zero, or a positive duration such as 50 ms
     * @return this builder
     * @throws IllegalArgumentException when {@code interval} is negative
     */
    public CodexClientBuilder publisherDeltaInterval(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        if (interval.isNegative()) {
            throw new IllegalArgumentException("publisherDeltaInterval must not be negative: " + interval);
        }
        this.publisherDeltaInterval = interval;
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
    public CodexClientBuilder objectMapper(ObjectMapper mapper) {
        this.userMapper = Objects.requireNonNull(mapper, "mapper");
        return this;
    }

    // ---------------------------------------------------------------- handlers
    // Naming: a handler, which must answer the server, is registered under the name of what it answers
    // (approvals, commandApprovals, userInput, serverRequest, tool); a method named on… registers a listener, which is
    // told and answers nothing (onNotification).

    /**
     * Decides every kind of approval: commands, file changes, permission grants, and their legacy forms
     * (default: {@link ApprovalPolicy#declineAll()}, logged once per kind). A policy for one kind
     * ({@link #commandApprovals}, {@link #fileChangeApprovals}) takes precedence for that kind.
     *
     * <pre>{@code
     * .approvals(ApprovalPolicy.sync(request -> request instanceof ApprovalRequest.Command c
     *         && c.params().command().equals("git status") ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE))
     * }</pre>
     * Match whole command lines, never prefixes: codex runs a command through a shell, where {@code "git "} also
     * begins {@code git status; rm -rf ~} (see {@link ApprovalPolicy}).
     *
     * @param policy the policy for every kind of approval request
     * @return this builder
     */
    public CodexClientBuilder approvals(ApprovalPolicy<ApprovalRequest> policy) {
        requestHandlers.approvals(policy);
        return this;
    }

    /**
     * Decides command approvals ({@code item/commandExecution/requestApproval}), in place of
     * {@link #approvals}' policy for them. Asynchronous, like every handler; for a synchronous decision wrap it
     * in {@link ApprovalPolicy#sync}:
     * <pre>{@code
     * .commandApprovals(ApprovalPolicy.sync(command -> Set.of("ls", "ls -la").contains(command.params().command())
     *         ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE))
     * }</pre>
     * A later {@link #serverRequest} for the same method replaces it, and the other way round.
     *
     * @param policy the policy for command approvals
     * @return this builder
     */
    public CodexClientBuilder commandApprovals(ApprovalPolicy<? super ApprovalRequest.Command> policy) {
        requestHandlers.kindApproval(ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL.method(), policy);
        return this;
    }

    /**
     * The former name of {@link #commandApprovals(ApprovalPolicy)}.
     *
     * @param policy the policy for command approvals
     * @return this builder
     * @deprecated renamed to {@link #commandApprovals(ApprovalPolicy)}: {@code on…} names listeners, and a policy
     *             answers the server
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public CodexClientBuilder onCommandApproval(ApprovalPolicy<? super ApprovalRequest.Command> policy) {
        return commandApprovals(policy);
    }

    /**
     * Decides file-change approvals ({@code item/fileChange/requestApproval}), in place of {@link #approvals}'
     * policy for them; see {@link #commandApprovals}.
     *
     * @param policy the policy for file-change approvals
     * @return this builder
     */
    public CodexClientBuilder fileChangeApprovals(ApprovalPolicy<? super ApprovalRequest.FileChange> policy) {
        requestHandlers.kindApproval(ServerRequestMethods.ITEM_FILE_CHANGE_REQUEST_APPROVAL.method(), policy);
        return this;
    }

    /**
     * The former name of {@link #fileChangeApprovals(ApprovalPolicy)}.
     *
     * @param policy the policy for file-change approvals
     * @return this builder
     * @deprecated renamed to {@link #fileChangeApprovals(ApprovalPolicy)}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public CodexClientBuilder onFileChangeApproval(ApprovalPolicy<? super ApprovalRequest.FileChange> policy) {
        return fileChangeApprovals(policy);
    }

    /**
     * Answers questions the agent asks the user ({@code item/tool/requestUserInput}); default: an answer that says
     * no operator is available.
     *
     * @param handler called on a callback thread with each request's params; its stage is cancelled when the
     *                server withdraws the request, and a failed stage becomes a JSON-RPC error reply
     * @return this builder
     */
    public CodexClientBuilder userInput(
            Function<ToolRequestUserInputParams, CompletionStage<ToolRequestUserInputResponse>> handler) {
        return serverRequest(ServerRequestMethods.ITEM_TOOL_REQUEST_USER_INPUT, handler);
    }

    /**
     * The former name of {@link #userInput(Function)}.
     *
     * @param handler called on a callback thread with each request's params
     * @return this builder
     * @deprecated renamed to {@link #userInput(Function)}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public CodexClientBuilder onUserInput(
            Function<ToolRequestUserInputParams, CompletionStage<ToolRequestUserInputResponse>> handler) {
        return userInput(handler);
    }

    /**
     * Answers MCP elicitations ({@code mcpServer/elicitation/request}); default: decline.
     *
     * @param handler called on a callback thread with each request's params; its stage is cancelled when the
     *                server withdraws the request, and a failed stage becomes a JSON-RPC error reply
     * @return this builder
     */
    public CodexClientBuilder elicitations(Function<McpServerElicitationRequestParams,
            CompletionStage<McpServerElicitationRequestResponse>> handler) {
        return serverRequest(ServerRequestMethods.MCP_SERVER_ELICITATION_REQUEST, handler);
    }

    /**
     * The former name of {@link #elicitations(Function)}.
     *
     * @param handler called on a callback thread with each request's params
     * @return this builder
     * @deprecated renamed to {@link #elicitations(Function)}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public CodexClientBuilder onElicitation(Function<McpServerElicitationRequestParams,
            CompletionStage<McpServerElicitationRequestResponse>> handler) {
        return elicitations(handler);
    }

    /**
     * Supplies fresh ChatGPT tokens when codex's expire ({@code account/chatgptAuthTokens/refresh}). The access
     * tokens it returns are masked in logs like the first ones.
     *
     * @param handler called on a callback thread with each request's params; a failed stage becomes a JSON-RPC
     *                error reply
     * @return this builder
     */
    public CodexClientBuilder chatgptTokenRefresh(Function<ChatgptAuthTokensRefreshParams,
            CompletionStage<ChatgptAuthTokensRefreshResponse>> handler) {
        requestHandlers.tokenRefresh(handler, redactor);
        return this;
    }

    /**
     * The former name of {@link #chatgptTokenRefresh(Function)}.
     *
     * @param handler called on a callback thread with each request's params
     * @return this builder
     * @deprecated renamed to {@link #chatgptTokenRefresh(Function)}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public CodexClientBuilder onChatgptTokenRefresh(Function<ChatgptAuthTokensRefreshParams,
            CompletionStage<ChatgptAuthTokensRefreshResponse>> handler) {
        return chatgptTokenRefresh(handler);
    }

    /**
     * Answers any server request of the protocol with a typed handler, e.g.
     * {@code serverRequest(ServerRequestMethods.CURRENT_TIME_READ, p -> ...)}. The stage is cancelled when the
     * server withdraws the request; a failed stage becomes a JSON-RPC error reply. A later call for the same method
     * replaces the handler.
     *
     * @param <P>     the request's params type
     * @param <R>     the request's result type
     * @param method  the request method, from {@code ServerRequestMethods}
     * @param handler called on a callback thread with each request's params
     * @return this builder
     */
    public <P, R> CodexClientBuilder serverRequest(MethodDescriptor<P, R> method,
                                                   Function<? super P, ? extends CompletionStage<R>> handler) {
        requestHandlers.handler(method, handler);
        return this;
    }

    /**
     * The former name of {@link #serverRequest(MethodDescriptor, Function)}.
     *
     * @param <P>     the request's params type
     * @param <R>     the request's result type
     * @param method  the request method, from {@code ServerRequestMethods}
     * @param handler called on a callback thread with each request's params
     * @return this builder
     * @deprecated renamed to {@link #serverRequest(MethodDescriptor, Function)}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public <P, R> CodexClientBuilder onServerRequest(MethodDescriptor<P, R> method,
                                                     Function<? super P, ? extends CompletionStage<R>> handler) {
        return serverRequest(method, handler);
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
    public CodexClientBuilder unknownServerRequest(String method, Function<JsonNode, CompletionStage<?>> handler) {
        requestHandlers.rawHandler(method, handler);
        return this;
    }

    /**
     * The former name of {@link #unknownServerRequest(String, Function)}.
     *
     * @param method  the exact method name
     * @param handler called on a callback thread with the raw params
     * @return this builder
     * @deprecated renamed to {@link #unknownServerRequest(String, Function)}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public CodexClientBuilder onUnknownServerRequest(String method, Function<JsonNode, CompletionStage<?>> handler) {
        return unknownServerRequest(method, handler);
    }

    /**
     * Declares a dynamic tool: sent on every {@code thread/start}, called on {@code item/tool/call}. Dynamic tools
     * are experimental in codex: {@link #build()} requires {@link #experimentalApi(boolean) experimentalApi(true)}.
     *
     * @param tool the tool
     * @return this builder
     * @throws IllegalArgumentException when a tool of the same name was declared already
     */
    @CodexExperimental("dynamicTools")
    public CodexClientBuilder tool(DynamicTool tool) {
        requestHandlers.tool(tool);
        return this;
    }

    /**
     * A listener for every notification, registered before the handshake so none is missed.
     *
     * @param listener called with each notification, in wire order per codex thread, on a callback thread
     * @return this builder
     */
    public CodexClientBuilder onNotification(Consumer<? super ServerNotification> listener) {
        Objects.requireNonNull(listener, "listener");
        listeners.add(listener::accept);
        return this;
    }

    /**
     * The listener told about this client's connection, requests, server requests, turns and restarts (see
     * {@link CodexTelemetryListener} for when and on which thread). One per client; combine several with
     * {@link CodexTelemetryListener#composite(CodexTelemetryListener...)}. None by default, which costs nothing.
     *
     * @param listener the listener; a later call replaces it
     * @return this builder
     */
    public CodexClientBuilder telemetryListener(CodexTelemetryListener listener) {
        this.telemetryListener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * A secret (API key, token) to mask wherever the client logs or reports text. Keys given to {@link #apiKey} and
     * {@link #chatgptAuthTokens} are masked without it.
     *
     * @param secret the text to mask
     * @return this builder
     */
    public CodexClientBuilder secret(String secret) {
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
        List<String> tools = requestHandlers.toolNames();
        if (!tools.isEmpty() && !experimentalApi) {
            throw new IllegalStateException("dynamic tools are an experimental codex API: call "
                    + "experimentalApi(true) on the builder to declare " + tools);
        }
        server.check(restartPolicy != null);
        boolean ownsExecutor = executor == null;
        ExecutorService callbacks = ownsExecutor
                ? new CallbackPool() : executor;
        Transport t;
        try {
            t = server.transports().get();
        } catch (RuntimeException e) {
            if (ownsExecutor) {
                callbacks.shutdownNow();
            }
            throw e;
        }
        // The runtime makes each turn's result from its end, in the value type of this package.
        ClientRuntime runtime = new ClientRuntime(settings(), t, callbacks, ownsExecutor,
                end -> result(end, redactor), TurnResult::failure);
        try {
            runtime.start();
            return new CodexClient(runtime);
        } catch (RuntimeException e) {
            // A server that failed its handshake has nothing left to finish: no graceful wait, so build()
            // fails within the initialize timeout plus the time it takes to end the process.
            runtime.close(Duration.ZERO);
            throw e;
        }
    }

    /** The result of a turn that ended as {@code end} says; secrets {@code redactor} knows are masked. */
    private static TurnResult result(TurnState.End end, Redactor redactor) {
        return new TurnResult(end.threadId(), end.turnId(), end.status(), end.turn(), end.finalText(), end.items(),
                end.usage(), end.diff(), end.plan(), end.error(), end.deadlineExceeded(), end.stalled(), redactor);
    }

    /** The settings as they are now, fixed: what the runtime reads. */
    private ClientSettings settings() {
        ClientSettings.Introduction introduction = new ClientSettings.Introduction(clientName, clientTitle,
                clientVersion, experimentalApi, optOut, Optional.ofNullable(login));
        return new ClientSettings(server.transports(), Optional.ofNullable(restartPolicy),
                Optional.ofNullable(closeTimeout), introduction, requestTimeout, initializeTimeout, interruptGrace,
                Optional.ofNullable(turnWatchdog), retryPolicy, Optional.ofNullable(userMapper), replayLimit,
                replayBytes, publisherBufferSize, publisherOverflow, publisherDeltaInterval, redactor,
                Optional.ofNullable(scheduler), telemetryListener, listeners, requestHandlers.handlers());
    }

    /** Puts a clock and timer of the caller's in place of the system's (tests move a manual one by hand). */
    CodexClientBuilder scheduler(Scheduler scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        return this;
    }

    private static Duration positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
        return d;
    }
}

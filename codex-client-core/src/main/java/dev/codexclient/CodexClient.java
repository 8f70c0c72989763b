package dev.codexclient;

import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.session.ClientRuntime;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadForkParams;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.protocol.ThreadListResponse;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadSearchParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.telemetry.ExtensionTelemetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.function.Consumer;

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
 * <p>Threading (the full rules: the threading guide, docs/threading.md). Every method may be called from any
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
 *       dynamic tools, token refresh, {@link CodexClientBuilder#serverRequest any request}) returns a
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
 *       {@link CodexClientBuilder#closeTimeout(Duration)}; a {@link CodexClientBuilder#build()} whose handshake
 *       fails ends the server
 *       at once, without a graceful wait. A spawned server's process is {@link #serverProcess()}.</li>
 * </ul>
 */
public final class CodexClient implements Codex, AutoCloseable {
    private final ClientRuntime runtime;
    private final CodexRpc rpc;

    CodexClient(ClientRuntime runtime) {
        this.runtime = runtime;
        this.rpc = new CodexRpc(runtime.rpc());
    }

    /**
     * {@return a new builder, with every setting at its default} Nothing is started until
     * {@link CodexClientBuilder#build()}.
     */
    public static CodexClientBuilder builder() {
        return new CodexClientBuilder();
    }

    /** {@return what the server reported about itself in its {@code initialize} result} */
    public ServerInfo serverInfo() {
        return runtime.serverInfo();
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
    @Override
    public CodexThread startThread() {
        return startThread(ThreadStartParams.builder().build());
    }

    /**
     * Starts a thread. This client's {@link CodexClientBuilder#tool(DynamicTool) dynamic tools} are added to
     * {@code dynamicTools}, after any the params already declare.
     *
     * @param params the {@code thread/start} params (model, working directory, sandbox, ...)
     * @return the handle of the new thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request
     */
    @Override
    public CodexThread startThread(ThreadStartParams params) {
        return startThread(params, List.of());
    }

    /**
     * Starts a thread with tools of its own: declared to codex on this thread only, beside this client's
     * {@link CodexClientBuilder#tool(DynamicTool) dynamic tools}, and answered for this thread only. Different threads
     * of one client can so offer different tools, e.g. those of the conversation or the user they serve. Codex keeps
     * a thread's tools with the thread; after the server closes the thread (it unloads it), give them again to
     * {@link #resumeThread(ThreadResumeParams, List)}. Dynamic tools need
     * {@link CodexClientBuilder#experimentalApi(boolean) experimentalApi(true)}.
     *
     * <pre>{@code
     * CodexThread thread = codex.startThread(ThreadStartParams.builder().build(),
     *         List.of(DynamicTool.of("lookup_ticket", "Look up a ticket by id", LookupTicket.class,
     *                 args -> ToolResult.text(tickets.find(args.id()).summary()))));
     * }</pre>
     *
     * @param params the {@code thread/start} params
     * @param tools  the thread's own tools; empty for none
     * @return the handle of the new thread
     * @throws IllegalArgumentException when two tools share a name or one has the name of a tool of the client
     * @throws IllegalStateException   when tools are given and the client was built without the experimental API
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request
     */
    @Override
    @CodexExperimental("dynamicTools")
    public CodexThread startThread(ThreadStartParams params, List<DynamicTool> tools) {
        return ClientThread.of(runtime.startThread(params, tools));
    }

    /**
     * {@link #startThread()} without blocking.
     *
     * @return a future of the new thread's handle; it fails with the exceptions {@link #startThread()} throws
     */
    @Override
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
    @Override
    public CompletableFuture<CodexThread> startThreadAsync(ThreadStartParams params) {
        return startThreadAsync(params, List.of());
    }

    /**
     * {@link #startThread(ThreadStartParams, List)} without blocking.
     *
     * @param params the {@code thread/start} params
     * @param tools  the thread's own tools; empty for none
     * @return a future of the new thread's handle; it fails with the exceptions
     *         {@link #startThread(ThreadStartParams, List)} throws
     */
    @Override
    @CodexExperimental("dynamicTools")
    public CompletableFuture<CodexThread> startThreadAsync(ThreadStartParams params, List<DynamicTool> tools) {
        return runtime.startThreadAsync(params, tools).thenApply(ClientThread::of);
    }


    /**
     * Resumes a stored thread by id, with the settings it was stored with: {@code thread/resume} with the id alone,
     * answered with the thread and its whole history, which {@link CodexThread#info()} then holds. To go on with a
     * long thread without fetching its history, {@link #resumeThreadWithoutTurns(String)}.
     *
     * @param threadId the id of the stored thread
     * @return the handle of the resumed thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request, e.g. for an unknown id
     */
    @Override
    public CodexThread resumeThread(String threadId) {
        return resumeThread(byId(threadId));
    }

    /**
     * Resumes a stored thread with overrides. {@code excludeTurns(true)} in the params asks for the thread without
     * its turns where the server can leave them out; a server that cannot (before codex 0.125.0; 0.129.0 to 0.150.x
     * without {@link CodexClientBuilder#experimentalApi(boolean)}) is not sent the member and answers with the turns.
     *
     * @param params the {@code thread/resume} params: the thread id and the settings to change
     * @return the handle of the resumed thread
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request, e.g. for an unknown id
     */
    @Override
    public CodexThread resumeThread(ThreadResumeParams params) {
        return resumeThread(params, List.of());
    }

    /**
     * Resumes a stored thread that has tools of its own (see {@link #startThread(ThreadStartParams, List)}): codex
     * kept their declarations with the thread, and this client answers their calls with {@code tools} from now on.
     *
     * @param params the {@code thread/resume} params: the thread id and the settings to change
     * @param tools  the thread's own tools; empty for none
     * @return the handle of the resumed thread
     * @throws IllegalArgumentException when two tools share a name or one has the name of a tool of the client
     * @throws IllegalStateException   when tools are given and the client was built without the experimental API
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request, e.g. for an unknown id
     */
    @Override
    @CodexExperimental("dynamicTools")
    public CodexThread resumeThread(ThreadResumeParams params, List<DynamicTool> tools) {
        return ClientThread.of(runtime.resumeThread(params, tools));
    }

    /**
     * {@link #resumeThread(String)} without blocking.
     *
     * @param threadId the id of the stored thread
     * @return a future of the resumed thread's handle; it fails with the exceptions {@link #resumeThread(String)}
     *         throws
     */
    @Override
    public CompletableFuture<CodexThread> resumeThreadAsync(String threadId) {
        return resumeThreadAsync(byId(threadId));
    }

    /**
     * {@link #resumeThread(ThreadResumeParams)} without blocking.
     *
     * @param params the {@code thread/resume} params
     * @return a future of the resumed thread's handle; it fails with the exceptions
     *         {@link #resumeThread(ThreadResumeParams)} throws
     */
    @Override
    public CompletableFuture<CodexThread> resumeThreadAsync(ThreadResumeParams params) {
        return resumeThreadAsync(params, List.of());
    }

    /**
     * {@link #resumeThread(ThreadResumeParams, List)} without blocking.
     *
     * @param params the {@code thread/resume} params
     * @param tools  the thread's own tools; empty for none
     * @return a future of the resumed thread's handle; it fails with the exceptions
     *         {@link #resumeThread(ThreadResumeParams, List)} throws
     */
    @Override
    @CodexExperimental("dynamicTools")
    public CompletableFuture<CodexThread> resumeThreadAsync(ThreadResumeParams params, List<DynamicTool> tools) {
        return runtime.resumeThreadAsync(params, tools).thenApply(ClientThread::of);
    }

    private static ThreadResumeParams byId(String threadId) {
        Objects.requireNonNull(threadId, "threadId");
        return ThreadResumeParams.builder().threadId(threadId).build();
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
        return ClientThread.of(runtime.forkThread(params));
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
        return runtime.forkThreadAsync(params).thenApply(ClientThread::of);
    }

    /**
     * {@return the handle of a thread this client holds right now, or empty when it holds none for that id} A thread
     * is held while it has a turn starting or running, or a listener added by {@link CodexThread#onEvent}. Handles of
     * other threads stay usable (see {@link CodexThread}); this only finds the ones in use. Asks nothing of the server.
     *
     * @param threadId the codex thread id
     */
    public Optional<CodexThread> thread(String threadId) {
        return runtime.heldThread(threadId).map(ClientThread::of);
    }

    /**
     * Every stored thread matching {@code params}, page by page as the iteration proceeds (each page is one
     * {@code thread/list} call following {@code nextCursor}; each waits at most the request timeout). To have
     * them all at once: {@link #listAllThreads(ThreadListParams)}, or {@link #listAllThreadsAsync(ThreadListParams)}
     * without blocking.
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
                    ThreadListResponse r = runtime.listPage(params, cursor);
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
     * Every stored thread matching {@code params}, all pages, as one list: the pages are fetched one after another
     * on the calling thread, each waiting at most the request timeout. {@link #listAllThreadsAsync} is the
     * non-blocking twin; {@link #listThreads(ThreadListParams)} fetches each page only as the iteration reaches it.
     *
     * @param params the filter and page size; its {@code cursor}, if any, is where the first page starts
     * @return every matching thread, in the server's order
     * @throws CodexTransportException when the connection is closed or ends
     * @throws CodexTimeoutException   when the server does not answer a page in time
     * @throws dev.codexclient.errors.CodexRpcException when the server rejects the request
     */
    public List<ThreadInfo> listAllThreads(ThreadListParams params) {
        List<ThreadInfo> all = new ArrayList<>();
        listThreads(params).forEach(all::add);
        return List.copyOf(all);
    }

    /**
     * {@link #listAllThreads(ThreadListParams)} without blocking: every page, one after another.
     *
     * @param params the filter and page size; its {@code cursor}, if any, is where the first page starts
     * @return a future of every matching thread, in the server's order; it fails with the first failed page's
     *         exception
     */
    public CompletableFuture<List<ThreadInfo>> listAllThreadsAsync(ThreadListParams params) {
        return runtime.listAllAsync(params);
    }

    /**
     * The former name of {@link #listAllThreadsAsync(ThreadListParams)}, which loads every page as that does; the
     * blocking {@link #listThreads(ThreadListParams)} pages lazily, so the two were no twins.
     *
     * @param params the filter and page size
     * @return a future of every matching thread
     * @deprecated renamed to {@link #listAllThreadsAsync(ThreadListParams)}, whose blocking twin is
     *             {@link #listAllThreads(ThreadListParams)}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public CompletableFuture<List<ThreadInfo>> listThreadsAsync(ThreadListParams params) {
        return listAllThreadsAsync(params);
    }

    /**
     * Searches the stored threads for {@code searchTerm}, streaming: provisional rows as codex finds them, then the
     * final page ({@code thread/search/stream}, codex 0.171.0 and later, experimental: build the client with
     * {@code experimentalApi(true)}). See {@link ThreadSearch}.
     *
     * @param searchTerm what to find, a literal substring
     * @return the running search; close it to cancel it
     */
    @CodexExperimental("thread/search/stream")
    public ThreadSearch searchThreads(String searchTerm) {
        Objects.requireNonNull(searchTerm, "searchTerm");
        return searchThreads(ThreadSearchParams.builder().searchTerm(searchTerm).build());
    }

    /**
     * Searches the stored threads, streaming, with every option of the request (archived, sort, page size, source
     * kinds, …). See {@link ThreadSearch}.
     *
     * @param params the search
     * @return the running search; close it to cancel it
     */
    @CodexExperimental("thread/search/stream")
    public ThreadSearch searchThreads(ThreadSearchParams params) {
        return new ThreadSearch(runtime.searchThreads(params));
    }

    /**
     * Every notification of the connection, in wire order per codex thread, on the lane of its thread. Closing the
     * subscription stops the deliveries. Notifications that arrived before the call are not replayed; to see them all,
     * use {@link CodexClientBuilder#onNotification(Consumer)}.
     *
     * @param listener called with each notification, on a callback thread; it may call back into the client
     * @return the subscription, whose {@code close()} removes the listener
     */
    @Override
    public Subscription onNotification(Consumer<? super ServerNotification> listener) {
        Objects.requireNonNull(listener, "listener");
        return runtime.onNotification(listener);
    }

    /**
     * Every notification of the connection as a hot {@link Flow.Publisher}: each subscriber gets the notifications
     * that arrive from its {@code subscribe} call on, in wire order per codex thread (the order across threads is
     * the order in which their lanes hand them over). The stream ends with {@code onComplete} when the client is
     * {@link #close() closed}, and with {@code onError(}{@link CodexTransportException}{@code )} when the connection
     * fails (the server exits, the socket drops); either comes after the notifications already received.
     *
     * <pre>{@code
     * Flux<ServerNotification> all = JdkFlowAdapter.flowPublisherToFlux(client.publisher());
     * all.ofType(ServerNotification.ThreadStarted.class).subscribe(t -> log.info("thread {}", t.params()));
     * }</pre>
     *
     * <p>Backpressure, threading and cancellation as for {@link CodexTurn#publisher()}: a subscriber that lets more
     * than {@link CodexClientBuilder#publisherBufferSize(int)} notifications wait ends with
     * {@link dev.codexclient.errors.CodexBackpressureException}, and only that subscriber.
     *
     * @return a hot publisher of every notification of the connection
     */
    public Flow.Publisher<ServerNotification> publisher() {
        return runtime.publisher();
    }

    /**
     * The former name of {@link #publisher()}.
     *
     * @return a hot publisher of every notification of the connection
     * @deprecated renamed to {@link #publisher()}, the name of every handle's publisher (a turn's, a thread's)
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Flow.Publisher<ServerNotification> notifications() {
        return publisher();
    }


    // ------------------------------------------------------------------------------------------------ closing

    /** {@return whether the client was closed or its connection ended} A closed client stays closed. */
    public boolean isClosed() {
        return runtime.isClosed();
    }

    /**
     * {@return the server process, when this client runs it as a child} That is the default: it spawns
     * {@code codex app-server} over stdio; for a WebSocket or in-memory connection this is empty. Use it to watch the
     * server ({@code pid()}, {@code onExit()}, {@code info()}) or to end it from outside the client. The handle stays
     * available after the process ended ({@code isAlive()} then says so).
     *
     * <p>With codex installed by npm, the process is the native codex binary, which the client runs in place of
     * the npm launcher (see {@link dev.codexclient.transport.StdioTransport.Builder#bypassNpmLauncher(boolean)}).
     * When the launcher runs after all, the process may be the Node launcher, whose child is the native binary
     * ({@code descendants()} reaches it); the launcher forwards SIGTERM ({@code destroy()}) to it. {@link #close()}
     * ends the whole tree either way.
     */
    public Optional<ProcessHandle> serverProcess() {
        return runtime.serverProcess();
    }

    /**
     * {@return the server's processes as they are now: {@link #serverProcess()} first, then every live process it
     * started, each after its parent} Empty when this client runs no server process. The first is the native
     * {@code codex} binary, also when codex was installed by npm, and the others are the commands of its turns. When
     * the npm launcher runs (turned off with
     * {@link dev.codexclient.transport.StdioTransport.Builder#bypassNpmLauncher(boolean)}, or a launcher the client
     * does not recognise) with a Node without {@code process.execve} (added in 22.15 and 23.11), the first is the
     * Node launcher and the second the native binary it runs. To end the server from outside as a crash would,
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
     * {@return the last lines the server this client spawned wrote to stderr, secrets masked} Empty when the
     * connection is not to a spawned server (WebSocket, in memory) or the server wrote nothing. With a restart
     * policy, the current server's. Lets an integration report what the server said when a turn failed while the
     * server kept running; an ended connection's exception carries its own tail.
     */
    public String serverStderrTail() {
        return runtime.serverStderrTail();
    }

    /**
     * {@return {@code text} with every secret this client masks replaced by {@code [REDACTED]}} The masking the
     * client applies to everything it logs and reports: the keys given to {@link CodexClientBuilder#apiKey},
     * {@link CodexClientBuilder#chatgptAuthTokens} and {@link CodexClientBuilder#secret}, refreshed tokens, and
     * credentials of well-known shapes. An integration that builds its own messages, logs or records from what the
     * server sent (a failed turn's message, a command line, the stderr tail) passes them through this, so that a
     * credential the server echoes back is masked there too. {@code null} gives the empty string.
     *
     * @param text the text to mask
     */
    @Override
    public String mask(CharSequence text) {
        return runtime.mask(text);
    }

    /**
     * Publishes an integration's telemetry to this client's {@link CodexClientBuilder#telemetryListener telemetry
     * listener}, after the records the client queued before it (see {@link Codex#publishTelemetry}). Does nothing
     * without a listener; never blocks; works on a closed client too.
     *
     * @param telemetry the record
     */
    @Override
    public void publishTelemetry(ExtensionTelemetry telemetry) {
        Objects.requireNonNull(telemetry, "telemetry");
        runtime.publish(telemetry);
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
     *       {@link CodexClientBuilder#closeTimeout(Duration) close timeout}
     *       ({@link dev.codexclient.transport.Transport#DEFAULT_CLOSE_TIMEOUT} by default) to exit on its own, then
     *       it and
     *       every process it started are terminated (SIGTERM, then SIGKILL a second or two later). Idle codex exits
     *       at once; some versions first wait for a command that is still running, which the close timeout cuts
     *       short. A WebSocket gets the same bound on its close handshake;</li>
     *   <li>the events already received to reach their listeners (up to 5 s; not when called from a listener or
     *       handler of this client, which would be waiting for itself);</li>
     *   <li>the client's own callback threads to finish what they run (up to 2 s; an executor you passed with
     *       {@link CodexClientBuilder#callbackExecutor} is left alone).</li>
     * </ol>
     */
    @Override
    public void close() {
        runtime.close();
    }

    /** The runtime this client is the facade of; for test code in this package. */
    ClientRuntime runtime() {
        return runtime;
    }

    static Duration positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
        return d;
    }
}

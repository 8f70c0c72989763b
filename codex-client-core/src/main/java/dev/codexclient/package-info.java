/**
 * The client API of codex-client: {@link dev.codexclient.CodexClient} (built with
 * {@link dev.codexclient.CodexClientBuilder}), its threads ({@link dev.codexclient.CodexThread}) and turns
 * ({@link dev.codexclient.CodexTurn}), typed calls ({@link dev.codexclient.CodexRpc}), and the handlers of the
 * server's requests ({@link dev.codexclient.ApprovalPolicy}, {@link dev.codexclient.DynamicTool}). This package holds
 * public API only; the engine behind it lives in packages that are not exported.
 *
 * <h2>Words</h2>
 * One word per concept, in names, messages and documentation alike. An entry's <em>Not</em> list names the words
 * that once stood for the same thing and are not used for it any more; the build fails where one appears in a main
 * source or a guide (deprecated aliases and the changelog aside).
 * <dl>
 *   <dt>notification</dt>
 *   <dd>A message the server sends unasked ({@code ServerNotification}). The client hands every notification to its
 *       notification listeners ({@link dev.codexclient.CodexClient#onNotification},
 *       {@link dev.codexclient.CodexClient#publisher()}).</dd>
 *   <dt>event (of a thread or a turn)</dt>
 *   <dd>A notification as its thread or turn sees it: {@link dev.codexclient.CodexThread#onEvent},
 *       {@link dev.codexclient.CodexTurn#onEvent}, {@link dev.codexclient.CodexTurn#events()},
 *       {@link dev.codexclient.CodexTurn#publisher()}. Always a protocol message; never telemetry.</dd>
 *   <dt>telemetry</dt>
 *   <dd>What the client reports about its own work to a
 *       {@link dev.codexclient.telemetry.CodexTelemetryListener} (package {@code dev.codexclient.telemetry}): a
 *       connection opened, a request ended, a turn ended, a restart gave up. Each report is a record named after what
 *       happened ({@code ConnectionOpened}, {@code TurnEnded}); an integration adds its own as
 *       {@link dev.codexclient.telemetry.ExtensionTelemetry}.
 *       <em>Not:</em> {@code event listener}, {@code eventListener}, {@code CodexEventListener},
 *       {@code dev.codexclient.events}, {@code EventEmitter}, {@code ExtensionEvent}, {@code publishEvent},
 *       {@code RequestEvents}, {@code PoolEvents}, {@code AgentRunEvent}.</dd>
 *   <dt>server request</dt>
 *   <dd>A request the server makes of the client (an approval, a tool call, a token refresh), answered by a
 *       handler or policy; distinct from a <em>request</em> or <em>call</em>, which the client makes of the
 *       server. The server-request router ({@code ServerRequestRouter}) picks who answers each; nothing else is a
 *       router: what the client keeps for a thread is the thread's <em>state</em>.
 *       <em>Not:</em> {@code router}.</dd>
 *   <dt>handler, listener</dt>
 *   <dd>A <em>handler</em> answers a server request; it is registered on the client's builder under the name of
 *       what it answers ({@code approvals}, {@code commandApprovals}, {@code userInput}, {@code serverRequest}, …).
 *       A <em>listener</em> is told of something and answers nothing; it is registered with a method named
 *       {@code on…} ({@code onNotification}, {@code onEvent}).
 *       <em>Not:</em> {@code onCommandApproval}, {@code onFileChangeApproval}, {@code onUserInput},
 *       {@code onElicitation}, {@code onChatgptTokenRefresh}, {@code onServerRequest},
 *       {@code onUnknownServerRequest}.</dd>
 *   <dt>transport</dt>
 *   <dd>The channel that carries the bytes: a spawned server's pipes, a WebSocket, a Unix socket
 *       ({@link dev.codexclient.transport.Transport}). The internal machinery behind a transport is its
 *       <em>engine</em> ({@code StdioEngine}, {@code WebSocketEngine}, {@code ChannelWebSocketEngine}).
 *       <em>Not:</em> {@code StdioConnection}, {@code WebSocketConnection}.</dd>
 *   <dt>connection</dt>
 *   <dd>One JSON-RPC conversation over one transport, from the handshake to its end. A client has one at a time;
 *       a connection never comes back once it ended.</dd>
 *   <dt>handshake</dt>
 *   <dd>The exchange every connection begins with: {@code initialize}, {@code initialized}, and the login when
 *       one is configured; the same at {@code build()} and after each restart. A WebSocket's own exchanges are
 *       named with it: its upgrade (opening handshake) and its close handshake.</dd>
 *   <dt>restart</dt>
 *   <dd>Under a {@link dev.codexclient.RestartPolicy}, a lost connection is replaced by a new one, with a new
 *       transport (a new server spawned, or the socket connected again), the handshake redone and the held threads
 *       resumed ({@code thread/resume}, in rounds). Connections that replace one another are numbered by
 *       <em>generation</em>; the client and its handles outlive them.
 *       <em>Not:</em> {@code recovery}, {@code restore}, {@code outage}, {@code reconnect}.</dd>
 *   <dt>held thread</dt>
 *   <dd>A thread the client keeps state for because something needs it: a turn starting or running, a listener
 *       of its events. A held thread is resumed after a restart; any thread may be used through its handle.</dd>
 *   <dt>delivery lane</dt>
 *   <dd>Where a thread's events run, one after another and in wire order: listeners of one thread never run at
 *       once, never on the thread that reads the connection.
 *       <em>Not:</em> {@code callback lane}.</dd>
 *   <dt>close timeout</dt>
 *   <dd>How long closing waits for the server to end on its own before ending it by force: one setting, named
 *       {@code closeTimeout} on the client's builder and on every transport's, with one default,
 *       {@link dev.codexclient.transport.Transport#DEFAULT_CLOSE_TIMEOUT}.
 *       <em>Not:</em> {@code gracefulCloseTimeout}.</dd>
 * </dl>
 *
 * <h2>One idiom per question</h2>
 * <ul>
 *   <li><b>Blocking or not.</b> A method that waits for the server has a twin with the suffix {@code Async} that
 *       returns a {@link java.util.concurrent.CompletableFuture} and never blocks ({@code startTurn} and
 *       {@code startTurnAsync}, {@code steer} and {@code steerAsync}). {@link dev.codexclient.CodexRpc}, the typed
 *       face of every protocol method, is asynchronous only and named after the protocol's methods, so it has no
 *       suffix.</li>
 *   <li><b>How long a blocking call waits.</b> A call to the server waits at most the client's request timeout; a
 *       wait for a turn takes its own {@link java.time.Duration} ({@code await}, {@code interrupt},
 *       {@code events(Duration)}). Every one refuses at once, with
 *       {@link dev.codexclient.errors.CodexDeadlockException}, a wait that could never end.</li>
 *   <li><b>Listeners and handlers.</b> A method named {@code on…} registers a <em>listener</em>: it is told what
 *       happened, returns nothing, and changes nothing ({@code onNotification}, {@code onEvent},
 *       {@code onAgentMessageDelta}). A <em>handler</em>, which must answer the server, is registered under the
 *       name of what it answers: {@code approvals}, {@code commandApprovals}, {@code fileChangeApprovals},
 *       {@code userInput}, {@code elicitations}, {@code chatgptTokenRefresh}, {@code tool},
 *       {@code serverRequest(method, …)}, {@code unknownServerRequest(method, …)}.</li>
 *   <li><b>Publishers.</b> Whatever a handle delivers to listeners it also offers as a
 *       {@link java.util.concurrent.Flow.Publisher}, always named {@code publisher()}: a turn's events, a thread's
 *       events, a client's notifications, a thread search's rows.</li>
 *   <li><b>The {@code Codex} prefix.</b> It is part of a name where the name alone would be a common word that
 *       clashes with a type a user imports beside it: {@code CodexClient}, {@code CodexThread} (beside
 *       {@code java.lang.Thread}), {@code CodexTurn} (beside the protocol's {@code Turn}), {@code CodexRpc},
 *       {@code CodexPool}, {@code CodexException} and its subclasses, {@code CodexExperimental}. A name that is
 *       particular already goes without it: {@code TurnResult}, {@code StructuredTurn}, {@code TurnEventStream},
 *       {@code ThreadSearch}, {@code PooledThread}, {@code ApprovalPolicy}, {@code DynamicTool}.</li>
 *   <li><b>Codex's experimental API.</b> What works only with
 *       {@link dev.codexclient.CodexClientBuilder#experimentalApi(boolean) experimentalApi(true)}, or follows
 *       a method or member codex marks experimental, carries {@link dev.codexclient.CodexExperimental}: it changes
 *       when codex changes it. Nothing else changes its behaviour under an unchanged signature: a new behaviour
 *       gets a new name or a new signature.</li>
 *   <li><b>Absent values.</b> The hand-written API returns {@link java.util.Optional} or an empty collection, never
 *       null; the records of the protocol keep the schema's optional members as they came.</li>
 * </ul>
 *
 * <p>The layers, and the path of a notification and of a server request through them, are described in the
 * project's {@code docs/ARCHITECTURE.md}.
 */
package dev.codexclient;

/**
 * The client API of codex-client: {@link dev.codexclient.CodexClient} (built with
 * {@link dev.codexclient.CodexClientBuilder}), its threads ({@link dev.codexclient.CodexThread}) and turns
 * ({@link dev.codexclient.CodexTurn}), typed calls ({@link dev.codexclient.CodexRpc}), and the handlers of the
 * server's requests ({@link dev.codexclient.ApprovalPolicy}, {@link dev.codexclient.DynamicTool}). This package holds
 * public API only; the engine behind it lives in packages that are not exported.
 *
 * <h2>Words</h2>
 * One word per concept, in names, messages and documentation alike.
 * <dl>
 *   <dt>notification</dt>
 *   <dd>A message the server sends unasked ({@code ServerNotification}). The client hands every notification to its
 *       notification listeners ({@link dev.codexclient.CodexClient#onNotification},
 *       {@link dev.codexclient.CodexClient#notifications()}).</dd>
 *   <dt>event (of a thread or a turn)</dt>
 *   <dd>A notification as its thread or turn sees it: {@link dev.codexclient.CodexThread#onEvent},
 *       {@link dev.codexclient.CodexTurn#onEvent}, {@link dev.codexclient.CodexTurn#events()},
 *       {@link dev.codexclient.CodexTurn#publisher()}. Always a protocol message; never telemetry.</dd>
 *   <dt>telemetry</dt>
 *   <dd>What the client reports about its own work to a {@link dev.codexclient.events.CodexEventListener}
 *       (package {@code dev.codexclient.events}: a connection opened, a request ended, a turn ended, a recovery
 *       gave up). The listener's records are named after what happened ({@code ConnectionOpened},
 *       {@code TurnEnded}); inside the client, what makes them is called telemetry.</dd>
 *   <dt>server request</dt>
 *   <dd>A request the server makes of the client (an approval, a tool call, a token refresh), answered by a
 *       handler or policy; distinct from a <em>request</em> or <em>call</em>, which the client makes of the
 *       server.</dd>
 *   <dt>transport</dt>
 *   <dd>The channel that carries the bytes: a spawned server's pipes, a WebSocket, a Unix socket
 *       ({@link dev.codexclient.transport.Transport}).</dd>
 *   <dt>connection</dt>
 *   <dd>One JSON-RPC conversation over one transport, from the handshake to its end. A client has one at a time;
 *       a connection never comes back once it ended.</dd>
 *   <dt>restart (restore)</dt>
 *   <dd>Under a {@link dev.codexclient.RestartPolicy}, a lost connection is replaced by a new one, with a new
 *       transport, the handshake redone and the held threads resumed. Connections that replace one another are
 *       numbered by <em>generation</em>; the client and its handles outlive them.</dd>
 *   <dt>held thread</dt>
 *   <dd>A thread the client keeps state for because something needs it: a turn starting or running, a listener
 *       of its events. A held thread is resumed after a restart; any thread may be used through its handle.</dd>
 *   <dt>delivery lane</dt>
 *   <dd>Where a thread's events run, one after another and in wire order: listeners of one thread never run at
 *       once, never on the thread that reads the connection.</dd>
 * </dl>
 *
 * <p>The layers, and the path of a notification and of a server request through them, are described in the
 * project's {@code docs/ARCHITECTURE.md}.
 */
package dev.codexclient;

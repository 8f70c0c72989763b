package dev.codexclient.spring.boot;

import dev.codexclient.PublisherOverflow;
import dev.codexclient.RestartPolicy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code codex.*} properties from which {@link CodexAutoConfiguration} builds the application's
 * {@link dev.codexclient.CodexClient}, bound once at start-up (Spring Boot binds a record through its constructor).
 *
 * <p>By default the client spawns {@code codex app-server} (the {@code codex} found on the {@code PATH}, or
 * {@code codex.binary}) and speaks to it over stdio. To use an app-server that runs already, set
 * {@code codex.websocket.url} or {@code codex.unix-socket.path} instead; the settings of a spawned server
 * ({@code codex.binary}, {@code codex.command}, {@code codex.home}, {@code codex.working-directory},
 * {@code codex.environment}, {@code codex.remove-environment}, {@code codex.bypass-npm-launcher=false}) are then
 * rejected rather than ignored. A
 * {@link dev.codexclient.transport.Transport} bean of the application takes the place of both.
 *
 * <p>A property left unset is null here and keeps the client's own default (see
 * {@link dev.codexclient.CodexClientBuilder}); bound lists and maps are empty, never null.
 *
 * @param enabled               Whether to auto-configure a CodexClient at all.
 * @param lazy                  Whether the client is built and connected when first asked for (through an
 *                              ObjectProvider), not when the context starts: the application starts without waiting
 *                              for codex, or without it.
 * @param binary                The codex executable to spawn: a path, or a bare name looked up on the PATH. Default:
 *                              "codex" on the PATH, then the pinned codex in
 *                              ${XDG_CACHE_HOME:-~/.cache}/codex-client/codex/VERSION (never installed at run time).
 * @param command               The full command to spawn, e.g. [/opt/codex/bin/codex, app-server, -c, model="o3"]:
 *                              instead of codex.binary, for a program with arguments of its own.
 * @param home                  CODEX_HOME of the spawned server: its configuration, credentials and session store.
 * @param workingDirectory      The working directory of the spawned server. Default: this process's.
 * @param environment           Environment variables of the spawned server, on top of this process's environment.
 *                              Write each name in brackets, codex.environment[RUST_LOG]=info, so that it is kept as
 *                              written. Values of variables whose names look secret (KEY, TOKEN, SECRET, PASSWORD)
 *                              are masked in logs and error messages.
 * @param removeEnvironment     Variables of this process's environment not to pass on to the spawned server, e.g.
 *                              OPENAI_API_KEY when codex should use the credentials stored in its CODEX_HOME.
 * @param bypassNpmLauncher     Whether to spawn the native codex when the executable is npm's Node.js launcher
 *                              (bin/codex.js): one process fewer, about half the time to ready and 40 MB less
 *                              memory per server. Set it to false to run the launcher as given. Default: true.
 * @param apiKey                An API key to log in with right after the handshake. Never logged.
 * @param clientInfo            How the client introduces itself in the handshake (codex's logs and user agent name
 *                              it).
 * @param requestTimeout        Default time a request waits for its response. Default: the client's (60 s).
 * @param initializeTimeout     Time the handshake may take; a server that does not answer in time fails the
 *                              start-up. Default: the client's (30 s).
 * @param closeTimeout          The longest the client waits on shutdown for the server to end on its own before
 *                              ending it by force (SIGTERM, then SIGKILL a second or two later). For a WebSocket: the
 *                              bound on its close handshake.
 * @param shutdownGracePeriod   At shutdown, how long running turns may go on (while the web server drains its
 *                              requests) before the client is closed, which ends them.
 * @param interruptGracePeriod  How long an interrupted turn may take to settle before its handle completes as
 *                              stalled. Default: the client's (10 s).
 * @param turnWatchdog          Watches every turn for silence: a turn that sees no event for this long is checked
 *                              and, if stuck, ended. Default: no watchdog.
 * @param experimentalApi       Whether to opt into codex's experimental methods and fields. Default: on when the
 *                              application declares DynamicTool beans (dynamic tools are an experimental API),
 *                              otherwise off.
 * @param optOutNotifications   Notification methods the server should never send, by exact name, e.g.
 *                              "thread/started".
 * @param approvalPolicy        How approvals are answered when the application declares no ApprovalPolicy bean. Only
 *                              refusals can be chosen here: a policy that accepts is code the application writes.
 * @param websocket             An app-server that runs already, reached over a WebSocket.
 * @param unixSocket            An app-server that runs already, reached over a Unix-domain socket.
 * @param health                The Actuator health indicator.
 * @param restart               The restart policy: how a lost app-server is replaced.
 * @param publisher             The Flow publishers: what a subscription holds for a slow subscriber.
 */
@ConfigurationProperties(prefix = "codex")
public record CodexProperties(
        @DefaultValue("true") boolean enabled,
        boolean lazy,
        String binary,
        @DefaultValue List<String> command,
        Path home,
        Path workingDirectory,
        @DefaultValue Map<String, String> environment,
        @DefaultValue List<String> removeEnvironment,
        @DefaultValue("true") boolean bypassNpmLauncher,
        String apiKey,
        @DefaultValue ClientInfo clientInfo,
        Duration requestTimeout,
        Duration initializeTimeout,
        @DefaultValue("5s") Duration closeTimeout,
        @DefaultValue("10s") Duration shutdownGracePeriod,
        Duration interruptGracePeriod,
        Duration turnWatchdog,
        Boolean experimentalApi,
        @DefaultValue List<String> optOutNotifications,
        @DefaultValue("decline") DefaultApprovalPolicy approvalPolicy,
        @DefaultValue WebSocket websocket,
        @DefaultValue UnixSocket unixSocket,
        @DefaultValue Health health,
        @DefaultValue Restart restart,
        @DefaultValue Publisher publisher) {

    /**
     * These properties with what is unset in code (null lists, maps and groups, which binding never leaves null)
     * replaced by the defaults binding gives, the collections unmodifiable: what the auto-configuration reads.
     */
    CodexProperties withDefaults() {
        return new CodexProperties(enabled, lazy, binary, copy(command), home, workingDirectory,
                environment == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(environment)),
                copy(removeEnvironment), bypassNpmLauncher, apiKey,
                clientInfo != null ? clientInfo : new ClientInfo(null, null, null), requestTimeout, initializeTimeout,
                closeTimeout != null ? closeTimeout : Duration.ofSeconds(5),
                shutdownGracePeriod != null ? shutdownGracePeriod : Duration.ofSeconds(10), interruptGracePeriod,
                turnWatchdog, experimentalApi, copy(optOutNotifications),
                approvalPolicy != null ? approvalPolicy : DefaultApprovalPolicy.DECLINE,
                websocket != null ? websocket : new WebSocket(null, null, false, null),
                unixSocket != null ? unixSocket : new UnixSocket(null, null, null),
                health != null && health.timeout() != null ? health : new Health(Duration.ofSeconds(2), false),
                restart != null ? restart : Restart.DEFAULTS,
                publisher != null ? publisher
                        : new Publisher(null, PublisherOverflow.COALESCE_DELTAS, Duration.ofMillis(50)));
    }

    /**
     * The properties as an application that sets none gets them.
     *
     * @return every property at its default
     */
    public static CodexProperties defaults() {
        return new CodexProperties(true, false, null, null, null, null, null, null, true, null, null, null, null, null,
                null, null, null, null, null, null, null, null, null, null, null).withDefaults();
    }

    private static List<String> copy(List<String> list) {
        return list == null ? List.of() : List.copyOf(list);
    }

    /**
     * The {@code codex.client-info.*} properties: the {@code clientInfo} of the {@code initialize} handshake.
     *
     * @param name    The client's name, e.g. "acme-bot"; codex names its user agent after it. Default: the SDK's.
     * @param title   The client's human-readable title. Default: the name.
     * @param version The client's version. Default: "unknown".
     */
    public record ClientInfo(String name, String title, String version) {
    }

    /**
     * The {@code codex.websocket.*} properties: an app-server listening on a WebSocket.
     *
     * @param url                       The app-server's address, e.g. "wss://codex.internal:4500" or
     *                                  "ws://127.0.0.1:4500".
     * @param bearerToken               The bearer token sent with the WebSocket handshake. Never logged.
     * @param allowCleartextBearerToken Whether to send the bearer token over a cleartext ws:// connection to a host
     *                                  that is not a loopback address, where anyone on the way could read it.
     * @param connectTimeout            How long opening the connection may take. Default: the transport's.
     */
    public record WebSocket(URI url, String bearerToken, boolean allowCleartextBearerToken, Duration connectTimeout) {
    }

    /**
     * The {@code codex.unix-socket.*} properties: an app-server listening on a Unix-domain socket.
     *
     * @param path           The socket file, e.g. the daemon socket
     *                       CODEX_HOME/app-server-control/app-server-control.sock.
     * @param bearerToken    The bearer token sent with the WebSocket handshake over the socket. Never logged.
     * @param connectTimeout How long opening the connection may take. Default: the transport's.
     */
    public record UnixSocket(Path path, String bearerToken, Duration connectTimeout) {
    }

    /**
     * The {@code codex.health.*} properties.
     *
     * @param timeout How long the health check waits for the server to answer its liveness request before reporting
     *                DOWN.
     * @param probe   Whether every check also sends the server a liveness request (thread/loaded/list), counted as
     *                traffic like any request; by default the check reads the client's state and costs the server
     *                nothing.
     */
    public record Health(@DefaultValue("2s") Duration timeout, boolean probe) {
    }

    /**
     * The {@code codex.restart.*} properties: a lost app-server is respawned (or a dropped socket connected again), the
     * handshake redone and every thread the client holds resumed; see {@link RestartPolicy}, whose defaults these
     * are.
     *
     * @param enabled        Whether a lost server is replaced; off by default (a lost server then closes the
     *                       client).
     * @param maxAttempts    Attempts per restart.
     * @param initialBackoff The bound of the wait before the first attempt; it doubles per attempt.
     * @param maxBackoff     The cap of every wait between attempts.
     * @param budget         Attempts allowed in any budget-window: a server that crashes at every start is not
     *                       restarted for ever.
     * @param budgetWindow   The sliding window of the attempt budget.
     */
    public record Restart(boolean enabled, @DefaultValue("5") int maxAttempts,
                          @DefaultValue("200ms") Duration initialBackoff, @DefaultValue("10s") Duration maxBackoff,
                          @DefaultValue("20") int budget, @DefaultValue("10m") Duration budgetWindow) {

        /** Off, with {@link RestartPolicy#defaults()}'s values. */
        static final Restart DEFAULTS = new Restart(false, 5, Duration.ofMillis(200), Duration.ofSeconds(10), 20,
                Duration.ofMinutes(10));

        /**
         * The policy these properties describe, checked as {@link RestartPolicy} checks it.
         *
         * @return the policy (whether or not {@code enabled})
         * @throws IllegalArgumentException naming the {@code codex.restart.*} properties that are out of bounds
         */
        public RestartPolicy policy() {
            try {
                return new RestartPolicy(maxAttempts, initialBackoff, maxBackoff, budget, budgetWindow);
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new IllegalArgumentException("codex.restart.*: " + e.getMessage() + " (max-attempts="
                        + maxAttempts + ", initial-backoff=" + initialBackoff + ", max-backoff=" + maxBackoff
                        + ", budget=" + budget + ", budget-window=" + budgetWindow + ")", e);
            }
        }
    }

    /**
     * The {@code codex.publisher.*} properties: what a subscription to {@code turn.publisher()},
     * {@code thread.publisher()} or {@code codex.publisher()} holds for a subscriber that lags (a Server-Sent
     * Events client on a slow link).
     *
     * @param bufferSize    Events a subscription holds beyond its subscriber's demand. Default: the client's (4096).
     * @param overflow      What a subscription does when more wait: coalesce-deltas (the starter's default) first
     *                      merges the waiting text deltas of one item, so a slow reader gets the whole text in fewer
     *                      events; fail ends it with a CodexBackpressureException.
     * @param deltaInterval The shortest time between two text deltas a subscription hands over; the deltas of one
     *                      item that arrive meanwhile are merged into the one that waits. A streaming HTTP response
     *                      keeps requesting while its network buffers fill, so without it a slow reader gets every
     *                      delta as an event of its own, some twenty bytes of framing for a character or two; with
     *                      it, at most one delta event per interval. 0 hands each delta over as it comes.
     */
    public record Publisher(Integer bufferSize, @DefaultValue("coalesce-deltas") PublisherOverflow overflow,
                            @DefaultValue("50ms") Duration deltaInterval) {
    }
}

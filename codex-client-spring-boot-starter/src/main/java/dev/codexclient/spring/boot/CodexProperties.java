package dev.codexclient.spring.boot;

import java.net.URI;
import java.nio.file.Path;
import dev.codexclient.PublisherOverflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code codex.*} properties from which {@link CodexAutoConfiguration} builds the application's
 * {@link dev.codexclient.CodexClient}.
 *
 * <p>By default the client spawns {@code codex app-server} (the {@code codex} found on the {@code PATH}, or
 * {@link #getBinary() codex.binary}) and speaks to it over stdio. To use an app-server that runs already, set
 * {@code codex.websocket.url} or {@code codex.unix-socket.path} instead; the settings of a spawned server
 * ({@code codex.binary}, {@code codex.command}, {@code codex.home}, {@code codex.working-directory},
 * {@code codex.environment}, {@code codex.remove-environment}) are then rejected rather than ignored. A
 * {@link dev.codexclient.transport.Transport} bean of the application takes the place of both.
 *
 * <p>Every timeout left unset keeps the client's own default (see {@link dev.codexclient.CodexClientBuilder}).
 */
@ConfigurationProperties(prefix = "codex")
public class CodexProperties {

    /** Whether to auto-configure a CodexClient at all. */
    private boolean enabled = true;

    /**
     * Whether the client is built and connected when first asked for (through an ObjectProvider), not when the
     * context starts: the application starts without waiting for codex, or without it.
     */
    private boolean lazy;

    /**
     * The codex executable to spawn: a path, or a bare name looked up on the PATH. Default: "codex" on the PATH, then
     * the pinned codex in ${XDG_CACHE_HOME:-~/.cache}/codex-client/codex/VERSION (never installed at run time).
     */
    private String binary;

    /**
     * The full command to spawn, e.g. [/opt/codex/bin/codex, app-server, -c, model="o3"]: instead of
     * codex.binary, for a program with arguments of its own.
     */
    private List<String> command = new ArrayList<>();

    /** CODEX_HOME of the spawned server: its configuration, credentials and session store. */
    private Path home;

    /** The working directory of the spawned server. Default: this process's. */
    private Path workingDirectory;

    /**
     * Environment variables of the spawned server, on top of this process's environment. Write each name in
     * brackets, codex.environment[RUST_LOG]=info, so that it is kept as written. Values of variables whose names look
     * secret (KEY, TOKEN, SECRET, PASSWORD) are masked in logs and error messages.
     */
    private Map<String, String> environment = new LinkedHashMap<>();

    /**
     * Variables of this process's environment not to pass on to the spawned server, e.g. OPENAI_API_KEY when
     * codex should use the credentials stored in its CODEX_HOME.
     */
    private List<String> removeEnvironment = new ArrayList<>();

    /** An API key to log in with right after the handshake. Never logged. */
    private String apiKey;

    /** How the client introduces itself in the handshake (codex's logs and user agent name it). */
    private final ClientInfo clientInfo = new ClientInfo();

    /** Default time a request waits for its response. Default: the client's (60 s). */
    private Duration requestTimeout;

    /** Time the handshake may take; a server that does not answer in time fails the start-up. Default: 30 s. */
    private Duration initializeTimeout;

    /**
     * The longest the client waits on shutdown for the server to end on its own before ending it by force
     * (SIGTERM, then SIGKILL a second or two later). For a WebSocket: the bound on its close handshake.
     */
    private Duration closeTimeout = Duration.ofSeconds(5);

    /**
     * At shutdown, how long running turns may go on (while the web server drains its requests) before the client is
     * closed, which ends them.
     */
    private Duration shutdownGracePeriod = Duration.ofSeconds(10);

    /**
     * How long an interrupted turn may take to settle before its handle completes as stalled. Default: the
     * client's (10 s).
     */
    private Duration interruptGracePeriod;

    /** Watches every turn for silence: a turn that sees no event for this long is checked and, if stuck, ended. */
    private Duration turnWatchdog;

    /**
     * Whether to opt into codex's experimental methods and fields. Default: on when the application declares
     * DynamicTool beans (dynamic tools are an experimental API), otherwise off.
     */
    private Boolean experimentalApi;

    /** Notification methods the server should never send, by exact name, e.g. "thread/started". */
    private List<String> optOutNotifications = new ArrayList<>();

    /**
     * How approvals are answered when the application declares no ApprovalPolicy bean. Only refusals can be chosen
     * here: a policy that accepts is code the application writes.
     */
    private DefaultApprovalPolicy approvalPolicy = DefaultApprovalPolicy.DECLINE;

    /** An app-server that runs already, reached over a WebSocket. */
    private final WebSocket websocket = new WebSocket();

    /** An app-server that runs already, reached over a Unix-domain socket. */
    private final UnixSocket unixSocket = new UnixSocket();

    /** The Actuator health indicator. */
    private final Health health = new Health();

    /** The restart policy: how a lost app-server is replaced ({@code codex.restart.*}). */
    private final Restart restart = new Restart();

    /** The Flow publishers: what a subscription holds for a slow subscriber ({@code codex.publisher.*}). */
    private final Publisher publisher = new Publisher();

    /**
     * Whether to auto-configure a client.
     *
     * @return {@code codex.enabled}
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Sets {@code codex.enabled}.
     *
     * @param enabled whether to auto-configure a client
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * How long running turns may go on once the shutdown began.
     *
     * @return {@code codex.shutdown-grace-period}
     */
    public Duration getShutdownGracePeriod() {
        return shutdownGracePeriod;
    }

    /**
     * Sets {@code codex.shutdown-grace-period}.
     *
     * @param shutdownGracePeriod zero or more
     */
    public void setShutdownGracePeriod(Duration shutdownGracePeriod) {
        this.shutdownGracePeriod = shutdownGracePeriod;
    }

    /**
     * Whether the client is made when first asked for.
     *
     * @return {@code codex.lazy}
     */
    public boolean isLazy() {
        return lazy;
    }

    /**
     * Sets {@code codex.lazy}.
     *
     * @param lazy whether the client is made when first asked for
     */
    public void setLazy(boolean lazy) {
        this.lazy = lazy;
    }

    /**
     * The codex executable to spawn.
     *
     * @return {@code codex.binary}, or null for {@code codex} on the {@code PATH}
     */
    public String getBinary() {
        return binary;
    }

    /**
     * Sets {@code codex.binary}.
     *
     * @param binary a path, or a bare name looked up on the {@code PATH}
     */
    public void setBinary(String binary) {
        this.binary = binary;
    }

    /**
     * The full command to spawn.
     *
     * @return {@code codex.command}; empty for {@code codex.binary} with the argument {@code app-server}
     */
    public List<String> getCommand() {
        return command;
    }

    /**
     * Sets {@code codex.command}.
     *
     * @param command the program and its arguments
     */
    public void setCommand(List<String> command) {
        this.command = command;
    }

    /**
     * The spawned server's {@code CODEX_HOME}.
     *
     * @return {@code codex.home}, or null to leave the server's environment as it is
     */
    public Path getHome() {
        return home;
    }

    /**
     * Sets {@code codex.home}.
     *
     * @param home the directory to give the server as {@code CODEX_HOME}
     */
    public void setHome(Path home) {
        this.home = home;
    }

    /**
     * The spawned server's working directory.
     *
     * @return {@code codex.working-directory}, or null for this process's
     */
    public Path getWorkingDirectory() {
        return workingDirectory;
    }

    /**
     * Sets {@code codex.working-directory}.
     *
     * @param workingDirectory the directory the server runs in
     */
    public void setWorkingDirectory(Path workingDirectory) {
        this.workingDirectory = workingDirectory;
    }

    /**
     * Environment variables of the spawned server.
     *
     * @return {@code codex.environment.*}, by name; empty when none
     */
    public Map<String, String> getEnvironment() {
        return environment;
    }

    /**
     * Sets {@code codex.environment.*}.
     *
     * @param environment the variables, by name
     */
    public void setEnvironment(Map<String, String> environment) {
        this.environment = environment;
    }

    /**
     * Variables not passed on to the spawned server.
     *
     * @return {@code codex.remove-environment}; empty when none
     */
    public List<String> getRemoveEnvironment() {
        return removeEnvironment;
    }

    /**
     * Sets {@code codex.remove-environment}.
     *
     * @param removeEnvironment names of variables of this process the server must not see
     */
    public void setRemoveEnvironment(List<String> removeEnvironment) {
        this.removeEnvironment = removeEnvironment;
    }

    /**
     * The API key to log in with.
     *
     * @return {@code codex.api-key}, or null not to log in
     */
    public String getApiKey() {
        return apiKey;
    }

    /**
     * Sets {@code codex.api-key}.
     *
     * @param apiKey the key; never logged
     */
    public void setApiKey(String apiKey) {
        this.apiKey = apiKey;
    }

    /**
     * How the client introduces itself.
     *
     * @return the {@code codex.client-info.*} properties
     */
    public ClientInfo getClientInfo() {
        return clientInfo;
    }

    /**
     * The default request timeout.
     *
     * @return {@code codex.request-timeout}, or null for the client's default
     */
    public Duration getRequestTimeout() {
        return requestTimeout;
    }

    /**
     * Sets {@code codex.request-timeout}.
     *
     * @param requestTimeout a positive duration
     */
    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    /**
     * The handshake timeout.
     *
     * @return {@code codex.initialize-timeout}, or null for the client's default
     */
    public Duration getInitializeTimeout() {
        return initializeTimeout;
    }

    /**
     * Sets {@code codex.initialize-timeout}.
     *
     * @param initializeTimeout a positive duration
     */
    public void setInitializeTimeout(Duration initializeTimeout) {
        this.initializeTimeout = initializeTimeout;
    }

    /**
     * The bound on the server's end at shutdown.
     *
     * @return {@code codex.close-timeout}
     */
    public Duration getCloseTimeout() {
        return closeTimeout;
    }

    /**
     * Sets {@code codex.close-timeout}.
     *
     * @param closeTimeout zero or positive; zero ends the server at once
     */
    public void setCloseTimeout(Duration closeTimeout) {
        this.closeTimeout = closeTimeout;
    }

    /**
     * The settle time of an interrupted turn.
     *
     * @return {@code codex.interrupt-grace-period}, or null for the client's default
     */
    public Duration getInterruptGracePeriod() {
        return interruptGracePeriod;
    }

    /**
     * Sets {@code codex.interrupt-grace-period}.
     *
     * @param interruptGracePeriod a positive duration
     */
    public void setInterruptGracePeriod(Duration interruptGracePeriod) {
        this.interruptGracePeriod = interruptGracePeriod;
    }

    /**
     * The silence after which a turn is checked.
     *
     * @return {@code codex.turn-watchdog}, or null for no watchdog
     */
    public Duration getTurnWatchdog() {
        return turnWatchdog;
    }

    /**
     * Sets {@code codex.turn-watchdog}.
     *
     * @param turnWatchdog a positive duration
     */
    public void setTurnWatchdog(Duration turnWatchdog) {
        this.turnWatchdog = turnWatchdog;
    }

    /**
     * Whether to opt into the experimental API.
     *
     * @return {@code codex.experimental-api}, or null to decide by the application's dynamic tools
     */
    public Boolean getExperimentalApi() {
        return experimentalApi;
    }

    /**
     * Sets {@code codex.experimental-api}.
     *
     * @param experimentalApi whether to opt in
     */
    public void setExperimentalApi(Boolean experimentalApi) {
        this.experimentalApi = experimentalApi;
    }

    /**
     * Notification methods the server should not send.
     *
     * @return {@code codex.opt-out-notifications}; empty when none
     */
    public List<String> getOptOutNotifications() {
        return optOutNotifications;
    }

    /**
     * Sets {@code codex.opt-out-notifications}.
     *
     * @param optOutNotifications exact method names
     */
    public void setOptOutNotifications(List<String> optOutNotifications) {
        this.optOutNotifications = optOutNotifications;
    }

    /**
     * The answer to approvals without an ApprovalPolicy bean.
     *
     * @return {@code codex.approval-policy}
     */
    public DefaultApprovalPolicy getApprovalPolicy() {
        return approvalPolicy;
    }

    /**
     * Sets {@code codex.approval-policy}.
     *
     * @param approvalPolicy one of the refusing policies
     */
    public void setApprovalPolicy(DefaultApprovalPolicy approvalPolicy) {
        this.approvalPolicy = approvalPolicy;
    }

    /**
     * The WebSocket connection.
     *
     * @return the {@code codex.websocket.*} properties
     */
    public WebSocket getWebsocket() {
        return websocket;
    }

    /**
     * The Unix-socket connection.
     *
     * @return the {@code codex.unix-socket.*} properties
     */
    public UnixSocket getUnixSocket() {
        return unixSocket;
    }

    /**
     * The health indicator.
     *
     * @return the {@code codex.health.*} properties
     */
    public Health getHealth() {
        return health;
    }

    /**
     * The restart policy.
     *
     * @return the {@code codex.restart.*} properties
     */
    public Restart getRestart() {
        return restart;
    }

    /**
     * The publishers' buffering.
     *
     * @return the {@code codex.publisher.*} properties
     */
    public Publisher getPublisher() {
        return publisher;
    }

    /** The {@code codex.client-info.*} properties: the {@code clientInfo} of the {@code initialize} handshake. */
    public static class ClientInfo {

        /** The client's name, e.g. "acme-bot"; codex names its user agent after it. Default: the SDK's. */
        private String name;

        /** The client's human-readable title. Default: the name. */
        private String title;

        /** The client's version. Default: "unknown". */
        private String version;

        /** Creates the properties with no value set. */
        public ClientInfo() {
        }

        /**
         * The client's name.
         *
         * @return {@code codex.client-info.name}, or null for the SDK's own
         */
        public String getName() {
            return name;
        }

        /**
         * Sets {@code codex.client-info.name}.
         *
         * @param name e.g. {@code acme-bot}
         */
        public void setName(String name) {
            this.name = name;
        }

        /**
         * The client's title.
         *
         * @return {@code codex.client-info.title}, or null for the name
         */
        public String getTitle() {
            return title;
        }

        /**
         * Sets {@code codex.client-info.title}.
         *
         * @param title a human-readable title
         */
        public void setTitle(String title) {
            this.title = title;
        }

        /**
         * The client's version.
         *
         * @return {@code codex.client-info.version}, or null for {@code unknown}
         */
        public String getVersion() {
            return version;
        }

        /**
         * Sets {@code codex.client-info.version}.
         *
         * @param version e.g. {@code 1.4.0}
         */
        public void setVersion(String version) {
            this.version = version;
        }
    }

    /** The {@code codex.websocket.*} properties: an app-server listening on a WebSocket. */
    public static class WebSocket {

        /** The app-server's address, e.g. "wss://codex.internal:4500" or "ws://127.0.0.1:4500". */
        private URI url;

        /** The bearer token sent with the WebSocket handshake. Never logged. */
        private String bearerToken;

        /**
         * Whether to send the bearer token over a cleartext ws:// connection to a host that is not a loopback
         * address, where anyone on the way could read it. Off by default.
         */
        private boolean allowCleartextBearerToken;

        /** How long opening the connection may take. Default: the transport's. */
        private Duration connectTimeout;

        /** Creates the properties with no value set. */
        public WebSocket() {
        }

        /**
         * The app-server's address.
         *
         * @return {@code codex.websocket.url}, or null not to use a WebSocket
         */
        public URI getUrl() {
            return url;
        }

        /**
         * Sets {@code codex.websocket.url}.
         *
         * @param url a {@code ws://} or {@code wss://} address
         */
        public void setUrl(URI url) {
            this.url = url;
        }

        /**
         * The bearer token.
         *
         * @return {@code codex.websocket.bearer-token}, or null for none
         */
        public String getBearerToken() {
            return bearerToken;
        }

        /**
         * Sets {@code codex.websocket.bearer-token}.
         *
         * @param bearerToken the token; never logged
         */
        public void setBearerToken(String bearerToken) {
            this.bearerToken = bearerToken;
        }

        /**
         * Whether a bearer token may go over cleartext.
         *
         * @return {@code codex.websocket.allow-cleartext-bearer-token}
         */
        public boolean isAllowCleartextBearerToken() {
            return allowCleartextBearerToken;
        }

        /**
         * Sets {@code codex.websocket.allow-cleartext-bearer-token}.
         *
         * @param allowCleartextBearerToken whether a token may go over {@code ws://} to another host
         */
        public void setAllowCleartextBearerToken(boolean allowCleartextBearerToken) {
            this.allowCleartextBearerToken = allowCleartextBearerToken;
        }

        /**
         * The connect timeout.
         *
         * @return {@code codex.websocket.connect-timeout}, or null for the transport's default
         */
        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        /**
         * Sets {@code codex.websocket.connect-timeout}.
         *
         * @param connectTimeout a positive duration
         */
        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }
    }

    /** The {@code codex.unix-socket.*} properties: an app-server listening on a Unix-domain socket. */
    public static class UnixSocket {

        /**
         * The socket file, e.g. the daemon socket CODEX_HOME/app-server-control/app-server-control.sock.
         */
        private Path path;

        /** The bearer token sent with the WebSocket handshake over the socket. Never logged. */
        private String bearerToken;

        /** How long opening the connection may take. Default: the transport's. */
        private Duration connectTimeout;

        /** Creates the properties with no value set. */
        public UnixSocket() {
        }

        /**
         * The socket file.
         *
         * @return {@code codex.unix-socket.path}, or null not to use a Unix socket
         */
        public Path getPath() {
            return path;
        }

        /**
         * Sets {@code codex.unix-socket.path}.
         *
         * @param path the socket file
         */
        public void setPath(Path path) {
            this.path = path;
        }

        /**
         * The bearer token.
         *
         * @return {@code codex.unix-socket.bearer-token}, or null for none
         */
        public String getBearerToken() {
            return bearerToken;
        }

        /**
         * Sets {@code codex.unix-socket.bearer-token}.
         *
         * @param bearerToken the token; never logged
         */
        public void setBearerToken(String bearerToken) {
            this.bearerToken = bearerToken;
        }

        /**
         * The connect timeout.
         *
         * @return {@code codex.unix-socket.connect-timeout}, or null for the transport's default
         */
        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        /**
         * Sets {@code codex.unix-socket.connect-timeout}.
         *
         * @param connectTimeout a positive duration
         */
        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }
    }

    /** The {@code codex.health.*} properties. */
    public static class Health {

        /**
         * How long the health check waits for the server to answer its liveness request before reporting DOWN.
         */
        private Duration timeout = Duration.ofSeconds(2);

        /**
         * Whether every check also sends the server a liveness request ({@code thread/loaded/list}), counted as
         * traffic like any request; by default the check reads the client's state and costs the server nothing.
         */
        private boolean probe;

        /** Creates the properties with their defaults. */
        public Health() {
        }

        /**
         * Whether a check sends the liveness request.
         *
         * @return {@code codex.health.probe}
         */
        public boolean isProbe() {
            return probe;
        }

        /**
         * Sets {@code codex.health.probe}.
         *
         * @param probe whether a check sends the liveness request
         */
        public void setProbe(boolean probe) {
            this.probe = probe;
        }

        /**
         * The liveness check's bound.
         *
         * @return {@code codex.health.timeout}
         */
        public Duration getTimeout() {
            return timeout;
        }

        /**
         * Sets {@code codex.health.timeout}.
         *
         * @param timeout a positive duration
         */
        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /**
     * The {@code codex.restart.*} properties: a lost app-server is respawned (or a dropped socket connected again), the
     * handshake redone and every thread the client holds resumed; see {@link dev.codexclient.RestartPolicy}. Unset
     * values keep the policy's defaults.
     */
    public static class Restart {

        /** Whether a lost server is replaced; off by default (a lost server then closes the client). */
        private boolean enabled;

        /** Attempts per restart (default 5). */
        private Integer maxAttempts;

        /** The bound of the wait before the first attempt (default 200 ms); it doubles per attempt. */
        private Duration initialBackoff;

        /** The cap of every wait between attempts (default 10 s). */
        private Duration maxBackoff;

        /** Attempts allowed in any {@code budget-window} (default 20). */
        private Integer budget;

        /** The sliding window of the attempt budget (default 10 minutes). */
        private Duration budgetWindow;

        /** Creates the properties with their defaults. */
        public Restart() {
        }

        /**
         * Whether the client replaces a lost server.
         *
         * @return {@code codex.restart.enabled}
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code codex.restart.enabled}.
         *
         * @param enabled whether to replace a lost server
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * Attempts per restart.
         *
         * @return {@code codex.restart.max-attempts}, or null for the policy's default
         */
        public Integer getMaxAttempts() {
            return maxAttempts;
        }

        /**
         * Sets {@code codex.restart.max-attempts}.
         *
         * @param maxAttempts at least 1
         */
        public void setMaxAttempts(Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        /**
         * The first wait's bound.
         *
         * @return {@code codex.restart.initial-backoff}, or null for the policy's default
         */
        public Duration getInitialBackoff() {
            return initialBackoff;
        }

        /**
         * Sets {@code codex.restart.initial-backoff}.
         *
         * @param initialBackoff zero or more
         */
        public void setInitialBackoff(Duration initialBackoff) {
            this.initialBackoff = initialBackoff;
        }

        /**
         * The cap of every wait.
         *
         * @return {@code codex.restart.max-backoff}, or null for the policy's default
         */
        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        /**
         * Sets {@code codex.restart.max-backoff}.
         *
         * @param maxBackoff at least the initial backoff
         */
        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
        }

        /**
         * Attempts allowed in the window.
         *
         * @return {@code codex.restart.budget}, or null for the policy's default
         */
        public Integer getBudget() {
            return budget;
        }

        /**
         * Sets {@code codex.restart.budget}.
         *
         * @param budget at least 1
         */
        public void setBudget(Integer budget) {
            this.budget = budget;
        }

        /**
         * The budget's window.
         *
         * @return {@code codex.restart.budget-window}, or null for the policy's default
         */
        public Duration getBudgetWindow() {
            return budgetWindow;
        }

        /**
         * Sets {@code codex.restart.budget-window}.
         *
         * @param budgetWindow the sliding window
         */
        public void setBudgetWindow(Duration budgetWindow) {
            this.budgetWindow = budgetWindow;
        }
    }

    /**
     * The {@code codex.publisher.*} properties: what a subscription to {@code turn.publisher()},
     * {@code thread.publisher()} or {@code codex.notifications()} holds for a subscriber that lags (a Server-Sent
     * Events client on a slow link).
     */
    public static class Publisher {

        /** Events a subscription holds beyond its subscriber's demand (default 4096). */
        private Integer bufferSize;

        /**
         * What a subscription does when more wait: {@code fail} (the default) ends it with a
         * CodexBackpressureException; {@code coalesce-deltas} first merges the waiting text deltas of one item, so
         * the text arrives whole in fewer events.
         */
        private PublisherOverflow overflow;

        /** Creates the properties with their defaults. */
        public Publisher() {
        }

        /**
         * The bound beyond the demand.
         *
         * @return {@code codex.publisher.buffer-size}, or null for the client's default
         */
        public Integer getBufferSize() {
            return bufferSize;
        }

        /**
         * Sets {@code codex.publisher.buffer-size}.
         *
         * @param bufferSize at least 1
         */
        public void setBufferSize(Integer bufferSize) {
            this.bufferSize = bufferSize;
        }

        /**
         * What a lagging subscription does.
         *
         * @return {@code codex.publisher.overflow}, or null for the client's default ({@code fail})
         */
        public PublisherOverflow getOverflow() {
            return overflow;
        }

        /**
         * Sets {@code codex.publisher.overflow}.
         *
         * @param overflow {@code fail} or {@code coalesce-deltas}
         */
        public void setOverflow(PublisherOverflow overflow) {
            this.overflow = overflow;
        }
    }
}

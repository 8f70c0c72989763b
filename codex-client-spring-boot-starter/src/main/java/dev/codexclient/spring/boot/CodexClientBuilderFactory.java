package dev.codexclient.spring.boot;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.DynamicTool;
import dev.codexclient.RestartPolicy;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.UnixSocketTransport;
import dev.codexclient.transport.WebSocketTransport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the {@code codex.*} properties and the application's beans into a {@link CodexClientBuilder}: which
 * transport, which handshake, which timeouts, which policy, tools and listeners. Kept apart from the
 * auto-configuration so the mapping reads in one place and contradictions fail with the properties' names.
 */
final class CodexClientBuilderFactory {
    private static final Logger LOG = LoggerFactory.getLogger(CodexClientBuilderFactory.class);

    private final CodexProperties properties;
    private final CodexExecutables executables;

    CodexClientBuilderFactory(CodexProperties properties) {
        this(properties, CodexExecutables.ofThisProcess());
    }

    CodexClientBuilderFactory(CodexProperties properties, CodexExecutables executables) {
        this.properties = properties;
        this.executables = executables;
    }

    /**
     * The application's approval policies: for every kind, and for commands and file changes alone.
     *
     * @param all         decides every kind, in place of {@code codex.approval-policy}
     * @param commands    decides command approvals, in place of the policy for every kind
     * @param fileChanges decides file-change approvals, in place of the policy for every kind
     */
    record Approvals(Optional<ApprovalPolicy<ApprovalRequest>> all,
                     Optional<ApprovalPolicy<ApprovalRequest.Command>> commands,
                     Optional<ApprovalPolicy<ApprovalRequest.FileChange>> fileChanges) {
    }

    /**
     * The builder for the application's client.
     *
     * @param transport   the application's own transport bean, if any
     * @param approvals   the application's approval policy beans
     * @param tools       the application's dynamic tools, in order
     * @param listeners   the application's telemetry listeners, in order
     * @param customizers applied last, in order
     */
    CodexClientBuilder builder(Optional<Transport> transport, Approvals approvals,
                                List<DynamicTool> tools, List<CodexTelemetryListener> listeners,
                                List<CodexClientBuilderCustomizer> customizers) {
        CodexClientBuilder builder = CodexClient.builder();
        connection(builder, transport);
        if (transport.isEmpty()) {
            // A Transport bean is one connection, which no restart can replace.
            restartPolicy().ifPresent(builder::restartPolicy);
        }
        handshake(builder, !tools.isEmpty());
        timing(builder);
        builder.approvals(approvals.all().orElseGet(() -> properties.getApprovalPolicy().policy()));
        approvals.commands().ifPresent(builder::onCommandApproval);
        approvals.fileChanges().ifPresent(builder::onFileChangeApproval);
        tools.forEach(builder::tool);
        if (listeners.size() == 1) {
            builder.telemetryListener(listeners.get(0));
        } else if (!listeners.isEmpty()) {
            builder.telemetryListener(CodexTelemetryListener.composite(listeners.toArray(CodexTelemetryListener[]::new)));
        }
        customizers.forEach(customizer -> customizer.customize(builder));
        return builder;
    }

    private void connection(CodexClientBuilder builder, Optional<Transport> transport) {
        CodexProperties.WebSocket websocket = properties.getWebsocket();
        CodexProperties.UnixSocket unixSocket = properties.getUnixSocket();
        if (transport.isPresent()) {
            // The application's (or a test's) own bean replaces the wiring the properties describe, as a bean of a
            // test replaces the production one anywhere else in Spring: the properties may stay in
            // application.properties.
            List<String> ignored = new ArrayList<>(spawnSettings());
            if (properties.getRestart().isEnabled()) {
                ignored.add("codex.restart.enabled");
            }
            if (websocket.getUrl() != null) {
                ignored.add("codex.websocket.url");
            }
            if (unixSocket.getPath() != null) {
                ignored.add("codex.unix-socket.path");
            }
            if (!ignored.isEmpty()) {
                LOG.info("codex: connecting through the Transport bean ({}); {} not used", transport.get().describe(),
                        String.join(", ", ignored));
            }
            builder.transport(transport.get());
            return;
        }
        List<String> remote = new ArrayList<>();
        if (websocket.getUrl() != null) {
            remote.add("codex.websocket.url");
        }
        if (unixSocket.getPath() != null) {
            remote.add("codex.unix-socket.path");
        }
        if (remote.size() > 1) {
            throw new IllegalStateException("codex: " + String.join(" and ", remote) + " each name the app-server "
                    + "to connect to; keep one of them");
        }
        if (remote.isEmpty()) {
            spawn(builder);
            return;
        }
        List<String> spawnSettings = spawnSettings();
        if (!spawnSettings.isEmpty()) {
            throw new IllegalStateException("codex: " + String.join(", ", spawnSettings) + " configure the "
                    + "app-server the client would spawn, but " + remote.get(0) + " connects to one that runs "
                    + "already; remove them, or remove " + remote.get(0) + " to spawn codex");
        }
        if (websocket.getUrl() != null) {
            WebSocketTransport.Builder ws = WebSocketTransport.builder(websocket.getUrl());
            if (websocket.getBearerToken() != null) {
                ws.bearerToken(websocket.getBearerToken());
                builder.secret(websocket.getBearerToken());
            }
            if (websocket.isAllowCleartextBearerToken()) {
                ws.allowCleartextBearerToken();
            }
            if (websocket.getConnectTimeout() != null) {
                ws.connectTimeout(websocket.getConnectTimeout());
            }
            restartable(builder, ws::build);
        } else {
            UnixSocketTransport.Builder socket = UnixSocketTransport.builder().path(unixSocket.getPath());
            if (unixSocket.getBearerToken() != null) {
                socket.bearerToken(unixSocket.getBearerToken());
                builder.secret(unixSocket.getBearerToken());
            }
            if (unixSocket.getConnectTimeout() != null) {
                socket.connectTimeout(unixSocket.getConnectTimeout());
            }
            restartable(builder, socket::build);
        }
    }

    /**
     * A remote server's transport: under a restart policy a factory, so a dropped connection can be opened anew;
     * otherwise the one transport.
     */
    private void restartable(CodexClientBuilder builder, Supplier<? extends Transport> transports) {
        if (properties.getRestart().isEnabled()) {
            builder.transportFactory(transports);
        } else {
            builder.transport(transports.get());
        }
    }

    /** The properties set that configure a spawned server, by name. */
    private List<String> spawnSettings() {
        List<String> set = new ArrayList<>();
        if (properties.getBinary() != null) {
            set.add("codex.binary");
        }
        if (!properties.getCommand().isEmpty()) {
            set.add("codex.command");
        }
        if (properties.getHome() != null) {
            set.add("codex.home");
        }
        if (properties.getWorkingDirectory() != null) {
            set.add("codex.working-directory");
        }
        if (!properties.getEnvironment().isEmpty()) {
            set.add("codex.environment");
        }
        if (!properties.getRemoveEnvironment().isEmpty()) {
            set.add("codex.remove-environment");
        }
        return set;
    }

    private void spawn(CodexClientBuilder builder) {
        if (properties.getBinary() != null && !properties.getCommand().isEmpty()) {
            throw new IllegalStateException("codex.binary and codex.command both name the program to spawn; keep one "
                    + "(codex.command for a program with arguments of its own)");
        }
        if (!properties.getCommand().isEmpty()) {
            builder.command(properties.getCommand());
        }
        if (properties.getBinary() != null) {
            if (properties.getBinary().isBlank()) {
                throw new IllegalStateException("codex.binary is blank: name the codex executable (a path, or a name "
                        + "on the PATH), or leave the property out for codex on the PATH");
            }
            builder.codexBinary(Path.of(properties.getBinary()));
        } else if (properties.getCommand().isEmpty()) {
            builder.codexBinary(executables.find());
        }
        if (properties.getHome() != null) {
            builder.codexHome(properties.getHome());
        }
        if (properties.getWorkingDirectory() != null) {
            builder.workingDirectory(properties.getWorkingDirectory());
        }
        properties.getEnvironment().forEach(builder::environment);
        if (!properties.getRemoveEnvironment().isEmpty()) {
            builder.stdio(stdio -> properties.getRemoveEnvironment().forEach(stdio::removeEnvironment));
        }
    }

    private void handshake(CodexClientBuilder builder, boolean hasTools) {
        CodexProperties.ClientInfo info = properties.getClientInfo();
        if (info.getName() != null) {
            builder.clientInfo(info.getName(), info.getTitle() != null ? info.getTitle() : info.getName(),
                    info.getVersion() != null ? info.getVersion() : "unknown");
        } else if (info.getTitle() != null || info.getVersion() != null) {
            throw new IllegalStateException("codex.client-info.title and codex.client-info.version describe a client "
                    + "named by codex.client-info.name, which is not set");
        }
        // Dynamic tools are an experimental codex API: declaring one is opting in, unless the property says no (and
        // the client's build() then says why that cannot work).
        builder.experimentalApi(properties.getExperimentalApi() != null ? properties.getExperimentalApi() : hasTools);
        if (!properties.getOptOutNotifications().isEmpty()) {
            builder.optOutNotifications(properties.getOptOutNotifications().toArray(String[]::new));
        }
        if (properties.getApiKey() != null) {
            builder.apiKey(properties.getApiKey());
        }
    }

    /** The restart policy of {@code codex.restart.*}; empty unless {@code codex.restart.enabled}. */
    private Optional<RestartPolicy> restartPolicy() {
        CodexProperties.Restart restart = properties.getRestart();
        if (!restart.isEnabled()) {
            return Optional.empty();
        }
        RestartPolicy defaults = RestartPolicy.defaults();
        return Optional.of(RestartPolicy.builder()
                .maxAttempts(restart.getMaxAttempts() != null ? restart.getMaxAttempts() : defaults.maxAttempts())
                .backoff(restart.getInitialBackoff() != null ? restart.getInitialBackoff() : defaults.initialBackoff(),
                        restart.getMaxBackoff() != null ? restart.getMaxBackoff() : defaults.maxBackoff())
                .budget(restart.getBudget() != null ? restart.getBudget() : defaults.budget(),
                        restart.getBudgetWindow() != null ? restart.getBudgetWindow() : defaults.budgetWindow())
                .build());
    }

    private void timing(CodexClientBuilder builder) {
        if (properties.getRequestTimeout() != null) {
            builder.requestTimeout(properties.getRequestTimeout());
        }
        if (properties.getInitializeTimeout() != null) {
            builder.initializeTimeout(properties.getInitializeTimeout());
        }
        if (properties.getInterruptGracePeriod() != null) {
            builder.interruptGracePeriod(properties.getInterruptGracePeriod());
        }
        if (properties.getTurnWatchdog() != null) {
            builder.turnWatchdog(properties.getTurnWatchdog());
        }
        if (properties.getCloseTimeout() != null) {
            builder.closeTimeout(properties.getCloseTimeout());
        }
        CodexProperties.Publisher publisher = properties.getPublisher();
        if (publisher.getBufferSize() != null) {
            builder.publisherBufferSize(publisher.getBufferSize());
        }
        if (publisher.getOverflow() != null) {
            builder.publisherOverflow(publisher.getOverflow());
        }
    }
}

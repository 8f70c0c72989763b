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
        this.properties = properties.withDefaults();
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
        builder.approvals(approvals.all().orElseGet(() -> properties.approvalPolicy().policy()));
        approvals.commands().ifPresent(builder::commandApprovals);
        approvals.fileChanges().ifPresent(builder::fileChangeApprovals);
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
        CodexProperties.WebSocket websocket = properties.websocket();
        CodexProperties.UnixSocket unixSocket = properties.unixSocket();
        if (transport.isPresent()) {
            // The application's (or a test's) own bean replaces the wiring the properties describe, as a bean of a
            // test replaces the production one anywhere else in Spring: the properties may stay in
            // application.properties.
            List<String> ignored = new ArrayList<>(spawnSettings());
            if (properties.restart().enabled()) {
                ignored.add("codex.restart.enabled");
            }
            if (websocket.url() != null) {
                ignored.add("codex.websocket.url");
            }
            if (unixSocket.path() != null) {
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
        if (websocket.url() != null) {
            remote.add("codex.websocket.url");
        }
        if (unixSocket.path() != null) {
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
        if (websocket.url() != null) {
            WebSocketTransport.Builder ws = WebSocketTransport.builder(websocket.url());
            if (websocket.bearerToken() != null) {
                ws.bearerToken(websocket.bearerToken());
                builder.secret(websocket.bearerToken());
            }
            if (websocket.allowCleartextBearerToken()) {
                ws.allowCleartextBearerToken();
            }
            if (websocket.connectTimeout() != null) {
                ws.connectTimeout(websocket.connectTimeout());
            }
            restartable(builder, ws::build);
        } else {
            UnixSocketTransport.Builder socket = UnixSocketTransport.builder().path(unixSocket.path());
            if (unixSocket.bearerToken() != null) {
                socket.bearerToken(unixSocket.bearerToken());
                builder.secret(unixSocket.bearerToken());
            }
            if (unixSocket.connectTimeout() != null) {
                socket.connectTimeout(unixSocket.connectTimeout());
            }
            restartable(builder, socket::build);
        }
    }

    /**
     * A remote server's transport: under a restart policy a factory, so a dropped connection can be opened anew;
     * otherwise the one transport.
     */
    private void restartable(CodexClientBuilder builder, Supplier<? extends Transport> transports) {
        if (properties.restart().enabled()) {
            builder.transportFactory(transports);
        } else {
            builder.transport(transports.get());
        }
    }

    /** The properties set that configure a spawned server, by name. */
    private List<String> spawnSettings() {
        List<String> set = new ArrayList<>();
        if (properties.binary() != null) {
            set.add("codex.binary");
        }
        if (!properties.command().isEmpty()) {
            set.add("codex.command");
        }
        if (properties.home() != null) {
            set.add("codex.home");
        }
        if (properties.workingDirectory() != null) {
            set.add("codex.working-directory");
        }
        if (!properties.environment().isEmpty()) {
            set.add("codex.environment");
        }
        if (!properties.removeEnvironment().isEmpty()) {
            set.add("codex.remove-environment");
        }
        if (!properties.bypassNpmLauncher()) {
            set.add("codex.bypass-npm-launcher");
        }
        return set;
    }

    private void spawn(CodexClientBuilder builder) {
        if (properties.binary() != null && !properties.command().isEmpty()) {
            throw new IllegalStateException("codex.binary and codex.command both name the program to spawn; keep one "
                    + "(codex.command for a program with arguments of its own)");
        }
        if (!properties.command().isEmpty()) {
            builder.command(properties.command());
        }
        if (properties.binary() != null) {
            if (properties.binary().isBlank()) {
                throw new IllegalStateException("codex.binary is blank: name the codex executable (a path, or a name "
                        + "on the PATH), or leave the property out for codex on the PATH");
            }
            builder.codexBinary(Path.of(properties.binary()));
        } else if (properties.command().isEmpty()) {
            builder.codexBinary(executables.find());
        }
        if (properties.home() != null) {
            builder.codexHome(properties.home());
        }
        if (properties.workingDirectory() != null) {
            builder.workingDirectory(properties.workingDirectory());
        }
        properties.environment().forEach(builder::environment);
        if (!properties.removeEnvironment().isEmpty()) {
            builder.stdio(stdio -> properties.removeEnvironment().forEach(stdio::removeEnvironment));
        }
        if (!properties.bypassNpmLauncher()) {
            builder.stdio(stdio -> stdio.bypassNpmLauncher(false));
        }
    }

    private void handshake(CodexClientBuilder builder, boolean hasTools) {
        CodexProperties.ClientInfo info = properties.clientInfo();
        if (info.name() != null) {
            builder.clientInfo(info.name(), info.title() != null ? info.title() : info.name(),
                    info.version() != null ? info.version() : "unknown");
        } else if (info.title() != null || info.version() != null) {
            throw new IllegalStateException("codex.client-info.title and codex.client-info.version describe a client "
                    + "named by codex.client-info.name, which is not set");
        }
        // Dynamic tools are an experimental codex API: declaring one is opting in, unless the property says no (and
        // the client's build() then says why that cannot work).
        builder.experimentalApi(properties.experimentalApi() != null ? properties.experimentalApi() : hasTools);
        if (!properties.optOutNotifications().isEmpty()) {
            builder.optOutNotifications(properties.optOutNotifications().toArray(String[]::new));
        }
        if (properties.apiKey() != null) {
            builder.apiKey(properties.apiKey());
        }
    }

    /** The restart policy of {@code codex.restart.*}; empty unless {@code codex.restart.enabled}. */
    private Optional<RestartPolicy> restartPolicy() {
        CodexProperties.Restart restart = properties.restart();
        return restart.enabled() ? Optional.of(restart.policy()) : Optional.empty();
    }

    private void timing(CodexClientBuilder builder) {
        if (properties.requestTimeout() != null) {
            builder.requestTimeout(properties.requestTimeout());
        }
        if (properties.initializeTimeout() != null) {
            builder.initializeTimeout(properties.initializeTimeout());
        }
        if (properties.interruptGracePeriod() != null) {
            builder.interruptGracePeriod(properties.interruptGracePeriod());
        }
        if (properties.turnWatchdog() != null) {
            builder.turnWatchdog(properties.turnWatchdog());
        }
        if (properties.closeTimeout() != null) {
            builder.closeTimeout(properties.closeTimeout());
        }
        CodexProperties.Publisher publisher = properties.publisher();
        if (publisher.bufferSize() != null) {
            builder.publisherBufferSize(publisher.bufferSize());
        }
        if (publisher.overflow() != null) {
            builder.publisherOverflow(publisher.overflow());
        }
        if (publisher.deltaInterval() != null) {
            builder.publisherDeltaInterval(publisher.deltaInterval());
        }
    }
}

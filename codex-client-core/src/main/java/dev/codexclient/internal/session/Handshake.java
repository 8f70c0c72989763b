package dev.codexclient.internal.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.ServerInfo;
import dev.codexclient.errors.CodexProtocolException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.time.Scheduler;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The handshake every connection begins with, at {@code build()} and after each restart alike: starts the
 * connection, sends {@code initialize} and {@code initialized}, and logs in when a login was configured.
 */
final class Handshake {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(Handshake.class);
    }

    /** How long a failed handshake waits for the connection's end to be reported (it is, at once, normally). */
    private static final Duration CONNECTION_END_WAIT = Duration.ofSeconds(2);

    /** What a handshake found: the server's description of itself, and how long {@code initialize} took. */
    record Done(ServerInfo info, Duration took) {
    }

    private final ClientSettings.Introduction settings;
    private final Duration initializeTimeout;
    private final Scheduler scheduler;
    /** The {@code initialize} params, built once for every connection. */
    private final ObjectNode initializeParams;

    Handshake(ObjectMapper mapper, ClientSettings.Introduction settings, Duration initializeTimeout,
              Scheduler scheduler) {
        this.settings = settings;
        this.initializeTimeout = initializeTimeout;
        this.scheduler = scheduler;
        this.initializeParams = initializeParams(mapper, settings);
    }

    private static ObjectNode initializeParams(ObjectMapper mapper, ClientSettings.Introduction h) {
        ObjectNode params = mapper.createObjectNode();
        ObjectNode info = params.putObject("clientInfo");
        info.put("name", h.clientName());
        info.put("title", h.clientTitle());
        info.put("version", h.clientVersion());
        ObjectNode caps = params.putObject("capabilities");
        caps.put("experimentalApi", h.experimentalApi());
        if (!h.optOut().isEmpty()) {
            ArrayNode optOut = caps.putArray("optOutNotificationMethods");
            h.optOut().forEach(optOut::add);
        }
        return params;
    }

    /** Performs the handshake on {@code connection}, starting it first. Never blocks. */
    CompletableFuture<Done> perform(RpcConnection connection) {
        try {
            connection.start();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        long started = scheduler.nanoTime();
        return connection.call("initialize", initializeParams, JsonNode.class, initializeTimeout)
                .thenCompose(r -> {
                    ServerInfo info = readServerInfo(r);
                    connection.notify("initialized", null);
                    Duration took = Duration.ofNanos(Math.max(0, scheduler.nanoTime() - started));
                    Log.LOG.debug("initialized {} ({})", connection.describe(), info.userAgent().orElse("?"));
                    Done done = new Done(info, took);
                    return settings.login().map(login -> connection.call("account/login/start", login,
                            JsonNode.class, null).thenApply(x -> done)).orElseGet(() ->
                            CompletableFuture.completedFuture(done));
                });
    }

    /**
     * The exception that ended the connection, in place of {@code failure} when the connection ended under the
     * handshake. A server that dies at start-up can be noticed three ways: the reader sees its exit, a write finds
     * the pipe broken, or the call is made after the exit was seen. Each reports the same end; reporting it the
     * same way makes a failed start read the same on every run: the exit, its code and the stderr tail first.
     */
    static CodexTransportException connectionEnd(RpcConnection connection,
                                                         CodexTransportException failure) {
        if (!connection.isClosed()) {
            return failure;
        }
        try {
            return connection.terminated().get(CONNECTION_END_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            java.lang.Thread.currentThread().interrupt();
            return failure;
        } catch (ExecutionException | TimeoutException e) {
            return failure;
        }
    }

    /**
     * Reads the {@code initialize} result (the schema's {@code InitializeResponse}: four strings) from its tree.
     * Binding it to the record would build Jackson's first record deserializer during the handshake, about a tenth
     * of a second in a fresh JVM, before a client that has only initialized needs any record.
     */
    private static ServerInfo readServerInfo(JsonNode result) {
        if (!result.isObject() && !result.isNull()) {
            throw new CodexProtocolException("the result of initialize is not an object: " + result.getNodeType());
        }
        return new ServerInfo(initializeMember(result, "userAgent"), initializeMember(result, "codexHome"),
                initializeMember(result, "platformFamily"), initializeMember(result, "platformOs"));
    }

    /** A string member of the {@code initialize} result: absent when missing or null, an error when not a string. */
    private static Optional<String> initializeMember(JsonNode result, String name) {
        JsonNode value = result.get(name);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isTextual()) {
            throw new CodexProtocolException("the result of initialize has a " + value.getNodeType() + " "
                    + name + " where the schema says string");
        }
        return Optional.of(value.textValue());
    }
}

package dev.codexclient.internal.session;

import dev.codexclient.CodexVersion;
import dev.codexclient.MethodSupport;
import dev.codexclient.ServerInfo;
import dev.codexclient.errors.CodexMethodNotSupportedException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.MethodVersions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises the server's answer to a method it does not know and gives it its own type,
 * {@link CodexMethodNotSupportedException}, naming the method and the server's version.
 *
 * <p>What codex sends (the same in 0.98.0, 0.120.0, 0.140.0 and 0.169.0): the app-server deserialises each request
 * into its {@code ClientRequest} enum, tagged by {@code method}, and answers a failure with
 * {@code -32600 "Invalid request: <serde error>"}; for an unknown method serde's error reads
 * {@code unknown variant `thread/revert`, expected one of `initialize`, `thread/start`, …}. The same text with
 * another list comes from a known method whose params hold an unknown enum value (even one that happens to equal
 * the method's name), so the list must be the method list, which always starts with {@code initialize}. A plain
 * JSON-RPC {@code -32601} (codex defines the code; proxies and other servers use it) means the same.
 *
 * <p>Before that, {@link #refusal} keeps a request from being sent at all when the server's version is one the SDK
 * checked and that version lacks the method ({@code MethodVersions}): the answer is certain, so the round trip
 * would only cost time.
 */
public final class UnknownMethodErrors {
    private static final Pattern UNKNOWN_VARIANT = Pattern.compile(
            "Invalid request: unknown variant `([^`]*)`, expected one of (.*)", Pattern.DOTALL);
    private static final Pattern LISTED = Pattern.compile("`([^`]*)`");
    /** The first variant of codex's ClientRequest in every version: present iff the list is the method list. */
    private static final String ALWAYS_KNOWN = "initialize";

    private UnknownMethodErrors() {
    }

    /**
     * The typed error for a method the server does not know; {@code error} itself otherwise.
     *
     * @param server what the server said in its handshake, or {@code null} before it answered
     */
    public static CodexRpcException refine(CodexRpcException error, ServerInfo server) {
        if (error instanceof CodexMethodNotSupportedException || error.method().isEmpty()) {
            return error;
        }
        String method = error.method().get();
        Set<String> listed;
        if (error.code() == CodexRpcException.METHOD_NOT_FOUND) {
            listed = Set.of();
        } else if (error.code() == CodexRpcException.INVALID_REQUEST) {
            Matcher m = UNKNOWN_VARIANT.matcher(error.serverMessage());
            if (!m.matches() || !m.group(1).equals(method)) {
                return error;
            }
            listed = listed(m.group(2));
            if (!listed.contains(ALWAYS_KNOWN) || listed.contains(method)) {
                return error;
            }
        } else {
            return error;
        }
        Optional<CodexVersion> version = server == null ? Optional.empty() : server.codexVersion();
        CodexMethodNotSupportedException typed = new CodexMethodNotSupportedException(method, error.code(),
                error.serverMessage(), error.data().orElse(null), version.orElse(null), listed);
        typed.setStackTrace(error.getStackTrace());
        return typed;
    }

    /** The client requests of each checked version, read from the method lists the protocol jar carries. */
    private static final Map<String, Set<String>> CLIENT_REQUESTS = new ConcurrentHashMap<>();
    private static final String LISTS = "/META-INF/codex-client/schema/methods/";

    /**
     * {@return the error for a request the server certainly lacks, to fail the call with unsent; empty when the
     * request may go}
     *
     * @param method the request's method
     * @param server what the server said in its handshake, or {@code null} before it answered
     */
    public static Optional<CodexMethodNotSupportedException> refusal(MethodDescriptor<?, ?> method, ServerInfo server) {
        if (server == null || server.supports(method) != MethodSupport.NOT_SUPPORTED) {
            return Optional.empty();
        }
        CodexVersion version = server.codexVersion().orElseThrow();
        String checked = MethodVersions.checked().stream().filter(v -> CodexVersion.parse(v).equals(version))
                .findFirst().orElseThrow();
        return Optional.of(new CodexMethodNotSupportedException(method.method(), version,
                method.versions().versions(), CLIENT_REQUESTS.computeIfAbsent(checked, UnknownMethodErrors::read)));
    }

    /** The client requests of a checked version's method list; empty when the list cannot be read. */
    private static Set<String> read(String version) {
        Set<String> methods = new LinkedHashSet<>();
        try (InputStream in = UnknownMethodErrors.class.getResourceAsStream(LISTS + version + ".txt")) {
            if (in == null) {
                return Set.of();
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.startsWith("client-request ")) {
                    methods.add(line.substring("client-request ".length()).strip());
                }
            }
        } catch (IOException e) {
            return Set.of();
        }
        return Set.copyOf(methods);
    }

    private static Set<String> listed(String list) {
        Set<String> methods = new LinkedHashSet<>();
        Matcher m = LISTED.matcher(list);
        while (m.find()) {
            methods.add(m.group(1));
        }
        return methods;
    }
}

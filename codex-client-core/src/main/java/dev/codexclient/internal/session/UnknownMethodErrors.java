package dev.codexclient.internal.session;

import dev.codexclient.CodexVersion;
import dev.codexclient.ServerInfo;
import dev.codexclient.errors.CodexMethodNotSupportedException;
import dev.codexclient.errors.CodexRpcException;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
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

    private static Set<String> listed(String list) {
        Set<String> methods = new LinkedHashSet<>();
        Matcher m = LISTED.matcher(list);
        while (m.find()) {
            methods.add(m.group(1));
        }
        return methods;
    }
}

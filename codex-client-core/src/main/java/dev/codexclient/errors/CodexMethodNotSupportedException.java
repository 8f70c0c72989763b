package dev.codexclient.errors;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexVersion;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The server does not know the method of a request: typically a codex older than the version this SDK was
 * generated from ({@link CodexVersion#pinned()}), e.g. {@code thread/revert} on codex 0.140.0 or
 * {@code turn/steer} on 0.98.0.
 *
 * <p>codex answers an unknown method with {@code -32600} and the message
 * {@code Invalid request: unknown variant `thread/revert`, expected one of `initialize`, `thread/start`, …}; a
 * standard JSON-RPC {@code -32601} "method not found" gets this type as well. {@link #code()} and
 * {@link #serverMessage()} stay as the server sent them.
 *
 * <p>When the server's version is one the SDK checked and that version lacks the method, the client does not send
 * the request: it fails at once ({@link #sent()} is false), naming the checked versions that have the method
 * ({@link #versionsWithMethod()}); {@link #code()} is then {@code -32601}, "method not found", and
 * {@link #serverMessage()} is empty.
 *
 * <pre>{@code
 * try {
 *     thread.revertTo(turnId);
 * } catch (CodexMethodNotSupportedException e) {
 *     if (e.serverMethods().contains("thread/rollback")) { ... }   // what this codex offers instead
 * }
 * }</pre>
 */
public class CodexMethodNotSupportedException extends CodexRpcException {
    private static final long serialVersionUID = 1L;

    private final transient CodexVersion serverVersion;
    /** The methods the server listed as the ones it knows, in its order; empty when it listed none. */
    private final Set<String> serverMethods;
    /** The checked codex versions that have the method; empty when not known. */
    private final List<String> versionsWithMethod;
    /** Whether the request went to the server; false when the client refused it unsent. */
    private final boolean sent;

    /**
     * @param method        the method the server does not know
     * @param code          the JSON-RPC error code the server answered with
     * @param serverMessage the error message as the server sent it
     * @param data          the {@code error.data} member, or {@code null}
     * @param serverVersion the server's codex version, or {@code null} when it is not known
     * @param serverMethods the methods the server listed as the ones it knows (empty when it listed none)
     */
    public CodexMethodNotSupportedException(String method, int code, String serverMessage, JsonNode data,
                                            CodexVersion serverVersion, Set<String> serverMethods) {
        super(describe(method, code, serverMessage, serverVersion), method, code, serverMessage, data);
        this.serverVersion = serverVersion;
        this.serverMethods = Collections.unmodifiableSet(new LinkedHashSet<>(serverMethods));
        this.versionsWithMethod = List.of();
        this.sent = true;
    }

    /**
     * A request the client did not send: the server is a codex version the SDK checked, and that version lacks
     * the method.
     *
     * @param method             the method
     * @param serverVersion      the server's codex version
     * @param versionsWithMethod the checked codex versions that have the method, oldest first
     * @param serverMethods      the client requests the server's version has (empty when not known)
     */
    public CodexMethodNotSupportedException(String method, CodexVersion serverVersion, List<String> versionsWithMethod,
                                            Set<String> serverMethods) {
        super(describeUnsent(method, serverVersion, versionsWithMethod), method, METHOD_NOT_FOUND, "", null);
        this.serverVersion = serverVersion;
        this.serverMethods = Collections.unmodifiableSet(new LinkedHashSet<>(serverMethods));
        this.versionsWithMethod = List.copyOf(versionsWithMethod);
        this.sent = false;
    }

    private static String describeUnsent(String method, CodexVersion serverVersion, List<String> versions) {
        String have = versions.isEmpty() ? "none of the versions this SDK checked has it"
                : "of the versions this SDK checked, codex " + String.join(", ", versions) + " "
                + (versions.size() == 1 ? "has" : "have") + " it";
        return method + " is not supported by codex " + serverVersion + " (" + have + "); the request was not sent";
    }

    private static String describe(String method, int code, String serverMessage, CodexVersion serverVersion) {
        String server = serverVersion == null ? "this codex app-server" : "codex " + serverVersion;
        String text = serverMessage == null ? "" : serverMessage;
        // codex appends every method it knows (several kilobytes); the full text stays in serverMessage().
        int list = text.indexOf(", expected one of");
        if (list >= 0) {
            text = text.substring(0, list) + ", …";
        }
        return method + " is not supported by " + server + " (this SDK speaks the protocol of codex "
                + pinnedOrUnknown() + "): JSON-RPC error " + code + " \"" + text + "\"";
    }

    private static String pinnedOrUnknown() {
        try {
            return CodexVersion.pinned().text();
        } catch (RuntimeException e) {
            return "(unknown)";
        }
    }

    /**
     * {@return the server's codex version, when the client knows it (from the handshake)} Not serialized: a
     * deserialized exception has none.
     */
    public Optional<CodexVersion> serverVersion() {
        return Optional.ofNullable(serverVersion);
    }

    /**
     * {@return whether the request went to the server} False when the client refused it before sending, from the
     * versions it checked ({@link #versionsWithMethod()}).
     */
    public boolean sent() {
        return sent;
    }

    /**
     * {@return the codex versions the SDK checked that have the method, oldest first} Named when the client refused
     * the request unsent; empty otherwise.
     */
    public List<String> versionsWithMethod() {
        return versionsWithMethod;
    }

    /**
     * {@return the methods the server said it knows, for choosing an alternative} codex lists them in its error
     * message; for a request refused unsent, they are the client requests of the server's version as the SDK
     * recorded them. The set is empty when neither is known, and unmodifiable.
     */
    public Set<String> serverMethods() {
        return serverMethods;
    }
}

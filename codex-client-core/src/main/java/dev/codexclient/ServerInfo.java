package dev.codexclient;

import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.MethodVersions;
import dev.codexclient.protocol.NotificationDescriptor;
import java.util.Objects;
import java.util.Optional;

/**
 * What the app-server said about itself in its {@code initialize} result. Servers before codex 0.117.0 send only
 * the user agent, so the other members are optional; the user agent is too, though every codex so far sends it,
 * since the handshake need not fail over a server that leaves it out.
 *
 * @param userAgent      e.g. {@code acme-bot/0.169.0 (Debian 12.0.0; x86_64) xterm (acme-bot; 1.4.0)}: codex
 *                       names itself after the client's {@code clientInfo.name}, then gives its version
 * @param codexHome      the server's {@code CODEX_HOME}
 * @param platformFamily e.g. {@code unix}
 * @param platformOs     e.g. {@code linux}
 */
public record ServerInfo(Optional<String> userAgent, Optional<String> codexHome, Optional<String> platformFamily,
                         Optional<String> platformOs) {
    /**
     * Checks that every member is present (as a value or as an empty {@code Optional}).
     *
     * @param userAgent      the server's user agent
     * @param codexHome      the server's {@code CODEX_HOME}
     * @param platformFamily the server's platform family
     * @param platformOs     the server's operating system
     */
    public ServerInfo {
        Objects.requireNonNull(userAgent, "userAgent");
        Objects.requireNonNull(codexHome, "codexHome");
        Objects.requireNonNull(platformFamily, "platformFamily");
        Objects.requireNonNull(platformOs, "platformOs");
    }

    /**
     * {@return the server's codex version, read from {@link #userAgent()}; empty when the user agent names none}
     * E.g. {@code 0.98.0} in {@code acme-bot/0.98.0 (Debian 12.0.0; x86_64) ...}. Compare it with
     * {@link CodexVersion#pinned()}, the version this SDK was generated from.
     */
    public Optional<CodexVersion> codexVersion() {
        return userAgent.flatMap(CodexVersion::fromUserAgent);
    }

    /**
     * {@return whether this server has a request method, as far as the SDK can be certain} Certain only for a
     * server of a codex version the SDK checked ({@code MethodVersions.checked()}); a call the answer says
     * {@link MethodSupport#NOT_SUPPORTED} to fails at once with {@code CodexMethodNotSupportedException}, unsent.
     *
     * <pre>{@code
     * if (codex.serverInfo().supports(ClientRequestMethods.THREAD_REVERT) != MethodSupport.NOT_SUPPORTED) {
     *     thread.revertTo(turnId);
     * }
     * }</pre>
     *
     * @param method a request method, e.g. {@code ClientRequestMethods.THREAD_REVERT}
     */
    public MethodSupport supports(MethodDescriptor<?, ?> method) {
        Objects.requireNonNull(method, "method");
        return supports(method.versions());
    }

    /**
     * {@return whether this server sends a notification, as far as the SDK can be certain} A listener of a
     * notification the answer says {@link MethodSupport#NOT_SUPPORTED} to is never called by this server.
     *
     * @param notification a notification, e.g. {@code ServerNotificationMethods.SERVER_REQUEST_RESOLVED}
     */
    public MethodSupport supports(NotificationDescriptor<?> notification) {
        Objects.requireNonNull(notification, "notification");
        return supports(notification.versions());
    }

    private MethodSupport supports(MethodVersions versions) {
        Optional<String> checked = checkedVersion();
        if (checked.isEmpty() || !versions.recorded()) {
            return MethodSupport.UNKNOWN;
        }
        return versions.isPresentIn(checked.get()) ? MethodSupport.SUPPORTED : MethodSupport.NOT_SUPPORTED;
    }

    /** The checked version this server is, as written in the method lists; empty when it is none of them. */
    private Optional<String> checkedVersion() {
        Optional<CodexVersion> version = codexVersion();
        if (version.isEmpty()) {
            return Optional.empty();
        }
        for (String v : MethodVersions.checked()) {
            if (CodexVersion.parse(v).equals(version.get())) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }
}

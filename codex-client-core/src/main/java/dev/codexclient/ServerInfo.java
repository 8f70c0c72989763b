package dev.codexclient;

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
}

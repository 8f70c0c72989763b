package dev.codexclient;

import java.util.Objects;
import java.util.Optional;

/**
 * What the app-server said about itself in its {@code initialize} result. Older servers (before ~0.110) send only
 * the user agent, so the other members are optional; the user agent is too, though every codex so far sends it,
 * since the handshake need not fail over a server that leaves it out.
 *
 * @param userAgent      e.g. {@code codex_cli_rs/0.169.0 (Debian 12; x86_64) ...}
 * @param codexHome      the server's {@code CODEX_HOME}
 * @param platformFamily e.g. {@code unix}
 * @param platformOs     e.g. {@code linux}
 */
public record ServerInfo(Optional<String> userAgent, Optional<String> codexHome, Optional<String> platformFamily,
                         Optional<String> platformOs) {
    /** Checks that every member is present (as a value or as an empty {@code Optional}). */
    public ServerInfo {
        Objects.requireNonNull(userAgent, "userAgent");
        Objects.requireNonNull(codexHome, "codexHome");
        Objects.requireNonNull(platformFamily, "platformFamily");
        Objects.requireNonNull(platformOs, "platformOs");
    }
}

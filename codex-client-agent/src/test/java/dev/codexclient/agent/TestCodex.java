package dev.codexclient.agent;

import dev.codexclient.testkit.CodexBinary;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The codex the real-codex tests run: the pinned version, or the executable given with {@code -Dcodex.binary} (to run
 * them on another version, e.g. {@code ~/.cache/codex-client/codex/0.169.0/node_modules/.bin/codex}).
 */
final class TestCodex {
    private TestCodex() {
    }

    static Path binary() {
        return given().orElseGet(CodexBinary::pinned);
    }

    /** The version the handshake reports: the pinned one, unless another executable was given. */
    static Optional<String> pinnedVersion() {
        return given().isPresent() ? Optional.empty() : Optional.of(CodexBinary.PINNED_VERSION);
    }

    private static Optional<Path> given() {
        String configured = System.getProperty("codex.binary");
        return configured == null || configured.isBlank() ? Optional.empty() : Optional.of(Path.of(configured));
    }
}

package dev.codexclient.spring.boot;

import dev.codexclient.CodexVersion;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds the codex to spawn when no property names one, where the project's tests and examples find it: {@code codex}
 * on the {@code PATH}, then the pinned version in the cache the README's first command installs into
 * ({@code ${XDG_CACHE_HOME:-~/.cache}/codex-client/codex/VERSION/node_modules/.bin/codex}). It never installs
 * anything: an application must not download a program while it starts.
 */
final class CodexExecutables {

    private final String path;
    private final Path cacheRoot;

    /**
     * A finder over a {@code PATH} and a cache root.
     *
     * @param path      the {@code PATH}, or null
     * @param cacheRoot the cache's {@code codex-client/codex} directory
     */
    CodexExecutables(String path, Path cacheRoot) {
        this.path = path;
        this.cacheRoot = cacheRoot;
    }

    /** The finder of this process: its {@code PATH}, and the cache under {@code XDG_CACHE_HOME} or the home. */
    static CodexExecutables ofThisProcess() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return new CodexExecutables(System.getenv("PATH"), base.resolve("codex-client").resolve("codex"));
    }

    /** The pinned codex's place in the cache. */
    Path pinned() {
        return cacheRoot.resolve(CodexVersion.pinned().text()).resolve("node_modules").resolve(".bin").resolve("codex");
    }

    /**
     * The codex to spawn.
     *
     * @return the executable
     * @throws IllegalStateException when there is none, saying which properties and commands fix that
     */
    Path find() {
        return onPath().or(() -> executable(pinned())).orElseThrow(() -> new IllegalStateException(
                "codex: no codex executable on the PATH, nor the pinned codex " + CodexVersion.pinned().text()
                        + " in " + pinned() + ". Install it (npm install -g @openai/codex@"
                        + CodexVersion.pinned().text() + "), or set codex.binary=/path/to/codex; to use an "
                        + "app-server that runs already, set codex.websocket.url or codex.unix-socket.path; "
                        + "codex.enabled=false starts the application without a codex client"));
    }

    private Optional<Path> onPath() {
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Optional<Path> found = executable(Path.of(dir, "codex"));
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<Path> executable(Path candidate) {
        return Files.isRegularFile(candidate) && Files.isExecutable(candidate) ? Optional.of(candidate)
                : Optional.empty();
    }
}

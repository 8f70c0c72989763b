package dev.codexclient.testkit;

import dev.codexclient.transport.StdioTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A private, empty home directory for a real codex child process, so that a test gives the same result on every
 * machine and leaves nothing behind in the user's real home.
 *
 * <p>codex runs commands through the user's shell, and a login shell reads the machine's profile
 * ({@code ~/.profile}, {@code ~/.bashrc}): whatever a version manager or a prompt prints there would end up in a
 * command's output. codex also writes into {@code CODEX_HOME} (sessions, logs, helper binaries), which defaults to
 * {@code ~/.codex}, and its sandbox helpers into the temporary directory. A child given {@link #environment()} sees
 * an empty {@code HOME}, a {@code CODEX_HOME} and a {@code TMPDIR} inside it, none of the user's credentials, and no
 * XDG directories pointing back into the real home. {@link #close()} deletes the directory.
 *
 * <pre>{@code
 * try (IsolatedHome home = IsolatedHome.create();
 *      CodexClient codex = CodexClient.builder()
 *              .codexBinary(CodexBinary.find())
 *              .stdio(home::applyEnvironment)
 *              .build()) {
 *     // ...
 * }
 * }</pre>
 *
 * <p>{@link ScriptedModelServer} keeps one of these for the codex it serves; use it directly for a codex that needs
 * no model (a handshake, {@code codex --version}).
 */
public final class IsolatedHome implements AutoCloseable {

    /**
     * Variables removed from a codex child's environment: those through which the user's real credentials or
     * endpoints could reach the child.
     */
    public static final Set<String> CLEARED_VARIABLES = Set.of("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL",
            "OPENAI_ORGANIZATION", "OPENAI_PROJECT");

    /**
     * Variables removed so that nothing resolves a directory against the user's real home: the XDG base
     * directories, which would otherwise win over {@code HOME}.
     */
    public static final Set<String> HOME_VARIABLES = Set.of("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
            "XDG_STATE_HOME");

    private final Path home;
    private final Path codexHome;
    private final Path tmp;

    private IsolatedHome(Path home) {
        this.home = home;
        this.codexHome = home.resolve(".codex");
        this.tmp = home.resolve("tmp");
    }

    /**
     * Creates an empty home in the system's temporary directory, with an empty {@code .codex} and {@code tmp} inside
     * it.
     *
     * @return the new home
     */
    public static IsolatedHome create() {
        try {
            return in(Files.createTempDirectory("codex-client-home-"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a private home directory", e);
        }
    }

    /**
     * Uses {@code directory} (created if missing) as the home, with {@code .codex} and {@code tmp} inside it;
     * {@link #close()} deletes the directory. For a test that wants the home inside its own {@code @TempDir}.
     *
     * @param directory the directory to use as the home
     * @return the home
     */
    public static IsolatedHome in(Path directory) {
        Path home = Objects.requireNonNull(directory, "directory").toAbsolutePath();
        try {
            Files.createDirectories(home.resolve(".codex"));
            Files.createDirectories(home.resolve("tmp"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a private home directory in " + home, e);
        }
        return new IsolatedHome(home);
    }

    /** {@return the directory given to the child as {@code HOME}} */
    public Path home() {
        return home;
    }

    /** {@return the directory given to the child as {@code CODEX_HOME}: {@code .codex} inside {@link #home()}} */
    public Path codexHome() {
        return codexHome;
    }

    /** {@return the directory given to the child as {@code TMPDIR}: {@code tmp} inside {@link #home()}} */
    public Path tmp() {
        return tmp;
    }

    /** {@return the variables to set for the child: {@code HOME}, {@code CODEX_HOME} and {@code TMPDIR}} */
    public Map<String, String> environment() {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("HOME", home.toString());
        environment.put("CODEX_HOME", codexHome.toString());
        environment.put("TMPDIR", tmp.toString());
        return Map.copyOf(environment);
    }

    /**
     * Prepares a child environment in place (e.g. {@link ProcessBuilder#environment()}): removes the
     * {@link #CLEARED_VARIABLES} and {@link #HOME_VARIABLES} and sets {@link #environment()}.
     *
     * @param childEnvironment the child's environment, changed in place
     */
    public void applyEnvironment(Map<String, String> childEnvironment) {
        CLEARED_VARIABLES.forEach(childEnvironment::remove);
        HOME_VARIABLES.forEach(childEnvironment::remove);
        childEnvironment.putAll(environment());
    }

    /**
     * Prepares a stdio transport the same way, e.g. {@code CodexClient.builder().stdio(home::applyEnvironment)}:
     * removes the {@link #CLEARED_VARIABLES} and {@link #HOME_VARIABLES} and sets {@link #environment()}.
     *
     * @param stdio the builder of the transport that spawns codex, e.g. from {@code CodexClient.builder().stdio(...)}
     */
    public void applyEnvironment(StdioTransport.Builder stdio) {
        CLEARED_VARIABLES.forEach(stdio::removeEnvironment);
        HOME_VARIABLES.forEach(stdio::removeEnvironment);
        environment().forEach(stdio::environment);
    }

    /** Deletes the home directory and everything codex wrote into it; best effort, never throws. */
    @Override
    public void close() {
        deleteRecursively(home);
    }

    static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException exc) {
                    // A file that vanished while walking (codex still shutting down) is already gone.
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // Best effort: a leftover temporary directory must not fail the test that closes it.
        }
    }
}

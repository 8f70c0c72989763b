package dev.codexclient.testkit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Locates a real {@code codex} executable for tests, installing a pinned version from npm on demand.
 *
 * <p>{@link #find()} tries, in order: the system property {@code codex.binary}, the environment variable
 * {@code CODEX_BINARY}, {@code codex} on the {@code PATH}, and finally the {@link #pinned() pinned} version from the
 * cache ({@code ${XDG_CACHE_HOME:-~/.cache}/codex-client/codex/VERSION}), installed there with
 * {@code npm install @openai/codex@VERSION} if it is missing.
 *
 * <p>An installation downloads about {@value #APPROXIMATE_DOWNLOAD_MB} MB and takes about
 * {@value #APPROXIMATE_INSTALLED_MB} MB on disk, once per version. It is announced, with what is installed and where,
 * and its progress is reported every few seconds: on standard error by the methods without a {@code progress}
 * argument, to the given consumer by the others (an example prints it on standard output, a quiet caller passes
 * {@code line -> { }}).
 */
public final class CodexBinary {

    /** The codex version this SDK's protocol was generated from. */
    public static final String PINNED_VERSION = "0.171.0";

    /** How long an npm install may take before it is abandoned. */
    public static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(10);

    /** About how many megabytes npm downloads for one codex version (the Linux x86_64 package of 0.169.0). */
    public static final int APPROXIMATE_DOWNLOAD_MB = 160;

    /** About how many megabytes one installed codex version takes in the cache (0.169.0 on Linux x86_64). */
    public static final int APPROXIMATE_INSTALLED_MB = 400;

    /** npm's cache during an installation, inside the version's directory; deleted afterwards. */
    static final String NPM_CACHE = ".npm-cache";

    /** How often the progress of an installation is reported. */
    static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(5);

    private static final Pattern VERSION = Pattern.compile("[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?");
    private static final Map<Path, Object> INSTALL_LOCKS = new ConcurrentHashMap<>();

    private CodexBinary() {
    }

    /**
     * The first codex found: {@code -Dcodex.binary}, {@code $CODEX_BINARY}, {@code codex} on the PATH, then the
     * pinned version (installed if needed).
     *
     * @return the codex executable
     * @throws CodexBinaryUnavailableException if none can be found or installed
     */
    public static Path find() {
        return find(CodexBinary::toStandardError);
    }

    /**
     * Like {@link #find()}, reporting the progress of an installation, if one is needed, to {@code progress}.
     *
     * @param progress receives the progress lines of an installation, if one is needed
     * @return the codex executable
     * @throws CodexBinaryUnavailableException if none can be found or installed
     */
    public static Path find(Consumer<String> progress) {
        Objects.requireNonNull(progress, "progress");
        Optional<Path> configured = fromSetting("system property codex.binary", System.getProperty("codex.binary"));
        if (configured.isEmpty()) {
            configured = fromSetting("environment variable CODEX_BINARY", System.getenv("CODEX_BINARY"));
        }
        if (configured.isPresent()) {
            return configured.get();
        }
        Optional<Path> onPath = onPath("codex");
        return onPath.orElseGet(() -> pinned(progress));
    }

    /**
     * The {@link #PINNED_VERSION pinned} codex, installed into the cache if needed (progress on standard error).
     *
     * @return the pinned codex executable
     */
    public static Path pinned() {
        return version(PINNED_VERSION);
    }

    /**
     * The {@link #PINNED_VERSION pinned} codex, installed into the cache if needed, with progress to {@code progress}.
     *
     * @param progress receives the progress lines of an installation, if one is needed
     * @return the pinned codex executable
     */
    public static Path pinned(Consumer<String> progress) {
        return version(PINNED_VERSION, progress);
    }

    /**
     * The given version of {@code @openai/codex} from the cache, installed with npm if needed. Concurrent calls, also
     * from other JVMs, install at most once.
     *
     * @param version a codex version, e.g. {@code 0.169.0}
     * @return the executable of that version
     * @throws CodexBinaryUnavailableException if npm is missing or the installation fails
     */
    public static Path version(String version) {
        return version(version, CodexBinary::toStandardError);
    }

    /**
     * Like {@link #version(String)}, reporting the progress of an installation, if one is needed, to
     * {@code progress}: one line that says what is installed, where and about how big, one every few seconds with the
     * megabytes written so far, and one when it is done.
     *
     * @param version a codex version, e.g. {@code 0.169.0}
     * @param progress receives the progress lines of an installation, if one is needed
     * @return the executable of that version
     * @throws CodexBinaryUnavailableException if npm is missing or the installation fails
     */
    public static Path version(String version, Consumer<String> progress) {
        return version(version, cacheRoot(), () -> onPath("npm"), Objects.requireNonNull(progress, "progress"));
    }

    static Path version(String version, Path cacheRoot, Supplier<Optional<Path>> npmLookup) {
        return version(version, cacheRoot, npmLookup, line -> { });
    }

    static Path version(String version, Path cacheRoot, Supplier<Optional<Path>> npmLookup,
            Consumer<String> progress) {
        if (!VERSION.matcher(version).matches()) {
            throw new IllegalArgumentException("not a codex version: " + version);
        }
        Path prefix = cacheRoot.resolve(version);
        Path launcher = launcher(prefix);
        if (Files.isExecutable(launcher)) {
            return launcher;
        }
        synchronized (INSTALL_LOCKS.computeIfAbsent(prefix, p -> new Object())) {
            try {
                Files.createDirectories(prefix);
                try (FileChannel channel = FileChannel.open(prefix.resolve(".install.lock"),
                        StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                        FileLock ignored = channel.lock()) {
                    if (!Files.isExecutable(launcher)) {
                        install(version, prefix, npmLookup, progress);
                    }
                }
            } catch (IOException e) {
                throw new CodexBinaryUnavailableException("cannot install codex " + version + " into " + prefix
                        + ": " + e.getMessage(), e);
            }
        }
        if (!Files.isExecutable(launcher)) {
            throw new CodexBinaryUnavailableException("npm installed @openai/codex@" + version + " into " + prefix
                    + " but " + launcher + " is missing");
        }
        return launcher;
    }

    /**
     * The cache root: {@code ${XDG_CACHE_HOME:-~/.cache}/codex-client/codex}.
     *
     * @return the directory that holds one directory per installed version
     */
    public static Path cacheRoot() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("codex-client").resolve("codex");
    }

    /**
     * The version {@code codex --version} reports, e.g. {@code 0.169.0} for {@code codex-cli 0.169.0}.
     *
     * @param codex the codex executable
     * @return the version, e.g. {@code 0.169.0}
     * @throws CodexBinaryUnavailableException if the binary cannot be run or prints no version
     */
    public static String versionOf(Path codex) {
        String output;
        // codex writes helper files into CODEX_HOME (default ~/.codex) even for --version: give it a private one.
        try (IsolatedHome home = IsolatedHome.create()) {
            output = run(List.of(codex.toString(), "--version"), Duration.ofSeconds(30), "codex --version",
                    home::applyEnvironment, () -> { });
        }
        var matcher = VERSION.matcher(output);
        if (!matcher.find()) {
            throw new CodexBinaryUnavailableException(codex + " --version printed no version: " + output.strip());
        }
        return matcher.group();
    }

    private static Path launcher(Path prefix) {
        return prefix.resolve("node_modules").resolve(".bin").resolve("codex");
    }

    private static void install(String version, Path prefix, Supplier<Optional<Path>> npmLookup,
            Consumer<String> progress) {
        Path npm = npmLookup.get().orElseThrow(() -> new CodexBinaryUnavailableException(
                "codex " + version + " is not installed in " + prefix + " and npm is not on the PATH; install"
                        + " Node.js/npm, or set -Dcodex.binary / CODEX_BINARY to a codex executable"));
        progress.accept("Installing codex " + version + " (npm package @openai/codex@" + version + ") into " + prefix
                + ": about " + APPROXIMATE_DOWNLOAD_MB + " MB to download, " + APPROXIMATE_INSTALLED_MB
                + " MB on disk. This happens once; later runs reuse it.");
        long started = System.nanoTime();
        // npm downloads into its cache before it extracts; a cache inside the prefix makes the download visible to
        // the progress report, and leaves the user's own npm cache alone. It is deleted once codex is installed.
        Path downloads = prefix.resolve(NPM_CACHE);
        List<String> command = new ArrayList<>(List.of(npm.toString(), "install", "--no-audit", "--no-fund",
                "--prefix", prefix.toString(), "--cache", downloads.toString()));
        // --prefix also moves npm's global configuration file to PREFIX/etc/npmrc, which would drop the machine's
        // registry, proxy and certificate settings: name the real one.
        globalConfig(npm).ifPresent(file -> command.addAll(List.of("--globalconfig", file.toString())));
        command.add("@openai/codex@" + version);
        run(command, INSTALL_TIMEOUT, "npm install @openai/codex@" + version, env -> { },
                () -> progress.accept("  ... " + megabytes(prefix) + " MB downloaded and unpacked into " + prefix
                        + " so far"));
        IsolatedHome.deleteRecursively(downloads);
        progress.accept("Installed codex " + version + " (" + megabytes(prefix) + " MB) in "
                + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) + " s.");
    }

    /** npm's global configuration file ({@code npm config get globalconfig}), when it exists. */
    private static Optional<Path> globalConfig(Path npm) {
        String output;
        try {
            output = run(List.of(npm.toString(), "config", "get", "globalconfig"), Duration.ofSeconds(60),
                    "npm config get globalconfig", env -> { }, () -> { });
        } catch (CodexBinaryUnavailableException e) {
            return Optional.empty();
        }
        // npm may print warnings first (they share the output); the value is the last line.
        List<String> lines = output.strip().lines().toList();
        if (lines.isEmpty()) {
            return Optional.empty();
        }
        Path file = Path.of(lines.get(lines.size() - 1).strip());
        return file.isAbsolute() && Files.isRegularFile(file) ? Optional.of(file) : Optional.empty();
    }

    /** The megabytes of the files under {@code dir}; what npm has extracted so far, while it runs. */
    static long megabytes(Path dir) {
        long[] bytes = {0};
        try (var files = Files.walk(dir)) {
            files.forEach(file -> {
                try {
                    if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                        bytes[0] += Files.size(file);
                    }
                } catch (IOException e) {
                    // npm moved or removed it meanwhile; it is counted on the next report
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // a directory vanished while walking; report what was counted
        }
        return bytes[0] / (1024 * 1024);
    }

    private static void toStandardError(String line) {
        System.err.println("codex-client: " + line);
    }

    private static String run(List<String> command, Duration timeout, String what,
            Consumer<Map<String, String>> environment, Runnable everyProgressInterval) {
        Process process;
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            environment.accept(builder.environment());
            process = builder.start();
        } catch (IOException e) {
            throw new CodexBinaryUnavailableException("cannot run " + what + ": " + e.getMessage(), e);
        }
        try {
            process.getOutputStream().close();
            // Read on another thread so that a chatty process cannot block on a full pipe past the timeout.
            StringBuilder output = new StringBuilder();
            Thread reader = new Thread(() -> {
                try (InputStream in = process.getInputStream()) {
                    String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                    synchronized (output) {
                        output.append(text);
                    }
                } catch (IOException e) {
                    // The process ended; whatever was read is reported.
                }
            }, "codex-binary-output");
            reader.setDaemon(true);
            reader.start();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!process.waitFor(Math.min(PROGRESS_INTERVAL.toNanos(), Math.max(0, deadline - System.nanoTime())),
                    TimeUnit.NANOSECONDS)) {
                if (System.nanoTime() - deadline >= 0) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                    throw new CodexBinaryUnavailableException(what + " did not finish within " + timeout);
                }
                everyProgressInterval.run();
            }
            reader.join(TimeUnit.SECONDS.toMillis(5));
            String text;
            synchronized (output) {
                text = output.toString();
            }
            if (process.exitValue() != 0) {
                throw new CodexBinaryUnavailableException(what + " failed with exit code " + process.exitValue()
                        + ": " + tail(text));
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new CodexBinaryUnavailableException("interrupted while waiting for " + what, e);
        }
    }

    private static String tail(String text) {
        String stripped = text.strip();
        return stripped.length() <= 2000 ? stripped : "..." + stripped.substring(stripped.length() - 2000);
    }

    private static Optional<Path> fromSetting(String source, String value) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        Path path = Path.of(value);
        if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
            throw new CodexBinaryUnavailableException(source + " names " + value + ", which is not an executable file");
        }
        return Optional.of(path);
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}

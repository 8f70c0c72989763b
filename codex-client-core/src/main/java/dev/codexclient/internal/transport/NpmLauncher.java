package dev.codexclient.internal.transport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises the npm launcher of {@code @openai/codex} ({@code bin/codex.js}, what {@code codex} on the {@code PATH}
 * or in {@code node_modules/.bin} links to) and works out what it would run: the native codex binary, with the
 * environment the launcher would give it. Spawning that binary directly saves a Node.js process per server: its
 * start (about half of spawn + {@code initialize}) and its memory.
 *
 * <p>What each launcher does, read from {@code bin/codex.js} of the versions this SDK supports. All of them map the
 * platform and architecture to a target triple ({@code x86_64-unknown-linux-musl}, {@code aarch64-apple-darwin}, …),
 * run the binary with the launcher's own arguments and the launcher's environment plus the changes listed here, and
 * forward SIGINT, SIGTERM and SIGHUP to it:
 * <ul>
 *   <li><b>0.98.0</b>: the binaries of every platform ship in the package itself; runs
 *       {@code vendor/<triple>/codex/codex}; prepends {@code vendor/<triple>/path} (ripgrep, {@code rg}) to
 *       {@code PATH}, which it rewrites in any case without empty entries; sets {@code CODEX_MANAGED_BY_BUN=1} when
 *       bun installed it ({@code npm_config_user_agent} names bun, {@code npm_execpath} contains "bun", or the
 *       package lies under {@code .bun/install/global}), else {@code CODEX_MANAGED_BY_NPM=1}.</li>
 *   <li><b>0.120.0</b>: the binary comes from the platform package {@code @openai/codex-<os>-<arch>} (an optional
 *       dependency, found the way Node's {@code require.resolve} finds it: in {@code node_modules} of the launcher's
 *       real directory and each of its ancestors), or from the package's own {@code vendor} when that is missing and
 *       holds the binary; otherwise the same as 0.98.0 ({@code codex/codex}, the {@code path} directory, the same
 *       marker).</li>
 *   <li><b>0.169.0 and 0.171.0</b> (the same launcher, but that 0.171.0 forwards a second signal too, while the
 *       child shuts down): the platform package's
 *       {@code vendor/<triple>/bin/codex}, else the package's own {@code vendor}; no change to {@code PATH} (the
 *       binary itself prepends its {@code codex-path} directory, named in the {@code codex-package.json} beside it);
 *       sets {@code CODEX_MANAGED_PACKAGE_ROOT} to the package's real directory; removes every
 *       {@code CODEX_MANAGED_BY_*} it inherited and sets one of {@code CODEX_MANAGED_BY_VITE_PLUS},
 *       {@code _PNPM}, {@code _BUN} or {@code _NPM} (Vite+ and pnpm are recognised from their install metadata above
 *       the package, bun as before). With a Node that has {@code process.execve} (22.15 and later) the launcher
 *       replaces itself with the binary instead of running it as a child.</li>
 * </ul>
 * The markers change what codex says about updating itself and what {@code codex doctor} reports; the
 * {@code path} directory is how 0.98.0 and 0.120.0 give the commands of a turn ripgrep.
 *
 * <p>A launcher is recognised by what it does, not by its version: the platform package, the {@code path}
 * directory, the variables it sets. When it names an environment variable this class does not know how to set
 * (a newer launcher), when the platform has no known triple, or when the binary is not where the launcher would look,
 * the launcher is kept and the reason is given (see {@link Kept}): the launcher then runs codex exactly as it would
 * have, only slower.
 *
 * <p>One difference remains that no launcher causes: a child of the JVM inherits the JVM's signal mask (SIGQUIT
 * blocked), which Node clears for its children. codex does not use SIGQUIT, and the client ends it with SIGTERM and
 * SIGKILL.
 */
public final class NpmLauncher {

    /** The package whose launcher this is. */
    static final String PACKAGE = "@openai/codex";

    /** Every environment variable a known launcher sets or removes. */
    private static final Set<String> KNOWN_VARIABLES = Set.of("CODEX_MANAGED_BY_NPM", "CODEX_MANAGED_BY_BUN",
            "CODEX_MANAGED_BY_PNPM", "CODEX_MANAGED_BY_VITE_PLUS", "CODEX_MANAGED_PACKAGE_ROOT");
    private static final List<String> MANAGED_BY = List.of("CODEX_MANAGED_BY_NPM", "CODEX_MANAGED_BY_BUN",
            "CODEX_MANAGED_BY_PNPM", "CODEX_MANAGED_BY_VITE_PLUS");
    private static final Pattern VARIABLE = Pattern.compile("\\bCODEX_[A-Z0-9_]+");
    /** A launcher is a few kilobytes; anything much larger is not one this class has read. */
    private static final long MAX_LAUNCHER_BYTES = 1024 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What {@link #resolve} found. */
    public sealed interface Resolution permits NotLauncher, Native, Kept {
    }

    /** The executable is not the npm launcher of {@code @openai/codex}: run it as it is. */
    public record NotLauncher() implements Resolution {
    }

    /**
     * Run {@code binary} in place of {@code launcher}, with the launcher's environment changes.
     *
     * @param launcher       the launcher's real path ({@code .../@openai/codex/bin/codex.js})
     * @param binary         the native codex the launcher would run
     * @param packageVersion the version in the package's {@code package.json}, empty when it names none
     * @param set            variables to set, over the environment the launcher would have had
     * @param removed        variables to remove before those are set
     */
    public record Native(Path launcher, Path binary, String packageVersion, Map<String, String> set,
                         Set<String> removed) implements Resolution {
        public Native {
            set = Map.copyOf(set);
            removed = Set.copyOf(removed);
        }

        /** Applies the launcher's changes to the environment the launcher would have been given. */
        public void applyTo(Map<String, String> environment) {
            removed.forEach(environment::remove);
            environment.putAll(set);
        }
    }

    /**
     * The executable is the launcher, but what it would run could not be worked out the way it does: run the
     * launcher.
     *
     * @param launcher the launcher's real path
     * @param why      a sentence saying why, for the log
     */
    public record Kept(Path launcher, String why) implements Resolution {
    }

    /** The platform a launcher maps to a target triple: Node's {@code process.platform} and {@code process.arch}. */
    record Platform(String os, String arch) {
        /** The JVM's platform in Node's words. */
        static Platform current() {
            String name = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
            String os = name.startsWith("linux") ? "linux" : name.startsWith("mac") || name.startsWith("darwin")
                    ? "darwin" : name.startsWith("windows") ? "win32" : name;
            String a = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
            String arch = a.equals("amd64") || a.equals("x86_64") ? "x64" : a.equals("aarch64") || a.equals("arm64")
                    ? "arm64" : a;
            return new Platform(os, arch);
        }

        /** The target triple every known launcher maps this platform to; empty for one they do not support. */
        Optional<String> triple() {
            String cpu = arch.equals("x64") ? "x86_64" : arch.equals("arm64") ? "aarch64" : null;
            if (cpu == null) {
                return Optional.empty();
            }
            return switch (os) {
                case "linux", "android" -> Optional.of(cpu + "-unknown-linux-musl");
                case "darwin" -> Optional.of(cpu + "-apple-darwin");
                case "win32" -> Optional.of(cpu + "-pc-windows-msvc");
                default -> Optional.empty();
            };
        }

        /** The platform package of this platform, e.g. {@code @openai/codex-linux-x64}. */
        String platformPackage() {
            return PACKAGE + "-" + (os.equals("android") ? "linux" : os) + "-" + arch;
        }

        String binaryName() {
            return os.equals("win32") ? "codex.exe" : "codex";
        }

        String pathSeparator() {
            return os.equals("win32") ? ";" : ":";
        }
    }

    private NpmLauncher() {
    }

    /**
     * What to run for {@code executable}.
     *
     * @param executable  the resolved executable the transport would spawn
     * @param environment the environment it would be given
     * @return {@link NotLauncher} for anything but the launcher, else {@link Native} or {@link Kept}
     */
    public static Resolution resolve(Path executable, Map<String, String> environment) {
        return resolve(executable, environment, Platform.current());
    }

    static Resolution resolve(Path executable, Map<String, String> environment, Platform platform) {
        Path script;
        try {
            script = executable.toRealPath();
        } catch (IOException | SecurityException e) {
            return new NotLauncher();
        }
        Path bin = script.getParent();
        Path packageRoot = bin == null ? null : bin.getParent();
        if (!script.getFileName().toString().equals("codex.js") || !bin.getFileName().toString().equals("bin")
                || packageRoot == null) {
            return new NotLauncher();
        }
        Optional<JsonNode> manifest = readJson(packageRoot.resolve("package.json"));
        if (manifest.isEmpty() || !PACKAGE.equals(manifest.get().path("name").asText())) {
            return new NotLauncher();
        }
        String version = manifest.get().path("version").asText("");
        String text;
        try {
            if (Files.size(script) > MAX_LAUNCHER_BYTES) {
                return new Kept(script, "it is larger than any launcher this client knows");
            }
            text = Files.readString(script, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return new Kept(script, "it could not be read (" + e.getMessage() + ")");
        }
        return new Reading(executable, script, packageRoot, version, text, environment, platform).resolve();
    }

    /**
     * One launcher being read.
     *
     * @param started the path the launcher is started by, its {@code process.argv[1]} (a link such as
     *                {@code node_modules/.bin/codex}); the package managers' metadata is searched above it too
     * @param script  the launcher's real path
     */
    private record Reading(Path started, Path script, Path packageRoot, String version, String text,
                           Map<String, String> environment, Platform platform) {

        Resolution resolve() {
            Set<String> unknown = new TreeSet<>();
            Matcher m = VARIABLE.matcher(text);
            while (m.find()) {
                if (!KNOWN_VARIABLES.contains(m.group())) {
                    unknown.add(m.group());
                }
            }
            if (!unknown.isEmpty()) {
                return kept("it names " + String.join(", ", unknown) + ", which this client does not know how to set");
            }
            boolean prependsPath = text.contains("getUpdatedPath");
            if (!prependsPath && (text.contains("PATH:") || text.contains("env.PATH") || text.contains(".PATH ="))) {
                return kept("it changes PATH in a way this client does not know");
            }
            Optional<String> triple = platform.triple();
            if (triple.isEmpty()) {
                return kept("it has no native codex for " + platform.os() + "/" + platform.arch());
            }
            Path vendor = vendorRoot();
            Path arch = vendor.resolve(triple.get());
            Optional<Path> binary = binary(arch);
            if (binary.isEmpty()) {
                return kept("the native codex is not in " + arch + " (neither bin/" + platform.binaryName()
                        + " nor codex/" + platform.binaryName() + ")");
            }
            Map<String, String> set = new LinkedHashMap<>();
            Set<String> removed = new LinkedHashSet<>();
            if (prependsPath) {
                set.put("PATH", prependedPath(arch.resolve("path")));
            }
            String managedBy = "CODEX_MANAGED_BY_" + packageManager();
            if (text.contains("CODEX_MANAGED_PACKAGE_ROOT")) {
                set.put("CODEX_MANAGED_PACKAGE_ROOT", packageRoot.toString());
                for (String v : MANAGED_BY) {
                    if (text.contains(v)) {
                        removed.add(v);
                    }
                }
            }
            set.put(managedBy, "1");
            return new Native(script, binary.get(), version, set, removed);
        }

        private Kept kept(String why) {
            return new Kept(script, why);
        }

        /**
         * The {@code vendor} directory the launcher takes the binary from: the platform package's when the launcher
         * uses one and Node would find it, else the package's own.
         */
        private Path vendorRoot() {
            if (text.contains(platform.platformPackage()) || text.contains("PLATFORM_PACKAGE_BY_TARGET")) {
                Optional<Path> found = nodeResolve(platform.platformPackage());
                if (found.isPresent()) {
                    return found.get().resolve("vendor");
                }
            }
            return packageRoot.resolve("vendor");
        }

        /**
         * Where Node's {@code require.resolve("<name>/package.json")} from the launcher finds the package: in
         * {@code node_modules} of the launcher's directory and of each ancestor, skipping directories that are
         * themselves {@code node_modules}.
         */
        private Optional<Path> nodeResolve(String name) {
            for (Path dir = script.getParent(); dir != null; dir = dir.getParent()) {
                if (dir.getFileName() != null && dir.getFileName().toString().equals("node_modules")) {
                    continue;
                }
                Path candidate = dir.resolve("node_modules").resolve(name);
                if (Files.isRegularFile(candidate.resolve("package.json"))) {
                    return Optional.of(candidate);
                }
            }
            return Optional.empty();
        }

        /** {@code bin/codex} (0.169.0 on), else {@code codex/codex} (before). */
        private Optional<Path> binary(Path arch) {
            for (String dir : List.of("bin", "codex")) {
                Path candidate = arch.resolve(dir).resolve(platform.binaryName());
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
            return Optional.empty();
        }

        /**
         * {@code PATH} as the launcher rewrites it: its {@code path} directory first when it exists, then the
         * inherited entries without empty ones.
         */
        private String prependedPath(Path pathDir) {
            List<String> entries = new ArrayList<>();
            if (Files.isDirectory(pathDir)) {
                entries.add(pathDir.toString());
            }
            String existing = environment.getOrDefault("PATH", "");
            for (String entry : existing.split(Pattern.quote(platform.pathSeparator()))) {
                if (!entry.isEmpty()) {
                    entries.add(entry);
                }
            }
            return String.join(platform.pathSeparator(), entries);
        }

        /** NPM, BUN, PNPM or VITE_PLUS, as the launcher would decide; it only tells Vite+ and pnpm if it knows them. */
        private String packageManager() {
            boolean knowsVitePlus = text.contains("CODEX_MANAGED_BY_VITE_PLUS");
            boolean knowsPnpm = text.contains("CODEX_MANAGED_BY_PNPM");
            if (knowsVitePlus || knowsPnpm) {
                Set<Path> starts = new LinkedHashSet<>(List.of(packageRoot));
                Path entrypoint = started.toAbsolutePath().normalize().getParent();
                if (entrypoint != null) {
                    starts.add(entrypoint);
                }
                for (Path start : starts) {
                    Path root = start.getRoot();
                    for (Path dir = start; dir != null && !dir.equals(root); dir = dir.getParent()) {
                        if (knowsVitePlus && vitePlusOwns(dir)) {
                            return "VITE_PLUS";
                        }
                        if (knowsPnpm && pnpmOwns(dir.resolve("node_modules"))) {
                            return "PNPM";
                        }
                    }
                    if (knowsPnpm && root != null && pnpmOwns(root.resolve("node_modules"))) {
                        return "PNPM";
                    }
                }
            }
            String userAgent = environment.getOrDefault("npm_config_user_agent", "");
            if (Pattern.compile("\\bbun/").matcher(userAgent).find()
                    || environment.getOrDefault("npm_execpath", "").contains("bun")) {
                return "BUN";
            }
            String bin = script.getParent().toString();
            if (bin.contains(".bun/install/global") || bin.contains(".bun\\install\\global")) {
                return "BUN";
            }
            return "NPM";
        }

        private boolean pnpmOwns(Path nodeModules) {
            if (!Files.isRegularFile(nodeModules.resolve(".modules.yaml"))) {
                return false;
            }
            return realPath(nodeModules.resolve("@openai").resolve("codex")).map(packageRoot::equals)
                    .orElse(false);
        }

        private boolean vitePlusOwns(Path packages) {
            if (packages.getFileName() == null || !packages.getFileName().toString().equals("packages")) {
                return false;
            }
            Optional<JsonNode> metadata = readJson(packages.resolve("@openai").resolve("codex.json"));
            if (metadata.isEmpty() || !PACKAGE.equals(metadata.get().path("name").asText())) {
                return false;
            }
            String installId = metadata.get().path("installId").asText("");
            Path installDir;
            try {
                installDir = installId.startsWith("#") ? packages.resolve("@openai").resolve("codex" + installId)
                        : packages.resolve("@openai").resolve("codex").resolve(installId);
            } catch (InvalidPathException e) {
                return false;
            }
            for (Path nodeModules : List.of(installDir.resolve("lib").resolve("node_modules"),
                    installDir.resolve("node_modules"))) {
                if (realPath(nodeModules.resolve("@openai").resolve("codex")).map(packageRoot::equals)
                        .orElse(false)) {
                    return true;
                }
            }
            return false;
        }
    }

    private static Optional<Path> realPath(Path path) {
        try {
            return Optional.of(path.toRealPath());
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    private static Optional<JsonNode> readJson(Path file) {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            JsonNode node = JSON.readTree(file.toFile());
            return node != null && node.isObject() ? Optional.of(node) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}

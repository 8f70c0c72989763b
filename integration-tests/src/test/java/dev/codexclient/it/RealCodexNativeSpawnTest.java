package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.TurnResult;
import dev.codexclient.internal.transport.NpmLauncher;
import dev.codexclient.protocol.CommandExecutionStatus;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ModelStep;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The client given the npm launcher of codex runs the native binary itself: one process, the binary the launcher
 * would run, with the environment the launcher would give it, so that a turn with a command approval whose command
 * uses the launcher's helper (ripgrep) works as through the launcher; a launcher it does not recognise runs as it
 * is, with one log line saying why. Against every version in {@link CompatVersions} (the pinned one by default;
 * {@code -Dcodex.compat.versions=0.98.0,0.120.0,0.169.0,0.171.0} covers each kind of launcher).
 */
@Tag("real-codex")
@Timeout(300)
class RealCodexNativeSpawnTest {
    private static final Duration TURN = Duration.ofSeconds(60);

    static List<String> versions() {
        return CompatVersions.configuredOrPinned();
    }

    @ParameterizedTest(name = "codex {0}")
    @MethodSource("versions")
    void theNativeBinaryRunsAloneWithTheLaunchersEnvironment(String version) throws Exception {
        Path launcher = CodexBinary.version(version);
        Path expected = nativeOf(launcher);
        try (RealCodexFixture codex = new RealCodexFixture(launcher)) {
            Map<String, String> direct;
            try (CodexClient client = codex.client(b -> { })) {
                ProcessHandle server = client.serverProcess().orElseThrow();
                assertThat(command(server)).isEqualTo(expected);
                // No node anywhere: the tree is the binary and, at most, helpers it runs for a moment at start.
                assertThat(client.serverProcessTree()).first().isEqualTo(server);
                assertThat(client.serverProcessTree()).noneMatch(RealCodexNativeSpawnTest::isNode);
                direct = environ(server);
            }
            try (CodexClient client = codex.client(b -> b.stdio(s -> s.bypassNpmLauncher(false)))) {
                List<ProcessHandle> tree = client.serverProcessTree();
                // node runs the binary as its child, or (Node 22.15 and later, codex 0.169.0 and later) became it.
                ProcessHandle nativeCodex = tree.stream().filter(p -> p.info().command().map(Path::of)
                        .filter(expected::equals).isPresent()).findFirst().orElseThrow();
                if (direct != null) {
                    assertThat(direct).as("the environment of the native codex, run directly and by the launcher")
                            .isEqualTo(environ(nativeCodex));
                    assertThat(direct).containsEntry("CODEX_MANAGED_BY_NPM", "1");
                }
            }
        }
    }

    @ParameterizedTest(name = "codex {0}")
    @MethodSource("versions")
    void aCommandApprovalAndTheLaunchersRipgrepWorkAsThroughTheLauncher(String version) throws Exception {
        Path launcher = CodexBinary.version(version);
        String path = pathWithoutRipgrep();
        List<String> outputs = new ArrayList<>();
        for (boolean bypass : List.of(true, false)) {
            try (RealCodexFixture codex = new RealCodexFixture(launcher)) {
                codex.model.enqueue(ModelStep.callTool("exec_command",
                                Map.of("cmd", "rg --version | tee rg-version.txt", "login", false)),
                        ModelStep.reply("ripgrep is there"));
                List<String> asked = new CopyOnWriteArrayList<>();
                try (CodexClient client = codex.client(b -> b.environment("PATH", path)
                        .stdio(s -> s.bypassNpmLauncher(bypass))
                        .commandApprovals(ApprovalPolicy.sync(req -> {
                            asked.add(String.valueOf(req.params().command()));
                            return ApprovalDecision.ACCEPT;
                        })))) {
                    ProcessHandle server = client.serverProcess().orElseThrow();
                    if (bypass) {
                        assertThat(command(server)).isEqualTo(nativeOf(launcher));
                    }
                    TurnResult result = client.startThread(codex.threadParams().build())
                            .startTurn("which ripgrep is there?").await(TURN);

                    assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
                    assertThat(asked).singleElement().asString().contains("rg --version");
                    ThreadItem.CommandExecution command = result.itemsOf(ThreadItem.CommandExecution.class).get(0);
                    assertThat(command.status()).isEqualTo(CommandExecutionStatus.COMPLETED);
                    assertThat(command.exitCode()).isEqualTo(0);
                    assertThat(codex.workspace.resolve("rg-version.txt")).content().startsWith("ripgrep ");
                    outputs.add(Files.readString(codex.workspace.resolve("rg-version.txt")));
                }
            }
        }
        assertThat(outputs.get(0)).as("rg run by the native codex directly and through the launcher")
                .isEqualTo(outputs.get(1));
    }

    @ParameterizedTest(name = "codex {0}")
    @MethodSource("versions")
    void aLauncherTheClientDoesNotKnowRunsAsItIsWithALogLineSayingWhy(String version, @TempDir Path dir)
            throws Exception {
        Path launcher = unknownLauncher(CodexBinary.version(version), dir);
        try (RealCodexFixture codex = new RealCodexFixture(launcher)) {
            codex.model.enqueue(ModelStep.reply("through the launcher"));
            List<Boolean> serverIsNode = new ArrayList<>();
            String log = ClientTestSupport.captureStderr(() -> {
                try (CodexClient client = codex.client(b -> { })) {
                    serverIsNode.add(isNode(client.serverProcess().orElseThrow()));
                    assertThat(client.startThread(codex.threadParams().build()).startTurn("hello").await(TURN)
                            .finalText()).isEqualTo("through the launcher");
                }
            });

            assertThat(log).containsOnlyOnce("is the npm launcher of codex, but it names CODEX_LAUNCHER_FROM_THE_FUTURE")
                    .contains(launcher.toRealPath().toString()).contains("running the launcher");
            // The client ran the launcher, node, not the binary (a Node with process.execve becomes the binary).
            boolean execs = nodeExecs() && Files.readString(launcher.toRealPath()).contains("process.execve");
            assertThat(serverIsNode).singleElement().isEqualTo(!execs);
        }
    }

    /** The binary the launcher would run, as the client resolves it (checked against the launcher's own above). */
    private static Path nativeOf(Path launcher) {
        NpmLauncher.Resolution r = NpmLauncher.resolve(launcher, new HashMap<>(System.getenv()));
        assertThat(r).as("the installed launcher is recognised").isInstanceOf(NpmLauncher.Native.class);
        return ((NpmLauncher.Native) r).binary();
    }

    private static Path command(ProcessHandle p) {
        return Path.of(p.info().command().orElseThrow(() -> new AssertionError("no command for " + p.pid())));
    }

    private static boolean isNode(ProcessHandle p) {
        return p.info().command().map(c -> Path.of(c).getFileName().toString().startsWith("node")).orElse(false);
    }

    /**
     * Whether the Node on the PATH has {@code process.execve} (22.15 and later), with which the launchers of
     * 0.169.0 and later replace themselves with the binary.
     */
    private static boolean nodeExecs() throws Exception {
        Process node = new ProcessBuilder("node", "-e", "console.log(typeof process.execve === 'function')")
                .redirectErrorStream(true).start();
        String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        node.waitFor();
        return out.equals("true");
    }

    /**
     * A copy of the installed launcher that names an environment variable no launcher sets (in a comment, so it
     * runs as the original does), beside the installed platform package: a newer launcher, as far as the client
     * can tell.
     */
    private static Path unknownLauncher(Path installed, Path dir) throws IOException {
        Path scope = installed.toRealPath().getParent().getParent().getParent();
        Path copyScope = Files.createDirectories(dir.resolve("node_modules/@openai"));
        try (Stream<Path> packages = Files.list(scope)) {
            for (Path p : packages.toList()) {
                if (!p.getFileName().toString().equals("codex")) {
                    Files.createSymbolicLink(copyScope.resolve(p.getFileName()), p);
                }
            }
        }
        Path pkg = Files.createDirectories(copyScope.resolve("codex/bin"));
        Files.copy(scope.resolve("codex/package.json"), pkg.resolve("../package.json"));
        if (Files.isDirectory(scope.resolve("codex/vendor"))) {
            Files.createSymbolicLink(pkg.resolve("../vendor"), scope.resolve("codex/vendor"));
        }
        List<String> lines = new ArrayList<>(Files.readAllLines(scope.resolve("codex/bin/codex.js")));
        lines.add(1, "// CODEX_LAUNCHER_FROM_THE_FUTURE");
        Path script = Files.write(pkg.resolve("codex.js"), lines);
        script.toFile().setExecutable(true);
        Path bin = Files.createDirectories(dir.resolve("node_modules/.bin"));
        return Files.createSymbolicLink(bin.resolve("codex"), Path.of("../@openai/codex/bin/codex.js"));
    }

    /** The JVM's PATH without directories holding an {@code rg}: only the launcher's helpers can provide it. */
    private static String pathWithoutRipgrep() {
        return Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":"))
                .filter(d -> !d.isEmpty() && !Files.exists(Path.of(d, "rg")))
                .collect(Collectors.joining(":"));
    }

    /** The environment of a running process, from {@code /proc}; null where there is none (not Linux). */
    private static Map<String, String> environ(ProcessHandle p) throws IOException {
        Path file = Path.of("/proc", Long.toString(p.pid()), "environ");
        if (!Files.isReadable(Path.of("/proc/self/environ"))) {
            return null;
        }
        Map<String, String> env = new HashMap<>();
        for (String entry : new String(Files.readAllBytes(file), StandardCharsets.UTF_8).split("\0")) {
            int eq = entry.indexOf('=');
            if (eq > 0) {
                env.put(entry.substring(0, eq), entry.substring(eq + 1));
            }
        }
        return env;
    }
}

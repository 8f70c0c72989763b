package dev.codexclient.examples;

import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexClient;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.CodexBinaryUnavailableException;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Where the examples get a codex from, so they run anywhere:
 * <ul>
 *   <li>{@code live}: the real {@code codex app-server} with your own login and configuration (needs an account);</li>
 *   <li>{@code scripted} (the default): the real {@code codex app-server} (found on the PATH or installed with npm
 *       into a cache) talking to a scripted model on loopback, so no account or network is needed;</li>
 *   <li>{@code fake}: the testkit's fake app-server in memory, when no codex binary can be had.</li>
 * </ul>
 * Choose with {@code -Dbackend=live|scripted|fake} (or the {@code CODEX_EXAMPLES_BACKEND} environment variable).
 * A backend that cannot be had is an error, never a quiet substitute: {@code scripted} without a codex (none
 * configured, none on the {@code PATH}, and the pinned one neither cached nor installable with npm) fails with a
 * {@link CodexBinaryUnavailableException} that says so.
 */
final class Backend implements AutoCloseable {
    final String name;
    final Path workspace;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private ScriptedModelServer model;
    private FakeCodexAppServer fake;
    private Path binary;

    private Backend(String name, Path workspace) {
        this.name = name;
        this.workspace = workspace;
    }

    /**
     * Opens the chosen backend. {@code script} tells the scripted model (and the fake, in its own terms) what to
     * answer, so each example shows the behaviour it is about even without a real model.
     */
    static Backend open(Consumer<ScriptedModelServer> script, Consumer<FakeCodexAppServer> fakeScript) {
        String choice = System.getProperty("backend",
                System.getenv().getOrDefault("CODEX_EXAMPLES_BACKEND", "scripted"));
        Path workspace = tempDir();
        switch (choice) {
            case "live":
                return new Backend("live codex app-server (your login)", workspace);
            case "fake":
                return fake(workspace, fakeScript);
            case "scripted":
                try {
                    return scripted(workspace, script);
                } catch (RuntimeException e) {
                    deleteQuietly(workspace);
                    throw e;
                }
            default:
                throw new IllegalArgumentException("unknown backend " + choice + " (live, scripted or fake)");
        }
    }

    /**
     * The real codex with the scripted model. No codex is no reason to run something else than what was asked
     * for: it is an error that says how to get one, or how to ask for the fake.
     */
    private static Backend scripted(Path workspace, Consumer<ScriptedModelServer> script) {
        Path binary;
        try {
            // The first run installs the pinned codex with npm (once); say so and show its progress here.
            binary = CodexBinary.find(line -> System.out.println("[setup] " + line));
        } catch (CodexBinaryUnavailableException e) {
            throw new CodexBinaryUnavailableException("the scripted backend runs the real codex, and none is"
                    + " available: " + e.getMessage() + ". Run with -Dbackend=fake for the testkit's in-memory"
                    + " fake app-server instead.", e);
        }
        Backend b = new Backend("real codex " + CodexBinary.versionOf(binary)
                + " with a scripted model on loopback", workspace);
        try {
            b.model = ScriptedModelServer.start();
            b.resources.add(b.model);
            script.accept(b.model);
            b.binary = binary;
            return b;
        } catch (RuntimeException e) {
            b.close();
            throw e;
        }
    }

    private static Backend fake(Path workspace, Consumer<FakeCodexAppServer> fakeScript) {
        Backend b = new Backend("fake app-server (testkit, in memory)", workspace);
        b.fake = new FakeCodexAppServer();
        b.resources.add(b.fake);
        fakeScript.accept(b.fake);
        return b;
    }

    /** A client builder wired to this backend. */
    CodexClientBuilder client() {
        CodexClientBuilder builder = CodexClient.builder().clientInfo("codex-client-examples", "codex-client examples",
                "1.0.0");
        if (fake != null) {
            return builder.transport(fake.connectInMemory());
        }
        if (model != null) {
            // A private HOME and CODEX_HOME: codex's shell reads no profile of this machine and writes nothing into
            // the real ~/.codex; the scripted model's config.toml is in that CODEX_HOME.
            builder.codexBinary(binary).workingDirectory(workspace).stdio(model::applyEnvironment);
        }
        return builder;
    }

    /** Thread options for the examples: writes confined to a scratch workspace. */
    ThreadStartParams.Builder thread(AskForApproval approvals) {
        return ThreadStartParams.builder().cwd(workspace.toString()).approvalPolicy(approvals)
                .sandbox(SandboxMode.WORKSPACE_WRITE);
    }

    /** Convenience for scripts: a step that runs a shell command without a login shell. */
    static ModelStep shell(String command) {
        return ModelStep.callTool("exec_command", java.util.Map.of("cmd", command, "login", false));
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("codex-example");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Closes the backend's servers, then deletes the scratch workspace and whatever the example wrote into it. */
    @Override
    public void close() {
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (Exception ignored) {
                // closing scratch resources; nothing useful to report
            }
        }
        deleteQuietly(workspace);
    }

    private static void deleteQuietly(Path workspace) {
        try (Stream<Path> files = Files.walk(workspace)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // best effort: a leftover scratch directory in the temp directory is harmless
        }
    }
}

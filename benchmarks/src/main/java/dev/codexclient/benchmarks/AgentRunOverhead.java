package dev.codexclient.benchmarks;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexThread;
import dev.codexclient.agent.AgentRun;
import dev.codexclient.agent.AgentRunner;
import dev.codexclient.agent.workspace.HostMount;
import dev.codexclient.agent.workspace.Workspace;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * Figure 9's measurement, in a JVM of its own: what an agent run costs over the same turn on a warm client. Each
 * iteration times, one after the other on the real codex with a scripted model: (a) a bare turn on a client started
 * once (thread start, one turn, letting go of the thread), (b) an agent run with a client of its own, as every run
 * had before warm clients (a workspace of 100 small files built, the run, the workspace closed), (c) the same run on
 * a runner keeping a warm client, and (d) the workspace alone. Prints medians and extremes as a {@code RESULT} line.
 *
 * <p>It uses only API that the agent module had before warm clients, and finds {@code warmClient} by reflection, so
 * the same file measures an older build: {@code java -cp <that build's class path> AgentRunOverhead.java 5 20}
 * (a single-file program) prints the figure's (a), (b) and (d), and {@code warm=unavailable}.
 */
public final class AgentRunOverhead {
    /** The files of the workspace: 100 of 1 KiB, in 10 directories. */
    static final int FILES = 100;

    private AgentRunOverhead() {
    }

    /**
     * Runs the measurement.
     *
     * @param args warm-up iterations, measured iterations
     * @throws Exception when a run fails
     */
    public static void main(String[] args) throws Exception {
        int warmup = Integer.parseInt(args[0]);
        int iterations = Integer.parseInt(args[1]);
        Path work = Files.createTempDirectory("agent-overhead");
        Path host = work.resolve("host");
        for (int i = 0; i < FILES; i++) {
            Path file = host.resolve("src/d" + (i % 10) + "/F" + i + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, "class F" + i + " {}\n" + "// padding\n".repeat(92));
        }
        Path codex = CodexBinary.pinned();
        try (ScriptedModelServer model = ScriptedModelServer.start()) {
            model.whenAlways(r -> true, ModelStep.reply("done").withUsage(100, 5));
            Supplier<CodexClientBuilder> clients = () -> CodexClient.builder().codexBinary(codex)
                    .workingDirectory(work).stdio(model::applyEnvironment).requestTimeout(Duration.ofSeconds(60));
            AgentRunner perRun = AgentRunner.builder().client(clients).build();
            AgentRunner warm = warmRunner(clients);
            List<Long> bare = new ArrayList<>();
            List<Long> own = new ArrayList<>();
            List<Long> shared = new ArrayList<>();
            List<Long> workspace = new ArrayList<>();
            try (CodexClient client = clients.get().build()) {
                for (int i = 0; i < warmup + iterations; i++) {
                    boolean measured = i >= warmup;
                    long t0 = System.nanoTime();
                    CodexThread thread = client.startThread(ThreadStartParams.builder().cwd(host.toString()).build());
                    thread.startTurn("go").await(Duration.ofSeconds(60));
                    thread.unsubscribe();
                    add(measured, bare, t0);
                    t0 = System.nanoTime();
                    run(perRun, work, host);
                    add(measured, own, t0);
                    if (warm != null) {
                        t0 = System.nanoTime();
                        run(warm, work, host);
                        add(measured, shared, t0);
                    }
                    t0 = System.nanoTime();
                    workspace(work, host).close();
                    add(measured, workspace, t0);
                }
            } finally {
                if (((Object) warm) instanceof AutoCloseable closeable) {
                    closeable.close();
                }
            }
            System.out.println("RESULT iterations=" + iterations + " bare=" + stats(bare) + " perRun=" + stats(own)
                    + " warm=" + (warm == null ? "unavailable" : stats(shared)) + " workspace=" + stats(workspace));
        } finally {
            deleteTree(work);
        }
    }

    private static void run(AgentRunner runner, Path work, Path host) {
        try (Workspace ws = workspace(work, host)) {
            runner.run(AgentRun.builder("go").workspace(ws).build());
        }
    }

    private static Workspace workspace(Path work, Path host) {
        return Workspace.builder().parentDirectory(work.resolve("ws")).allowedRoot(host)
                .mount(HostMount.of(host, "repo")).build();
    }

    /** A runner keeping a warm client, or null when this build of the agent module has none. */
    private static AgentRunner warmRunner(Supplier<CodexClientBuilder> clients) throws Exception {
        AgentRunner.Builder builder = AgentRunner.builder().client(clients);
        Method warm;
        try {
            warm = AgentRunner.Builder.class.getMethod("warmClient", boolean.class);
        } catch (NoSuchMethodException e) {
            return null;
        }
        warm.invoke(builder, true);
        return builder.build();
    }

    private static void add(boolean measured, List<Long> into, long startNanos) {
        if (measured) {
            into.add(System.nanoTime() - startNanos);
        }
    }

    /** {@code median,min,max} in nanoseconds. */
    private static String stats(List<Long> nanos) {
        Long[] sorted = nanos.toArray(new Long[0]);
        Arrays.sort(sorted, Comparator.naturalOrder());
        return sorted[sorted.length / 2] + "," + sorted[0] + "," + sorted[sorted.length - 1];
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}

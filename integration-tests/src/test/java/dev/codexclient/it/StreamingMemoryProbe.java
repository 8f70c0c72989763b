package dev.codexclient.it;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.IsolatedHome;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs one turn whose command prints a large output, in a JVM of its own (started by {@link RealCodexStreamingTest}
 * with a small heap), and prints what it observed as {@code key=value} lines on stdout.
 *
 * <p>Arguments: the codex executable, the private HOME whose {@code .codex} points at the parent's scripted model,
 * the workspace, and the turn replay limit.
 */
public final class StreamingMemoryProbe {
    private StreamingMemoryProbe() {
    }

    public static void main(String[] args) throws Exception {
        Path codex = Path.of(args[0]);
        Path home = Path.of(args[1]);
        Path workspace = Path.of(args[2]);
        int replayLimit = Integer.parseInt(args[3]);
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        AtomicLong deltas = new AtomicLong();
        AtomicLong deltaChars = new AtomicLong();
        AtomicLong deltaNewlines = new AtomicLong();
        AtomicLong peakUsed = new AtomicLong();
        Map<String, Long> methods = new ConcurrentHashMap<>();
        try (CodexClient client = CodexClient.builder()
                .codexBinary(codex)
                .environment("HOME", home.toString())
                .environment("TMPDIR", home.resolve("tmp").toString())
                .codexHome(home.resolve(".codex"))
                .workingDirectory(workspace)
                .turnReplayLimit(replayLimit)
                .requestTimeout(Duration.ofSeconds(30))
                .stdio(s -> {
                    IsolatedHome.CLEARED_VARIABLES.forEach(s::removeEnvironment);
                    IsolatedHome.HOME_VARIABLES.forEach(s::removeEnvironment);
                })
                .onNotification(n -> methods.merge(n.method(), 1L, Long::sum))
                .build()) {
            CodexTurn turn = client.startThread(ThreadStartParams.builder().cwd(workspace.toString())
                            .approvalPolicy(AskForApproval.Simple.NEVER).sandbox(SandboxMode.DANGER_FULL_ACCESS)
                            .build())
                    .startTurn("print a lot");
            turn.onCommandOutputDelta(d -> {
                deltas.incrementAndGet();
                deltaChars.addAndGet(d.delta().length());
                deltaNewlines.addAndGet(d.delta().chars().filter(c -> c == '\n').count());
                long used = memory.getHeapMemoryUsage().getUsed();
                peakUsed.accumulateAndGet(used, Math::max);
            });
            TurnResult result = turn.await(Duration.ofSeconds(60));
            ThreadItem.CommandExecution cmd = result.itemsOf(ThreadItem.CommandExecution.class).get(0);
            System.gc();
            System.out.println("status=" + result.status().asString());
            System.out.println("commandStatus=" + cmd.status().asString());
            System.out.println("exitCode=" + cmd.exitCode());
            System.out.println("aggregatedOutputChars=" + (cmd.aggregatedOutput() == null ? -1
                    : cmd.aggregatedOutput().length()));
            System.out.println("deltas=" + deltas.get());
            System.out.println("deltaChars=" + deltaChars.get());
            System.out.println("deltaNewlines=" + deltaNewlines.get());
            System.out.println("peakHeapUsedDuringStream=" + peakUsed.get());
            System.out.println("heapUsedAfterGc=" + memory.getHeapMemoryUsage().getUsed());
            System.out.println("notifications=" + methods);
            System.out.println("maxHeap=" + Runtime.getRuntime().maxMemory());
        }
        System.out.flush();
    }
}

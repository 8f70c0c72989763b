package dev.codexclient.benchmarks;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Figure 7: what a user's unit test of code built on the SDK does, once. A fresh {@link FakeCodexAppServer} (as
 * {@code CodexTestExtension} makes one per test) scripts a turn that asks for one command approval; a client built
 * on its in-memory transport, with a command-approval policy that accepts, starts a thread, runs the turn, awaits
 * its completion and closes.
 *
 * <p>Run as a main class, it is the cold side of the figure: one cycle in a fresh JVM, then one line with the
 * cycle's own time and the JVM's uptime when it ended.
 */
public final class UnitTestCycle {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String COMMAND = "ls -la";

    private UnitTestCycle() {
    }

    /**
     * Runs one cycle.
     *
     * @throws IllegalStateException when the turn did not complete or the fake saw another reply than "accept"
     */
    public static void run() {
        AtomicReference<String> decision = new AtomicReference<>("none");
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(turn -> turn
                    .commandApproval(COMMAND, reply -> decision.set(reply.decision().orElse("none")))
                    .agentMessage("Listed.")
                    .completed());
            TurnResult result;
            try (CodexClient client = CodexClient.builder()
                    .transport(fake.connectInMemory())
                    .commandApprovals(ApprovalPolicy.acceptAll())
                    .build()) {
                result = client.startThread().startTurn("list the files").await(TIMEOUT);
            }
            if (result.status() != TurnStatus.COMPLETED || !decision.get().equals("accept")) {
                throw new IllegalStateException("the scripted turn ended " + result.status() + " after the reply "
                        + decision.get());
            }
        }
    }

    /** One cycle in this (fresh) JVM; prints {@code RESULT cycleNanos=… uptimeMs=… classes=…}. */
    public static void main(String[] args) {
        long start = System.nanoTime();
        run();
        long nanos = System.nanoTime() - start;
        long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
        int classes = ManagementFactory.getClassLoadingMXBean().getLoadedClassCount();
        System.out.println(new StringBuilder("RESULT cycleNanos=").append(nanos).append(" uptimeMs=").append(uptime)
                .append(" classes=").append(classes));
        System.out.flush();
    }
}

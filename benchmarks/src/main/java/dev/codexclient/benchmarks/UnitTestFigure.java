package dev.codexclient.benchmarks;

import static dev.codexclient.benchmarks.Results.millis;

import dev.codexclient.benchmarks.BenchmarkRunner.Row;
import dev.codexclient.benchmarks.Results.Bound;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Figure 7: a user's unit test ({@link UnitTestCycle}: fake app-server, client, thread, one turn with one accepted
 * command approval, close), per cycle in a warm JVM, and as the first cycle of a fresh JVM.
 */
final class UnitTestFigure {
    private static final double WARM_TARGET_MS = 2;
    private static final double COLD_TARGET_MS = 600;

    private final Results out;

    UnitTestFigure(Results out) {
        this.out = out;
    }

    void run(int warmup, int cycles, int coldJvms) throws Exception {
        BenchmarkRunner.log("7. a user's unit test: " + warmup + " warm-up cycles, " + cycles + " measured, "
                + coldJvms + " cold JVMs");
        List<long[]> cold = new ArrayList<>();
        for (int i = 0; i < coldJvms; i++) {
            Map<String, String> r = Children.runForResult(List.of(Children.JAVA, "-cp", Children.CLASSPATH,
                    UnitTestCycle.class.getName()), Duration.ofMinutes(2));
            cold.add(new long[] {Long.parseLong(r.get("cycleNanos")), Long.parseLong(r.get("uptimeMs")),
                    Long.parseLong(r.get("classes"))});
        }
        int[] loaded = loggedClasses();
        cold.sort((a, b) -> Long.compare(a[0], b[0]));
        long[] median = cold.get(cold.size() / 2);
        // Warm in a JVM of its own, as a test suite's JVM runs its tests: in this one, the figures before it would
        // have compiled the client's code for their transports and executors, not for a test's.
        Map<String, String> warm = Children.runForResult(List.of(Children.JAVA, "-cp", Children.CLASSPATH,
                UnitTestWarm.class.getName(), Integer.toString(warmup), Integer.toString(cycles)),
                Duration.ofMinutes(10));
        long p50 = Long.parseLong(warm.get("p50Nanos"));
        long p99 = Long.parseLong(warm.get("p99Nanos"));
        long max = Long.parseLong(warm.get("maxNanos"));
        out.put("unitTest.warm.p50Ms", p50 / 1e6);
        out.put("unitTest.warm.p99Ms", p99 / 1e6);
        out.put("unitTest.warm.maxMs", max / 1e6);
        out.put("unitTest.cold.firstCycleMs", median[0] / 1e6);
        out.put("unitTest.cold.uptimeMs", median[1]);
        out.put("unitTest.cold.classes", median[2]);
        out.put("unitTest.cold.loggedClasses", loaded[0]);
        out.put("unitTest.cold.sdkClasses", loaded[1]);
        String warmStatus = out.target("unitTest.warm.p50", "user's unit test, warm cycle p50", p50 / 1e6,
                Bound.AT_MOST, WARM_TARGET_MS, " ms");
        out.add(new Row("7 Unit test", "a user's unit test (fake app-server in memory, client, thread, one turn "
                        + "with one accepted command approval, close), warm JVM of its own: " + cycles
                        + " cycles after " + warmup + " warm-up cycles",
                "p50 " + millis(p50) + ", p99 " + millis(p99) + ", max " + millis(max),
                "—", "—", "p50 ≤ " + Results.number(WARM_TARGET_MS) + " ms (p99 info)", warmStatus));
        String coldStatus = out.target("unitTest.cold.firstCycle", "user's unit test, first cycle in a fresh JVM",
                median[0] / 1e6, Bound.AT_MOST, COLD_TARGET_MS, " ms");
        StringBuilder all = new StringBuilder();
        for (long[] c : cold) {
            all.append(all.length() == 0 ? "" : ", ").append(c[0] / 1_000_000);
        }
        out.add(new Row("7 Unit test", "the same, first cycle in a fresh JVM (median of " + coldJvms + ")",
                millis(median[0]) + " (all: " + all + " ms); JVM uptime at its end " + median[1] + " ms; "
                        + median[2] + " classes loaded (a logged run: " + loaded[0] + ", " + loaded[1]
                        + " of them the SDK's and the testkit's)",
                "—", "—", "≤ " + Results.number(COLD_TARGET_MS) + " ms", coldStatus));
    }

    /**
     * One more cold cycle with class-load logging on stdout: the classes it loads, and how many of them are
     * {@code dev.codexclient.*} (SDK, protocol, testkit; not this benchmark's own).
     */
    private static int[] loggedClasses() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Children.JAVA, "-Xlog:class+load=info:stdout", "-cp", Children.CLASSPATH,
                UnitTestCycle.class.getName()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        int all = 0;
        int sdk = 0;
        try (BufferedReader r = p.inputReader(StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.contains("[class,load]")) {
                    all++;
                    if (line.contains("] dev.codexclient.") && !line.contains("] dev.codexclient.benchmarks.")) {
                        sdk++;
                    }
                }
            }
        }
        if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("the logged unit-test JVM failed");
        }
        return new int[] {all, sdk};
    }
}

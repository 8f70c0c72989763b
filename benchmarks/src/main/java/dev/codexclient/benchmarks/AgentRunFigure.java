package dev.codexclient.benchmarks;

import static dev.codexclient.benchmarks.Results.millis;
import static dev.codexclient.benchmarks.Results.x;

import dev.codexclient.benchmarks.BenchmarkRunner.Row;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Figure 9: what an agent run costs over the same turn on a warm client, with a client of its own per run (as before
 * warm clients) and on a runner keeping a warm client. Measured by {@link AgentRunOverhead} in a JVM of its own, on
 * the real codex with a scripted model; the medians and extremes of its iterations.
 */
final class AgentRunFigure {
    private final Results out;

    AgentRunFigure(Results out) {
        this.out = out;
    }

    void run(int warmup, int iterations) throws Exception {
        BenchmarkRunner.log("9. agent run overhead: " + warmup + " warm-up iterations, " + iterations
                + " measured (real codex, scripted model)");
        Map<String, String> r = Children.runForResult(List.of(Children.JAVA, "-cp", Children.CLASSPATH,
                AgentRunOverhead.class.getName(), Integer.toString(warmup), Integer.toString(iterations)),
                Duration.ofMinutes(30));
        long[] bare = stats(r.get("bare"));
        long[] perRun = stats(r.get("perRun"));
        long[] warm = stats(r.get("warm"));
        long[] workspace = stats(r.get("workspace"));
        out.put("agentRun.bareTurnMs", bare[0] / 1e6);
        out.put("agentRun.perRunClientMs", perRun[0] / 1e6);
        out.put("agentRun.warmClientMs", warm[0] / 1e6);
        out.put("agentRun.workspaceMs", workspace[0] / 1e6);
        out.put("agentRun.perRunClient.overheadMs", (perRun[0] - bare[0]) / 1e6);
        out.put("agentRun.warmClient.overheadMs", (warm[0] - bare[0]) / 1e6);
        String baseline = "bare turn on a warm client " + range(bare);
        out.add(new Row("9 Agent run", "a run of one turn in a workspace of " + AgentRunOverhead.FILES
                + " small files (built and closed), a client of its own per run (before warm clients); median of "
                + iterations, range(perRun), baseline, x((double) perRun[0] / bare[0]) + " bare, +"
                + millis(perRun[0] - bare[0]), "—", "info"));
        out.add(new Row("9 Agent run", "the same on a runner keeping a warm client (after)", range(warm), baseline,
                x((double) warm[0] / bare[0]) + " bare, +" + millis(warm[0] - bare[0]), "—", "info"));
        out.add(new Row("9 Agent run", "the workspace alone: " + AgentRunOverhead.FILES + " files copied, then "
                + "deleted", range(workspace), "—", "—", "—", "info"));
    }

    /** {@code median,min,max} nanoseconds. */
    private static long[] stats(String text) {
        String[] parts = text.split(",");
        return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2])};
    }

    private static String range(long[] stats) {
        return millis(stats[0]) + " (" + millis(stats[1]) + "–" + millis(stats[2]) + ")";
    }
}

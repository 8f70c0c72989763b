package dev.codexclient.benchmarks;

import dev.codexclient.benchmarks.BenchmarkRunner.Row;
import dev.codexclient.benchmarks.ScalingFigure.Layout;
import dev.codexclient.benchmarks.ScalingFigure.Measured;
import java.util.List;
import java.util.Locale;

/**
 * The rows of figure 8: one row per (N, layout) in the run's table, its numbers ({@code scaling.<layout>.n<N>.*}),
 * and a table of its own below the run's table with every measure in a column.
 */
final class ScalingTable {
    /** The target: an idle server without the launcher takes at least this much less PSS. */
    static final double LAUNCHER_SAVING_MB = 30;

    private final Results out;
    ScalingTable(Results out) {
        this.out = out;
    }

    void add(List<Measured> measured, int leftProcesses) {
        Measured base = measured.stream().filter(m -> m.layout() == Layout.IDLE_SERVER).findFirst().orElseThrow();
        StringBuilder table = new StringBuilder();
        table.append("### 8 Scaling: the real codex app-server, scripted model\n\n");
        table.append("Each thread runs its turns one after another, all threads at once: one turn in ")
                .append(TurnLoad.COMMAND_EVERY).append(" (the 2nd, 7th, …) runs a command (exec_command, then a "
                        + "short reply), the others stream a reply of ").append(ScalingFigure.PROSE.length())
                .append(" characters. Latency: turn/start "
                        + "sent → turn/completed seen. Memory: summed over the servers' process trees (the native "
                        + "codex, the commands it runs, and the npm launcher where it runs); RSS counts shared pages in every process, PSS divides them. "
                        + "Idle: the N threads started, no turn yet (the floor of 5 samples); peak: sampled during the load; end: after it. "
                        + "Processes left after closing: ").append(leftProcesses).append(".\n\n");
        table.append("| N | Layout | Servers | Processes | Turns | p50 | p99 | max | Turns/s | RSS idle | RSS peak | "
                + "RSS end | PSS idle | PSS peak | PSS end | PSS peak / thread | Took |\n");
        table.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Measured m : measured) {
            String key = m.load() == null ? "scaling." + m.layout().key
                    : "scaling." + m.layout().key + ".n" + m.threads();
            put(key, m);
            table.append(tableRow(m));
            out.add(row(m, base, measured));
        }
        out.section(table.toString());
    }

    private void put(String key, Measured m) {
        out.put(key + ".servers", m.servers());
        out.put(key + ".processes", m.processes());
        out.put(key + ".rssIdleMb", m.idle().rssMb());
        out.put(key + ".rssPeakMb", m.peak().rssMb());
        out.put(key + ".rssEndMb", m.end().rssMb());
        putIfKnown(key + ".pssIdleMb", m.idle().pssMb());
        putIfKnown(key + ".pssPeakMb", m.peak().pssMb());
        putIfKnown(key + ".pssEndMb", m.end().pssMb());
        if (m.load() != null) {
            out.put(key + ".turns", m.load().turns());
            out.put(key + ".turnsPerThread", m.turns());
            out.put(key + ".seconds", m.seconds());
            out.put(key + ".p50Ms", m.load().percentile(0.50) / 1e6);
            out.put(key + ".p99Ms", m.load().percentile(0.99) / 1e6);
            out.put(key + ".maxMs", m.load().max() / 1e6);
            out.put(key + ".turnsPerSec", m.load().turnsPerSecond());
        }
    }

    /** PSS is unknown without smaps_rollup; the run file holds only finite numbers. */
    private void putIfKnown(String key, double value) {
        if (Double.isFinite(value)) {
            out.put(key, value);
        }
    }

    private static String tableRow(Measured m) {
        TurnLoad.Result l = m.load();
        String perThread = m.threads() == 0 ? "—" : mb(m.peak().pssMb() / m.threads());
        return "| " + String.join(" | ", Integer.toString(m.threads()), m.layout().text,
                Integer.toString(m.servers()), Integer.toString(m.processes()),
                l == null ? "—" : l.turns() + " (" + m.turns() + " per thread)",
                l == null ? "—" : Results.millis(l.percentile(0.50)),
                l == null ? "—" : Results.millis(l.percentile(0.99)),
                l == null ? "—" : Results.millis(l.max()),
                l == null ? "—" : String.format(Locale.ROOT, "%.1f", l.turnsPerSecond()),
                mb(m.idle().rssMb()), mb(m.peak().rssMb()), mb(m.end().rssMb()),
                mb(m.idle().pssMb()), mb(m.peak().pssMb()), mb(m.end().pssMb()), perThread,
                l == null ? "—" : String.format(Locale.ROOT, "%.0f s", m.seconds())) + " |\n";
    }

    private Row row(Measured m, Measured base, List<Measured> all) {
        if (m.layout() == Layout.IDLE_SERVER_LAUNCHER) {
            // The launcher's cost per server, against the native codex the client runs, in the same run.
            double saved = m.idle().pssMb() - base.idle().pssMb();
            if (Double.isFinite(saved)) {
                out.put("scaling.idlePss.launcherMinusNativeMb", saved);
            }
            String status = Double.isFinite(saved) ? out.target("scaling.idlePss", "idle PSS per server, launcher "
                    + "minus native codex (MB)", saved, Results.Bound.AT_LEAST, LAUNCHER_SAVING_MB, " MB") : "n/a";
            return new Row("8 Scaling", "one app-server, no thread, after initialize: the native codex (as the "
                    + "client runs it) against the npm launcher",
                    "native: RSS " + mb(base.idle().rssMb()) + ", PSS " + mb(base.idle().pssMb()) + " ("
                            + base.processes() + " processes)",
                    "launcher: RSS " + mb(m.idle().rssMb()) + ", PSS " + mb(m.idle().pssMb()) + " ("
                            + m.processes() + " processes)",
                    mb(saved) + " PSS less", "≥ " + Results.number(LAUNCHER_SAVING_MB) + " MB less", status);
        }
        if (m.load() == null) {
            return new Row("8 Scaling", "one app-server, no thread, after initialize",
                    "RSS " + mb(m.idle().rssMb()) + ", PSS " + mb(m.idle().pssMb()) + " (" + m.processes()
                            + " processes)", "—", "—", "—", "info");
        }
        TurnLoad.Result l = m.load();
        String ratio = "—";
        if (m.layout() != Layout.ONE_SERVER) {
            Measured one = all.stream().filter(o -> o.layout() == Layout.ONE_SERVER && o.threads() == m.threads())
                    .findFirst().orElse(null);
            if (one != null) {
                ratio = Results.x(l.turnsPerSecond() / one.load().turnsPerSecond()) + " one server's turns/s";
            }
        }
        return new Row("8 Scaling", m.threads() + " threads × " + m.turns() + " turns, " + m.layout().text,
                String.format(Locale.ROOT, "p50 %.0f ms, p99 %.0f ms, max %.0f ms, %.1f turns/s",
                        l.percentile(0.50) / 1e6, l.percentile(0.99) / 1e6, l.max() / 1e6, l.turnsPerSecond()),
                "servers' RSS peak " + mb(m.peak().rssMb()) + ", PSS peak " + mb(m.peak().pssMb())
                        + " (idle server: PSS " + mb(base.idle().pssMb()) + ")",
                ratio, "—", "info");
    }

    private static String mb(double mb) {
        return Double.isFinite(mb) ? String.format(Locale.ROOT, "%.0f MB", mb) : "n/a";
    }
}

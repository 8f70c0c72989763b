package dev.codexclient.benchmarks;

import dev.codexclient.benchmarks.Results.Target;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The spread of the targets over the last complete runs: reads the {@code bench-<stamp>.json} files of full runs
 * (every figure, full sizes) and prints, per target, each run's value, their median and min–max, and whether the
 * target was met in every run.
 *
 * <pre>
 * mvn -B -o -q -pl benchmarks -am package -DskipTests -Pbench -Dbench.spread=3
 * </pre>
 *
 * (the runner hands {@code -Dbench.spread} to this class). Arguments when run directly: how many runs (default 3),
 * and the results directory (default {@code results}).
 */
public final class Spread {

    /** One target's values over the runs, oldest first; {@code NaN} where a run did not measure it. */
    record Line(String id, String description, String bound, String unit, double[] values, boolean[] met) {

        /** The median of the values the runs measured (the lower middle one of an even count). */
        double median() {
            double[] v = measured();
            return v.length == 0 ? Double.NaN : v[(v.length - 1) / 2];
        }

        double min() {
            double[] v = measured();
            return v.length == 0 ? Double.NaN : v[0];
        }

        double max() {
            double[] v = measured();
            return v.length == 0 ? Double.NaN : v[v.length - 1];
        }

        /** Met in every run; a run that did not measure the target has not met it. */
        boolean metInEveryRun() {
            for (int i = 0; i < values.length; i++) {
                if (Double.isNaN(values[i]) || !met[i]) {
                    return false;
                }
            }
            return values.length > 0;
        }

        private double[] measured() {
            return Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        }
    }

    private Spread() {
    }

    /** Prints the table of the last N complete runs (arguments: N, default 3; the directory, default results). */
    public static void main(String[] args) throws IOException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        Path dir = Path.of(args.length > 1 ? args[1] : System.getProperty("bench.results", "results"));
        List<RunFile> runs = lastComplete(dir, n);
        if (runs.isEmpty()) {
            System.out.println("No complete benchmark run in " + dir.toAbsolutePath()
                    + " (bench-<stamp>.json of a full run).");
            return;
        }
        if (runs.size() < n) {
            System.out.println("Only " + runs.size() + " complete run(s) in " + dir.toAbsolutePath() + ".\n");
        }
        System.out.print(table(runs));
    }

    /** The last {@code n} complete runs in {@code dir}, oldest first (by stamp). */
    static List<RunFile> lastComplete(Path dir, int n) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<RunFile> complete = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().matches("bench-.*\\.json")).toList()) {
                RunFile run = RunFile.read(f);
                if (run.complete() && !run.smoke()) {
                    complete.add(run);
                }
            }
        }
        complete.sort(Comparator.comparing(RunFile::stamp));
        return List.copyOf(complete.subList(Math.max(0, complete.size() - n), complete.size()));
    }

    /** One line per target, in the order the runs list them (newest run's order first, then any others). */
    static List<Line> lines(List<RunFile> runs) {
        Map<String, Target> first = new LinkedHashMap<>();
        for (int r = runs.size() - 1; r >= 0; r--) {
            for (Target t : runs.get(r).targets()) {
                first.putIfAbsent(t.id(), t);
            }
        }
        List<Line> lines = new ArrayList<>();
        for (Target t : first.values()) {
            double[] values = new double[runs.size()];
            boolean[] met = new boolean[runs.size()];
            for (int r = 0; r < runs.size(); r++) {
                values[r] = Double.NaN;
                for (Target u : runs.get(r).targets()) {
                    if (u.id().equals(t.id())) {
                        values[r] = u.value();
                        met[r] = u.met();
                    }
                }
            }
            lines.add(new Line(t.id(), t.description(), t.text(), t.unit(), values, met));
        }
        return lines;
    }

    /** The Markdown table of {@code runs} (oldest first). */
    static String table(List<RunFile> runs) {
        StringBuilder s = new StringBuilder("| Target | Bound |");
        for (RunFile run : runs) {
            s.append(' ').append(run.stamp()).append(" |");
        }
        s.append(" Median | Min–max | Met in every run |\n|---|---|");
        s.append("---|".repeat(runs.size())).append("---|---|---|\n");
        for (Line l : lines(runs)) {
            s.append("| ").append(l.description()).append(" | ").append(l.bound()).append(" |");
            for (int r = 0; r < l.values().length; r++) {
                s.append(' ').append(format(l.values()[r], l.unit()))
                        .append(Double.isNaN(l.values()[r]) || l.met()[r] ? "" : " (missed)").append(" |");
            }
            s.append(' ').append(format(l.median(), l.unit())).append(" | ")
                    .append(format(l.min(), l.unit())).append("–").append(format(l.max(), l.unit())).append(" | ")
                    .append(l.metInEveryRun() ? "yes" : "no").append(" |\n");
        }
        return s.toString();
    }

    private static String format(double v, String unit) {
        if (Double.isNaN(v)) {
            return "—";
        }
        return String.format(Locale.ROOT, "%.2f", v) + unit;
    }
}

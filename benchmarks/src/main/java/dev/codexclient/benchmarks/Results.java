package dev.codexclient.benchmarks;

import dev.codexclient.benchmarks.BenchmarkRunner.Row;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the figures of one run produce: the table's rows, the raw numbers behind them and, for every row that has
 * a target, the measured value against its bound (what {@code bench-<stamp>.json} keeps for {@link Spread}).
 * Also the number formats the rows share.
 */
final class Results {

    /** Whether a measured value must be at least or at most its bound. */
    enum Bound {
        AT_LEAST("≥"), AT_MOST("≤");

        final String symbol;

        Bound(String symbol) {
            this.symbol = symbol;
        }

        boolean met(double value, double bound) {
            return this == AT_LEAST ? value >= bound : value <= bound;
        }
    }

    /**
     * One target of the run: {@code value} (a ratio, or milliseconds where the unit says so) against {@code bound}.
     *
     * @param id a stable key, the same in every run
     * @param description what the value is, for the Spread table
     * @param unit {@code "×"} for ratios, {@code "ms"} for times
     */
    record Target(String id, String description, double value, Bound direction, double bound, String unit) {

        boolean met() {
            return direction.met(value, bound);
        }

        String text() {
            return direction.symbol + " " + Results.number(bound) + unit;
        }
    }

    private final boolean smoke;
    private final List<Row> rows = new ArrayList<>();
    private final Map<String, Double> numbers = new LinkedHashMap<>();
    private final List<Target> targets = new ArrayList<>();
    private final List<String> sections = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();

    Results(boolean smoke) {
        this.smoke = smoke;
    }

    boolean smoke() {
        return smoke;
    }

    void add(Row row) {
        rows.add(row);
    }

    void put(String key, double value) {
        numbers.put(key, value);
    }

    /** Records a target and returns the row status for it ("met", "MISSED", or "smoke" in a smoke run). */
    String target(String id, String description, double value, Bound direction, double bound, String unit) {
        Target t = new Target(id, description, value, direction, bound, unit);
        targets.add(t);
        return status(t.met());
    }

    String status(boolean met) {
        return smoke ? "smoke" : met ? "met" : "MISSED";
    }

    /**
     * Records that the run failed a check of correctness (a hung turn, a leak), as opposed to a performance target
     * missed: such a failure is one in a smoke run too, and makes the runner exit with status 1.
     */
    void fail(String failure) {
        failures.add(failure);
    }

    List<String> failures() {
        return List.copyOf(failures);
    }

    /** Adds a table of a figure's own, in Markdown, printed below the run's table. */
    void section(String markdown) {
        sections.add(markdown);
    }

    List<String> sections() {
        return List.copyOf(sections);
    }

    List<Row> rows() {
        return List.copyOf(rows);
    }

    Map<String, Double> numbers() {
        return Map.copyOf(numbers);
    }

    List<Target> targets() {
        return List.copyOf(targets);
    }

    // ------------------------------------------------------------------------------------------------ formats

    static String rate(double msgsPerSec, double bytesPerSec) {
        return String.format(Locale.ROOT, "%,.0f msg/s (%.1f MB/s)", msgsPerSec, bytesPerSec / 1048576.0);
    }

    /** A message rate in thousands, for spreads: {@code 412k}. */
    static String kilo(double perSec) {
        return String.format(Locale.ROOT, "%.0fk", perSec / 1e3);
    }

    static String x(double ratio) {
        return String.format(Locale.ROOT, "%.2f×", ratio);
    }

    static String pct(double ratio) {
        return String.format(Locale.ROOT, "%.0f%%", ratio * 100);
    }

    static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.0f µs", nanos / 1e3);
    }

    static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }

    /** A bound as written in a target: no trailing zeros ({@code 1.5}, {@code 2}, {@code 0.35}). */
    static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** The smallest and largest of {@code values} formatted with {@code format}: {@code "a–b"}. */
    static String range(double[] values, java.util.function.DoubleFunction<String> format) {
        double min = Arrays.stream(values).min().orElse(Double.NaN);
        double max = Arrays.stream(values).max().orElse(Double.NaN);
        return format.apply(min) + "–" + format.apply(max);
    }

    /** The ratio of each round, {@code a[r] / b[r]}, as a list: {@code "1.13×, 1.01×"}. */
    static String perRound(double[] a, double[] b) {
        StringBuilder text = new StringBuilder();
        for (int r = 0; r < a.length; r++) {
            text.append(r == 0 ? "" : ", ").append(x(a[r] / b[r]));
        }
        return text.toString();
    }
}

package dev.codexclient.benchmarks;

import dev.codexclient.benchmarks.BenchmarkRunner.Row;
import dev.codexclient.benchmarks.Results.Bound;
import dev.codexclient.benchmarks.SoakLedger.Kill;
import dev.codexclient.benchmarks.SoakLedger.Outcome;
import dev.codexclient.benchmarks.SoakLedger.Sample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The soak's rows, its per-minute table and its plot. "Flat" means the last {@link SoakSettings#window()} minutes'
 * values lie within the spread (lowest to highest) of the first ones'.
 */
final class SoakReport {
    private static final String FIGURE = BenchmarkRunner.SOAK + " Soak";
    /** The minutes compared at each end of a run long enough to judge "flat". */
    private static final int FLAT_WINDOW = 10;

    /**
     * What is left once the pool and the model are closed.
     *
     * @param killedAtEnd     server processes that had not ended within the grace period and were killed
     * @param childrenAlive   descendant processes alive after that
     * @param codexThreadsAlive the client's own threads still alive (the JVM-wide shared pools aside)
     * @param fdsBefore       open file descriptors before the soak
     * @param fdsAfter        open file descriptors after it
     * @param threadsBefore   live threads before the soak
     * @param threadsAfter    live threads after it
     */
    record End(int killedAtEnd, long childrenAlive, long codexThreadsAlive, long fdsBefore, long fdsAfter,
               int threadsBefore, int threadsAfter) {
    }

    private final Results out;
    private final Path results;
    private final SoakSettings settings;

    SoakReport(Results out, Path results, SoakSettings settings) {
        this.out = out;
        this.results = results;
        this.settings = settings;
    }

    void add(SoakLedger ledger, End end) throws IOException {
        long completed = ledger.total(Outcome.COMPLETED);
        long failed = ledger.total(Outcome.FAILED_TYPED);
        long untyped = ledger.total(Outcome.UNTYPED);
        long hung = ledger.total(Outcome.HUNG);
        long duplicates = ledger.totalDuplicates();
        out.put("soak.minutes", settings.minutes());
        out.put("soak.completed", completed);
        out.put("soak.failedTyped", failed);
        out.put("soak.untyped", untyped);
        out.put("soak.hung", hung);
        out.put("soak.duplicates", duplicates);
        String turns = String.format(Locale.ROOT, "%,d completed, %,d failed typed, %d untyped", completed, failed,
                untyped);
        out.add(new Row(FIGURE, settings.minutes() + " min, " + settings.members() + " app-servers, "
                + settings.workers() + " conversations, a SIGKILL every " + settings.killEvery().toSeconds()
                + " s: turns", turns, "—", "—", "0 untyped", out.target("soak.untyped",
                "soak: turns failed untyped", untyped, Bound.AT_MOST, 0, "")));
        out.add(new Row(FIGURE, "turns hung (no end within " + settings.turnTimeout().toMinutes() + " min)",
                Long.toString(hung), "—", "—", "0", out.target("soak.hung", "soak: turns hung", hung, Bound.AT_MOST,
                        0, "")));
        out.add(new Row(FIGURE, "duplicates (a turn started twice, an approval or a tool call asked twice)",
                Long.toString(duplicates), "—", "—", "0", out.target("soak.duplicates", "soak: duplicates",
                        duplicates, Bound.AT_MOST, 0, "")));
        kills(ledger.kills());
        List<Sample> samples = ledger.samples();
        flat("heap after GC", "MB", samples, Sample::heapMb, "soak.heap");
        flat("live threads", "", samples, s -> s.threads(), "soak.threads");
        flat("open file descriptors", "", samples, s -> s.fds(), "soak.fds");
        long leftOver = end.killedAtEnd() + end.childrenAlive() + end.codexThreadsAlive();
        out.put("soak.leftOver", leftOver);
        out.put("soak.fdsOverStart", end.fdsAfter() - end.fdsBefore());
        out.add(new Row(FIGURE, "left after close: server processes killed by the sweep, child processes, "
                + "client threads; fds and threads against the start", String.format(Locale.ROOT,
                "%d, %d, %d; fds %d → %d, threads %d → %d", end.killedAtEnd(), end.childrenAlive(),
                end.codexThreadsAlive(), end.fdsBefore(), end.fdsAfter(), end.threadsBefore(), end.threadsAfter()),
                "—", "—", "nothing left", out.target("soak.leftOver", "soak: processes and threads left",
                        leftOver, Bound.AT_MOST, 0, "")));
        String stamp = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Files.createDirectories(results);
        String svg = SoakPlot.svg(settings, samples, ledger.kills());
        Path plot = results.resolve("soak-" + stamp + ".svg");
        Files.writeString(plot, svg);
        Files.writeString(results.resolve("soak-latest.svg"), svg);
        out.section(table(ledger, plot));
    }

    private void kills(List<Kill> kills) {
        long[] back = kills.stream().filter(k -> k.servingAgainMs() >= 0).mapToLong(Kill::servingAgainMs).sorted()
                .toArray();
        long notBack = kills.size() - back.length;
        String text = back.length == 0 ? kills.size() + " kills"
                : String.format(Locale.ROOT, "%d kills; serving again after median %d ms, max %d ms", kills.size(),
                back[back.length / 2], back[back.length - 1]);
        out.put("soak.kills", kills.size());
        out.put("soak.notServingAgain", notBack);
        out.add(new Row(FIGURE, "SIGKILLs and the time until the member served on a new server", text, "—", "—",
                "every member back", out.target("soak.notServingAgain",
                        "soak: killed members not serving again within 60 s", notBack, Bound.AT_MOST, 0, "")));
    }

    /** A row saying whether {@code what} stayed flat: the last window's values within the first window's spread. */
    private void flat(String what, String unit, List<Sample> samples, ToDoubleFunction<Sample> value, String key) {
        int w = settings.window();
        int last = settings.minutes();
        double[] first = samples.stream().filter(s -> s.minute() >= 1 && s.minute() <= w).mapToDouble(value)
                .toArray();
        double[] end = samples.stream().filter(s -> s.minute() > last - w && s.minute() <= last)
                .mapToDouble(value).toArray();
        if (first.length == 0 || end.length == 0) {
            return;
        }
        double lo = Arrays.stream(first).min().orElseThrow();
        double hi = Arrays.stream(first).max().orElseThrow();
        double endLo = Arrays.stream(end).min().orElseThrow();
        double endHi = Arrays.stream(end).max().orElseThrow();
        double outside = outside(first, end);
        out.put(key + ".firstLow", lo);
        out.put(key + ".firstHigh", hi);
        out.put(key + ".lastLow", endLo);
        out.put(key + ".lastHigh", endHi);
        String text = String.format(Locale.ROOT, "first %d min %s–%s%s, last %d min %s–%s%s", w, fmt(lo), fmt(hi),
                unit.isEmpty() ? "" : " " + unit, w, fmt(endLo), fmt(endHi), unit.isEmpty() ? "" : " " + unit);
        if (settings.minutes() < 2 * FLAT_WINDOW) {
            // Windows of a few minutes say nothing about a leak: shown, not judged.
            out.add(new Row(FIGURE, "client " + what, text, "—", "—", "flat (judged from " + 2 * FLAT_WINDOW
                    + " min)", "info"));
            return;
        }
        out.add(new Row(FIGURE, "client " + what + ", flat", text, "—", "—", "last within first's spread",
                out.target(key + ".outside", "soak: " + what + " outside the first minutes' spread", outside,
                        Bound.AT_MOST, 0, unit)));
    }

    /**
     * {@return how far the values of the last window stray outside the spread (lowest to highest) of the first
     * window's: 0 when every one lies within it}
     */
    static double outside(double[] first, double[] last) {
        double lo = Arrays.stream(first).min().orElseThrow();
        double hi = Arrays.stream(first).max().orElseThrow();
        return Math.max(0, Arrays.stream(last).max().orElseThrow() - hi)
                + Math.max(0, lo - Arrays.stream(last).min().orElseThrow());
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private String table(SoakLedger ledger, Path plot) {
        StringBuilder b = new StringBuilder();
        b.append("### Figure ").append(BenchmarkRunner.SOAK).append(", the soak, minute by minute\n\n")
                .append("Plot of heap, threads and file descriptors: `").append(plot).append("` (and `")
                .append(results.resolve("soak-latest.svg")).append("`).\n\n")
                .append("| min | completed | failed typed | untyped | hung | duplicates | heap after GC (MB) "
                        + "| threads | fds | child processes | kills |\n")
                .append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        List<Sample> samples = ledger.samples();
        for (Sample s : samples) {
            int m = s.minute();
            long kills = ledger.kills().stream().filter(k -> m >= 1 && k.atSeconds() >= (m - 1) * 60.0
                    && k.atSeconds() < m * 60.0).count();
            b.append(String.format(Locale.ROOT, "| %d | %d | %d | %d | %d | %d | %.1f | %d | %d | %d | %d |%n", m,
                    ledger.count(Outcome.COMPLETED, m), ledger.count(Outcome.FAILED_TYPED, m),
                    ledger.count(Outcome.UNTYPED, m), ledger.count(Outcome.HUNG, m), ledger.duplicates(m),
                    s.heapMb(), s.threads(), s.fds(), s.children(), kills));
        }
        if (!ledger.hung().isEmpty()) {
            b.append("\nHung turns: ").append(String.join(", ", ledger.hung())).append('\n');
        }
        if (!ledger.untyped().isEmpty()) {
            b.append("\nUntyped failures: ").append(String.join("; ", ledger.untyped())).append('\n');
        }
        return b.toString();
    }
}

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
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The soak's rows, its per-minute table and its plot, and its verdict: the run fails (see {@link Results#fail}) on a
 * turn that failed untyped, hung or was duplicated, a killed member that did not serve again, anything left after
 * the close, or a resource of the client that grows ({@link SoakGrowth}).
 */
final class SoakReport {
    private static final String FIGURE = BenchmarkRunner.SOAK + " Soak";

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
        check(untyped, "turns failed untyped");
        check(hung, "turns hung");
        check(duplicates, "duplicates");
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
        growth(SoakGrowth.HEAP, samples, Sample::heapMb, "soak.heap");
        growth(SoakGrowth.THREADS, samples, s -> s.threads(), "soak.threads");
        growth(SoakGrowth.FDS, samples, s -> s.fds(), "soak.fds");
        long leftOver = end.killedAtEnd() + end.childrenAlive() + end.codexThreadsAlive();
        check(leftOver, "server processes, child processes or client threads left after the close");
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
        check(notBack, "killed members not serving again within 60 s");
        out.add(new Row(FIGURE, "SIGKILLs and the time until the member served on a new server", text, "—", "—",
                "every member back", out.target("soak.notServingAgain",
                        "soak: killed members not serving again within 60 s", notBack, Bound.AT_MOST, 0, "")));
    }

    /** A check of correctness: any count but 0 fails the run. */
    private void check(long count, String what) {
        if (count != 0) {
            out.fail(count + " " + what);
        }
    }

    /** A row saying whether a resource grows over the second half of the run, which fails the run when it does. */
    private void growth(SoakGrowth.Criterion criterion, List<Sample> samples, ToDoubleFunction<Sample> value,
                        String key) {
        SoakGrowth.Verdict v = SoakGrowth.judge(criterion, samples, value, settings.minutes());
        String status;
        if (!v.judged()) {
            status = "not judged";
        } else {
            out.put(key + ".trendPerHour", v.slopePerHour());
            out.put(key + ".rise", v.rise());
            status = v.grows() ? "MISSED" : "met";
            if (v.grows()) {
                out.fail("growth of the client's " + criterion.what() + ": " + v.text());
            }
        }
        out.add(new Row(FIGURE, "client " + criterion.what() + ", second half", v.text(), "—", "—", v.target(),
                status));
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

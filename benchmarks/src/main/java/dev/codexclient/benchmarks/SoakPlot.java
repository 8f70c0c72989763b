package dev.codexclient.benchmarks;

import dev.codexclient.benchmarks.SoakLedger.Kill;
import dev.codexclient.benchmarks.SoakLedger.Sample;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The soak's plot as an SVG document: the client's heap after GC, its live threads and its open file descriptors,
 * minute by minute, one panel each on a shared time axis, with a dashed line at each SIGKILL, the second half of the
 * run that {@link SoakGrowth} judges shaded and the trend it found drawn over it (red where it says the resource
 * grows).
 */
final class SoakPlot {
    private static final int WIDTH = 900;
    private static final int PANEL = 170;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 60;
    private static final int GAP = 45;

    private SoakPlot() {
    }

    static String svg(SoakSettings settings, List<Sample> samples, List<Kill> kills) {
        int height = TOP + 3 * PANEL + 3 * GAP;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, height, WIDTH,
                height));
        b.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, height));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"15\">Soak: %d min, %d app-servers, "
                + "%d conversations, a SIGKILL every %d s (dashed)%s</text>%n", LEFT, settings.minutes(),
                settings.members(), settings.workers(), settings.killEvery().toSeconds(),
                settings.warmSpare() ? ", warm spare" : ""));
        panel(b, settings, samples, kills, 0, "client heap after GC (MB)", SoakGrowth.HEAP, Sample::heapMb);
        panel(b, settings, samples, kills, 1, "live threads", SoakGrowth.THREADS, s -> s.threads());
        panel(b, settings, samples, kills, 2, "open file descriptors", SoakGrowth.FDS, s -> s.fds());
        b.append("</svg>\n");
        return b.toString();
    }

    private static void panel(StringBuilder b, SoakSettings settings, List<Sample> samples, List<Kill> kills,
                              int index, String title, SoakGrowth.Criterion criterion,
                              ToDoubleFunction<Sample> value) {
        int top = TOP + index * (PANEL + GAP);
        int plotWidth = WIDTH - LEFT - RIGHT;
        double minutes = Math.max(1, settings.minutes());
        double lo = samples.stream().mapToDouble(value).min().orElse(0);
        double hi = samples.stream().mapToDouble(value).max().orElse(1);
        double pad = Math.max((hi - lo) * 0.1, Math.max(1, hi * 0.02));
        double yMin = Math.max(0, lo - pad);
        double yMax = hi + pad;
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n", LEFT,
                top - 8, title));
        // The half the growth criterion judges.
        SoakGrowth.Verdict verdict = SoakGrowth.judge(criterion, samples, value, settings.minutes());
        shade(b, LEFT, top, plotWidth, minutes, verdict.fromMinute(), settings.minutes());
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                + "stroke=\"#888\"/>%n", LEFT, top, plotWidth, PANEL));
        for (Kill k : kills) {
            double x = LEFT + plotWidth * Math.min(1, k.atSeconds() / 60.0 / minutes);
            b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d33\" "
                    + "stroke-dasharray=\"3,3\" stroke-width=\"0.8\"/>%n", x, top, x, top + PANEL));
        }
        StringBuilder points = new StringBuilder();
        for (Sample s : samples) {
            double x = LEFT + plotWidth * (s.minute() / minutes);
            double y = top + PANEL - PANEL * (value.applyAsDouble(s) - yMin) / (yMax - yMin);
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            b.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"#1f5fbf\"/>%n", x,
                    y));
        }
        b.append(String.format(Locale.ROOT, "<polyline points=\"%s\" fill=\"none\" stroke=\"#1f5fbf\" "
                + "stroke-width=\"1.5\"/>%n", points.toString().strip()));
        if (verdict.judged()) {
            double x0 = LEFT + plotWidth * (verdict.fromMinute() / minutes);
            double x1 = LEFT + plotWidth * (verdict.toMinute() / minutes);
            double y0 = top + PANEL - PANEL * (verdict.trendAt(verdict.fromMinute()) - yMin) / (yMax - yMin);
            double y1 = top + PANEL - PANEL * (verdict.trendAt(verdict.toMinute()) - yMin) / (yMax - yMin);
            b.append(String.format(Locale.ROOT, "<path d=\"M %.1f %.1f L %.1f %.1f\" stroke=\"%s\" "
                    + "stroke-width=\"2\" opacity=\"0.7\"><title>%s</title></path>%n", x0, y0, x1, y1,
                    verdict.grows() ? "#d33" : "#2a2", verdict.text()));
        }
        for (double v : new double[] {yMin, (yMin + yMax) / 2, yMax}) {
            double y = top + PANEL - PANEL * (v - yMin) / (yMax - yMin);
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                    LEFT - 6, y + 4, label(v)));
        }
        int step = settings.minutes() <= 10 ? 1 : settings.minutes() <= 30 ? 5 : 10;
        for (int m = 0; m <= settings.minutes(); m += step) {
            double x = LEFT + plotWidth * (m / minutes);
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>%n", x,
                    top + PANEL + 15, m));
        }
        if (index == 2) {
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">minutes</text>%n",
                    LEFT + plotWidth / 2, top + PANEL + 32));
        }
    }

    private static void shade(StringBuilder b, int left, int top, int plotWidth, double minutes, double from,
                              double to) {
        double x0 = left + plotWidth * Math.max(0, from) / minutes;
        double x1 = left + plotWidth * Math.min(minutes, to) / minutes;
        b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                + "fill=\"#eef3fb\"/>%n", x0, top, Math.max(0, x1 - x0), PANEL));
    }

    private static String label(double v) {
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }
}

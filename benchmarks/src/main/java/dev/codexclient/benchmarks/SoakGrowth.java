package dev.codexclient.benchmarks;

import dev.codexclient.benchmarks.SoakLedger.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Whether one of the client's resources grows during the soak, judged as a person reads the plot: the warm-up and the
 * swings of the first minutes do not count, a trend that goes on does. The judged part is the second half of the run
 * (from minute {@code minutes / 2}, and never minute 0, before the load), its trend the median of the slopes between
 * every two of its samples (Theil–Sen: one swing, up or down, moves it little, where a least-squares line follows
 * it). The resource grows when that trend is steeper than its bound per hour <em>and</em> the rise it makes over the
 * judged half is more than the resource's noise: a short run can catch a fast leak, and needs a long one to see a
 * slow one.
 *
 * <p>Why these bounds: a leak of 130 bytes a turn (the soak's own, once: about 8 MB an hour at 850 turns a minute)
 * is eight times the heap's bound; one thread or one descriptor lost per SIGKILL (a kill a minute) is six times
 * theirs. The noise is half again the spread of the hour-long run of 2026-11-27, in which nothing grows (the heap
 * within 0.2 MB, the shared callback pool's swing of three threads, the descriptors between 31 and 36: 0.5 MB, 5
 * and 8): a trend through the four samples of a five-minute run's second half can make a rise of up to about a
 * quarter more than the spread out of noise alone.
 */
final class SoakGrowth {
    /**
     * How one resource is judged.
     *
     * @param what         what the plot's panel shows, e.g. "heap after GC"
     * @param unit         its unit ({@code "MB"}, or empty for a count)
     * @param boundPerHour the steepest trend that is not growth, per hour
     * @param noise        the largest rise over the judged half that is not growth, whatever its trend
     */
    record Criterion(String what, String unit, double boundPerHour, double noise) {
    }

    static final Criterion HEAP = new Criterion("heap after GC", "MB", 1.0, 0.5);
    static final Criterion THREADS = new Criterion("live threads", "", 10, 5);
    static final Criterion FDS = new Criterion("open file descriptors", "", 10, 8);

    /** Fewer samples than this in the judged half say nothing of a trend. */
    static final int MIN_SAMPLES = 3;

    /**
     * The judgement of one resource.
     *
     * @param criterion    how it was judged
     * @param fromMinute   the first minute judged
     * @param toMinute     the last minute judged
     * @param samples      the samples judged
     * @param low          the lowest value judged
     * @param high         the highest value judged
     * @param slopePerHour the trend of the judged half, per hour (NaN when not judged)
     * @param rise         the rise of that trend over the judged half (NaN when not judged)
     * @param intercept    where the trend's line meets minute 0 (the median of each sample's value less the trend
     *                     times its minute; NaN when not judged): the line the plot draws
     */
    record Verdict(Criterion criterion, int fromMinute, int toMinute, int samples, double low, double high,
                   double slopePerHour, double rise, double intercept) {

        /** The trend's line at {@code minute}. */
        double trendAt(double minute) {
            return intercept + slopePerHour / 60 * minute;
        }

        /** Whether there were samples enough to judge a trend. */
        boolean judged() {
            return samples >= MIN_SAMPLES;
        }

        /** Whether the resource grows: judged, steeper than the bound and rising more than the noise. */
        boolean grows() {
            return judged() && slopePerHour > criterion.boundPerHour() && rise > criterion.noise();
        }

        /** What the report says of it. */
        String text() {
            String unit = criterion.unit().isEmpty() ? "" : " " + criterion.unit();
            if (!judged()) {
                return String.format(Locale.ROOT, "%d samples from minute %d: too few to judge", samples, fromMinute);
            }
            return String.format(Locale.ROOT, "minutes %d–%d: %s–%s%s, trend %+.2f%s/h (a rise of %+.2f%s)",
                    fromMinute, toMinute, number(low), number(high), unit, slopePerHour, unit, rise, unit);
        }

        /** The criterion, as the report's target column says it. */
        String target() {
            String unit = criterion.unit().isEmpty() ? "" : " " + criterion.unit();
            return String.format(Locale.ROOT, "trend ≤ %s%s/h or a rise ≤ %s%s", number(criterion.boundPerHour()),
                    unit, number(criterion.noise()), unit);
        }
    }

    private SoakGrowth() {
    }

    /**
     * Judges {@code value} of {@code samples} (one a minute, minute 0 before the load) of a run of {@code minutes}.
     */
    static Verdict judge(Criterion criterion, List<Sample> samples, ToDoubleFunction<Sample> value, int minutes) {
        int from = Math.max(1, minutes / 2);
        List<double[]> points = new ArrayList<>();
        for (Sample s : samples) {
            if (s.minute() >= from && s.minute() <= minutes) {
                points.add(new double[] {s.minute(), value.applyAsDouble(s)});
            }
        }
        double low = points.stream().mapToDouble(p -> p[1]).min().orElse(Double.NaN);
        double high = points.stream().mapToDouble(p -> p[1]).max().orElse(Double.NaN);
        int to = (int) points.stream().mapToDouble(p -> p[0]).max().orElse(from);
        if (points.size() < MIN_SAMPLES) {
            return new Verdict(criterion, from, to, points.size(), low, high, Double.NaN, Double.NaN, Double.NaN);
        }
        double perMinute = theilSen(points);
        double span = to - points.get(0)[0];
        double intercept = median(points.stream().mapToDouble(p -> p[1] - perMinute * p[0]).toArray());
        return new Verdict(criterion, from, to, points.size(), low, high, perMinute * 60, perMinute * span,
                intercept);
    }

    /** The median of the slopes between every two points of distinct x: {x, y} pairs, in order of x. */
    static double theilSen(List<double[]> points) {
        List<Double> slopes = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            for (int j = i + 1; j < points.size(); j++) {
                double dx = points.get(j)[0] - points.get(i)[0];
                if (dx != 0) {
                    slopes.add((points.get(j)[1] - points.get(i)[1]) / dx);
                }
            }
        }
        return slopes.isEmpty() ? 0 : median(slopes.stream().mapToDouble(Double::doubleValue).toArray());
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String number(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }
}

package dev.codexclient.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.benchmarks.SoakLedger.Sample;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntToDoubleFunction;
import org.junit.jupiter.api.Test;

/**
 * The soak's growth criterion on series whose verdict a person reads off the plot: the three runs of 2026-11-27 as
 * BENCHMARKS.md tables them (the hour that is flat, the 30 minutes in which the benchmark's own bookkeeping leaked,
 * the 20 minutes after its fix), and made-up ones: a warm-up, a swing, a step, leaks fast and slow, noise.
 */
class SoakGrowthTest {
    /** The hour-long run: heap, threads and descriptors per minute, minute 0 before the load. */
    private static final String HOUR_HEAP = "4.6 5.4 5.6 5.7 5.8 5.7 5.7 5.8 5.8 5.8 5.8 5.8 5.8 5.9 5.9 5.9 5.9 5.9 5.9"
            + " 5.9 5.9 5.9 5.9 5.9 5.9 5.9 5.9 5.9 5.9 6.0 6.0 6.0 6.0 6.0 5.9 5.8 5.8 5.8 5.8 5.8 5.8 5.8 5.8 5.8 5.8"
            + " 5.9 5.9 5.9 5.8 5.8 5.8 5.9 5.9 5.9 5.9 5.9 5.8 5.9 5.9 5.9 5.9";
    private static final String HOUR_THREADS = "19 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44"
            + " 44 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 47 45 47"
            + " 47 47 44";
    private static final String HOUR_FDS = "34 34 36 36 34 35 36 34 34 36 34 36 34 34 35 34 36 34 34 34 35 34 36 34 34"
            + " 34 34 34 35 34 34 34 34 35 34 34 34 36 34 34 34 36 34 34 34 34 36 34 34 34 34 36 36 34 36 35 31 34 36"
            + " 36 34";
    /** The 30-minute run whose duplicate check kept every answer of the run: about 130 bytes a turn. */
    private static final String LEAK_HEAP = "4.6 5.5 5.9 6.0 6.1 6.3 6.3 6.5 6.7 6.9 7.0 7.2 7.3 7.4 7.5 7.7 7.8 8.0 8.1"
            + " 8.2 8.3 8.4 8.5 8.7 8.8 8.9 9.0 9.1 9.3 9.4 9.5";
    /** The 20-minute run after the fix: warm-up, then 0.1 MB over its last ten minutes. */
    private static final String FIXED_HEAP = "4.6 5.5 5.7 5.7 5.8 5.8 5.8 5.8 5.8 5.9 5.9 5.9 5.9 6.0 5.9 6.0 6.0 6.0"
            + " 6.0 6.0 6.0";
    private static final String FIXED_THREADS = "19 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 47";

    private static List<Sample> heap(String values) {
        double[] v = Arrays.stream(values.split(" ")).mapToDouble(Double::parseDouble).toArray();
        return series(v.length - 1, m -> v[m]);
    }

    /** A series of minutes 0 to {@code minutes}, the value in every panel the same. */
    private static List<Sample> series(int minutes, IntToDoubleFunction value) {
        List<Sample> out = new ArrayList<>();
        for (int m = 0; m <= minutes; m++) {
            double v = value.applyAsDouble(m);
            out.add(new Sample(m, v, (int) Math.round(v), Math.round(v), 3));
        }
        return out;
    }

    private static SoakGrowth.Verdict heapOf(List<Sample> samples) {
        return SoakGrowth.judge(SoakGrowth.HEAP, samples, Sample::heapMb, samples.size() - 1);
    }

    private static SoakGrowth.Verdict threadsOf(List<Sample> samples) {
        return SoakGrowth.judge(SoakGrowth.THREADS, samples, s -> s.threads(), samples.size() - 1);
    }

    private static SoakGrowth.Verdict fdsOf(List<Sample> samples) {
        return SoakGrowth.judge(SoakGrowth.FDS, samples, s -> s.fds(), samples.size() - 1);
    }

    @Test
    void theHourLongRunIsFlatInEveryPanelWhereTheOldCriterionSaidMissedInEach() {
        SoakGrowth.Verdict heap = heapOf(heap(HOUR_HEAP));
        assertThat(heap.fromMinute()).isEqualTo(30);
        assertThat(heap.toMinute()).isEqualTo(60);
        assertThat(heap.samples()).isEqualTo(31);
        assertThat(heap.slopePerHour()).isZero();
        assertThat(heap.grows()).isFalse();
        assertThat(threadsOf(heap(HOUR_THREADS)).grows()).isFalse();
        assertThat(fdsOf(heap(HOUR_FDS)).grows()).isFalse();
    }

    @Test
    void theLeakOf130BytesATurnGrows() {
        SoakGrowth.Verdict heap = heapOf(heap(LEAK_HEAP));
        assertThat(heap.grows()).isTrue();
        assertThat(heap.slopePerHour()).isCloseTo(7.2, org.assertj.core.data.Offset.offset(0.01));
        assertThat(heap.rise()).isCloseTo(1.8, org.assertj.core.data.Offset.offset(0.01));
        assertThat(heap.text()).contains("minutes 15–30").contains("+7.20 MB/h");
    }

    @Test
    void theRunAfterTheFixIsFlatItsWarmUpLeftOut() {
        assertThat(heapOf(heap(FIXED_HEAP)).grows()).isFalse();
        assertThat(threadsOf(heap(FIXED_THREADS)).grows()).isFalse();
    }

    @Test
    void aSwingUpAndDownIsNotGrowthNorIsADrop() {
        // The shared callback pool grows under load and shrinks again.
        assertThat(threadsOf(series(30, m -> m >= 16 && m < 24 ? 47 : 44)).grows()).isFalse();
        assertThat(fdsOf(series(30, m -> 40 - m)).grows()).isFalse();
    }

    @Test
    void aSlowLeakShowsInALongRunAndNotInAShortOne() {
        // 2 MB an hour: twice the bound. In an hour the rise is 1 MB, over the noise; in five minutes 0.08 MB.
        IntToDoubleFunction leak = m -> 6 + 2.0 * m / 60;
        assertThat(heapOf(series(60, leak)).grows()).isTrue();
        assertThat(heapOf(series(5, leak)).grows()).isFalse();
    }

    @Test
    void aFastLeakShowsInAFiveMinuteRun() {
        // Three descriptors lost at each of two kills a minute.
        SoakGrowth.Verdict fds = fdsOf(series(5, m -> 34 + 6 * m));
        assertThat(fds.grows()).isTrue();
        assertThat(fds.fromMinute()).isEqualTo(2);
        assertThat(fds.samples()).isEqualTo(4);
        // A thread per turn, as a leaked reader would be.
        assertThat(threadsOf(series(5, m -> 44 + 800 * m)).grows()).isTrue();
    }

    @Test
    void theNoiseOfAShortRunIsNotGrowth() {
        // The descriptors' whole spread of the hour-long run, low then high: the worst noise can do to four samples.
        double[] fds = {34, 36, 31, 31, 36, 36};
        assertThat(fdsOf(series(5, m -> fds[m])).grows()).isFalse();
        double[] threads = {19, 44, 44, 47, 47, 47};
        assertThat(threadsOf(series(5, m -> threads[m])).grows()).isFalse();
    }

    @Test
    void aStepAtTheEndOfALongRunIsGrowthWhenItIsMoreThanTheNoise() {
        // Flat for 45 minutes, then ten threads more every five minutes: what a person calls a leak.
        assertThat(threadsOf(series(60, m -> m < 45 ? 44 : 44 + 2 * (m - 45))).grows()).isTrue();
        // One step of three threads: not growth (the pool's own swing).
        assertThat(threadsOf(series(60, m -> m < 45 ? 44 : 47)).grows()).isFalse();
    }

    @Test
    void tooFewSamplesAreNotJudged() {
        SoakGrowth.Verdict verdict = heapOf(series(2, m -> 5 + m));
        assertThat(verdict.judged()).isFalse();
        assertThat(verdict.grows()).isFalse();
        assertThat(verdict.text()).contains("too few to judge");
        assertThat(heapOf(series(3, m -> 5 + m)).judged()).isTrue();
    }

    @Test
    void theTrendIsTheMedianOfThePairwiseSlopes() {
        // One outlier moves a least-squares line a lot, and the median of the slopes not at all.
        assertThat(SoakGrowth.theilSen(List.of(new double[] {0, 0}, new double[] {1, 1}, new double[] {2, 2},
                new double[] {3, 3}, new double[] {4, 40}))).isEqualTo(1.0);
        SoakGrowth.Verdict v = heapOf(series(10, m -> 3 + 0.5 * m));
        assertThat(v.trendAt(0)).isEqualTo(3.0);
        assertThat(v.trendAt(10)).isEqualTo(8.0);
    }
}

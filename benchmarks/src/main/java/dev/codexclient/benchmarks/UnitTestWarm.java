package dev.codexclient.benchmarks;

import java.util.Arrays;

/**
 * The warm side of figure 7, run as a JVM of its own: {@link UnitTestCycle} over and over, as a suite of many such
 * tests runs.
 * Each measured cycle is one {@code System.nanoTime()} delta.
 */
final class UnitTestWarm {

    /** The sorted cycle times of one measurement, in nanoseconds. */
    record Result(long[] sortedNanos) {

        long p50() {
            return Isolation.percentile(sortedNanos, 0.5);
        }

        long p99() {
            return Isolation.percentile(sortedNanos, 0.99);
        }

        long max() {
            return sortedNanos[sortedNanos.length - 1];
        }
    }

    private UnitTestWarm() {
    }

    /** Runs {@code warmup} cycles unmeasured, then {@code cycles} measured ones. */
    static Result measure(int warmup, int cycles) {
        for (int i = 0; i < warmup; i++) {
            UnitTestCycle.run();
        }
        long[] nanos = new long[cycles];
        for (int i = 0; i < cycles; i++) {
            long t = System.nanoTime();
            UnitTestCycle.run();
            nanos[i] = System.nanoTime() - t;
        }
        Arrays.sort(nanos);
        return new Result(nanos);
    }

    /** Prints the warm figure: {@code UnitTestWarm [warmup] [cycles]}, for profiling one side alone. */
    public static void main(String[] args) {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        int cycles = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        Result r = measure(warmup, cycles);
        System.out.printf("RESULT p50Nanos=%d p99Nanos=%d maxNanos=%d%n", r.p50(), r.p99(), r.max());
    }
}

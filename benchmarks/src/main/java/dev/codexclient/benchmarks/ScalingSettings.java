package dev.codexclient.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Sizes of figure 8 ({@link ScalingFigure}).
 *
 * @param sizes            the numbers of threads N to measure
 * @param turns            turns per thread in the load, at the least
 * @param minTurns         turns of the whole load, at the least: a thread runs more than {@code turns} when N
 *                         threads of {@code turns} would make fewer (so that a p99 rests on 100 turns or more)
 * @param spawnParallelism how many servers start (or close) at once
 * @param sampleEvery      how often the memory is sampled during the load
 * @param loadTimeout      how long one load may take before the figure fails
 * @param inFullRun        whether a run of every figure includes this one (it needs the real codex and minutes)
 */
record ScalingSettings(List<Integer> sizes, int turns, int minTurns, int spawnParallelism, Duration sampleEvery,
                       Duration loadTimeout, boolean inFullRun) {

    ScalingSettings {
        sizes = List.copyOf(sizes);
        if (sizes.isEmpty() || sizes.stream().anyMatch(n -> n < 1)) {
            throw new IllegalArgumentException("bench.scale lists numbers of threads, each at least 1: " + sizes);
        }
        if (turns < 1 || minTurns < 0 || spawnParallelism < 1) {
            throw new IllegalArgumentException("turns and spawn parallelism must be at least 1");
        }
    }

    /**
     * The figure documented in BENCHMARKS.md: 1, 10, 50 and 100 threads, 5 turns each and at least 100 turns
     * in all (1 thread: 100 turns, 10 threads: 10 each).
     */
    static ScalingSettings full() {
        return new ScalingSettings(List.of(1, 10, 50, 100), 5, 100, 4, Duration.ofMillis(250), Duration.ofMinutes(15),
                false);
    }

    /** Tiny sizes: 1 and 2 threads, 2 turns each. */
    static ScalingSettings smoke() {
        return new ScalingSettings(List.of(1, 2), 2, 0, 2, Duration.ofMillis(100), Duration.ofMinutes(3), false);
    }

    /** The turns each of {@code n} threads runs. */
    int turnsPerThread(int n) {
        return Math.max(turns, (minTurns + n - 1) / n);
    }

    /**
     * These settings with the overrides in the system properties: {@code bench.scale} (numbers of threads,
     * comma-separated), {@code bench.scale.turns}, {@code bench.scale.spawn} (servers started at once),
     * {@code bench.scaling} (true: a run of every figure includes figure 8).
     */
    ScalingSettings withProperties() {
        String list = System.getProperty("bench.scale", "").strip();
        List<Integer> n = sizes;
        if (!list.isEmpty()) {
            List<Integer> parsed = new ArrayList<>();
            for (String part : list.split(",")) {
                if (!part.isBlank()) {
                    try {
                        parsed.add(Integer.parseInt(part.strip()));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("bench.scale lists numbers of threads, not \""
                                + part + "\"");
                    }
                }
            }
            n = parsed;
        }
        return new ScalingSettings(n, Integer.getInteger("bench.scale.turns", turns), minTurns,
                Integer.getInteger("bench.scale.spawn", spawnParallelism), sampleEvery, loadTimeout,
                inFullRun || Boolean.getBoolean("bench.scaling"));
    }
}

package dev.codexclient.benchmarks;

import java.time.Duration;

/**
 * Sizes of the soak ({@link SoakFigure}).
 *
 * @param duration    how long the load runs (default 30 min; an hour for the record)
 * @param killEvery   how often a random member's server is SIGKILLed
 * @param members     app-servers in the pool
 * @param workers     conversations running turns back to back, each on a thread of its own
 * @param turnsPerThread turns of one conversation before its worker starts a new thread
 * @param turnTimeout how long one turn may take before it counts as hung
 * @param warmSpare   whether the pool keeps a warm spare
 * @param seed        the seed of the choice of the member to kill
 */
record SoakSettings(Duration duration, Duration killEvery, int members, int workers, int turnsPerThread,
                    Duration turnTimeout, boolean warmSpare, long seed) {

    SoakSettings {
        if (duration.toMinutes() < 1 || killEvery.isNegative() || killEvery.isZero()) {
            throw new IllegalArgumentException("the soak runs at least a minute, with a positive kill interval");
        }
        if (members < 2 || workers < 1 || turnsPerThread < 1) {
            throw new IllegalArgumentException("the soak needs 2 members or more, and a worker");
        }
    }

    /** The figure documented in BENCHMARKS.md: 30 minutes, a SIGKILL a minute, 3 members, 6 conversations. */
    static SoakSettings full() {
        return new SoakSettings(Duration.ofMinutes(30), Duration.ofMinutes(1), 3, 6, 40, Duration.ofMinutes(2),
                false, 9);
    }

    /** Three minutes: proves the soak works, nothing more. */
    static SoakSettings smoke() {
        return new SoakSettings(Duration.ofMinutes(3), Duration.ofMinutes(1), 3, 4, 40, Duration.ofMinutes(2),
                false, 9);
    }

    /**
     * These settings with the overrides in the system properties: {@code bench.soak.minutes},
     * {@code bench.soak.killEverySeconds}, {@code bench.soak.workers}, {@code bench.soak.spare} (true: a warm spare).
     */
    SoakSettings withProperties() {
        return new SoakSettings(Duration.ofMinutes(Long.getLong("bench.soak.minutes", duration.toMinutes())),
                Duration.ofSeconds(Long.getLong("bench.soak.killEverySeconds", killEvery.toSeconds())), members,
                Integer.getInteger("bench.soak.workers", workers), turnsPerThread, turnTimeout,
                flag("bench.soak.spare", warmSpare), seed);
    }

    /** A boolean property; an empty one (Maven passes every property of the profile) keeps the default. */
    private static boolean flag(String name, boolean otherwise) {
        String value = System.getProperty(name, "").strip();
        return value.isEmpty() ? otherwise : Boolean.parseBoolean(value);
    }

    /** {@return whole minutes of load} */
    int minutes() {
        return (int) duration.toMinutes();
    }
}

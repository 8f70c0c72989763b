package dev.codexclient.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The memory of app-server processes, from Linux's {@code /proc}: RSS and PSS summed over a set of processes.
 *
 * <p>RSS counts every page a process has mapped, shared ones included, so the RSS of N identical servers counts
 * their common pages (the codex binary's text, shared libraries) N times. PSS divides each shared page among the
 * processes that map it, so PSS summed over processes is what they take together. Both come from one read of
 * {@code /proc/<pid>/smaps_rollup}; where that file is missing (kernels before 4.14), RSS comes from
 * {@code /proc/<pid>/status} and PSS is unknown (NaN).
 */
final class ServerMemory {
    private static final double MB = 1024.0 * 1024.0;

    private ServerMemory() {
    }

    /**
     * Memory summed over processes.
     *
     * @param rssBytes resident set size, shared pages counted in every process that maps them
     * @param pssBytes proportional set size, shared pages divided among the processes that map them; negative when
     *                 unknown
     * @param processes how many of the processes were alive and read
     */
    record Sample(long rssBytes, long pssBytes, int processes) {
        static final Sample NONE = new Sample(0, 0, 0);

        double rssMb() {
            return rssBytes / MB;
        }

        double pssMb() {
            return pssBytes < 0 ? Double.NaN : pssBytes / MB;
        }

        /** The smaller of each measure: the floor of two samples, measure by measure. */
        Sample min(Sample other) {
            long pss = pssBytes < 0 || other.pssBytes < 0 ? -1 : Math.min(pssBytes, other.pssBytes);
            return new Sample(Math.min(rssBytes, other.rssBytes), pss, Math.min(processes, other.processes));
        }

        /** The larger of each measure: the peak of two samples, measure by measure. */
        Sample max(Sample other) {
            long pss = pssBytes < 0 || other.pssBytes < 0 ? -1 : Math.max(pssBytes, other.pssBytes);
            return new Sample(Math.max(rssBytes, other.rssBytes), pss, Math.max(processes, other.processes));
        }
    }

    /** The memory of {@code processes} now; a process that ended in the meantime counts nothing. */
    static Sample of(Collection<ProcessHandle> processes) {
        long rss = 0;
        long pss = 0;
        int read = 0;
        for (ProcessHandle p : processes) {
            long[] m = read(p.pid());
            if (m == null) {
                continue;
            }
            rss += m[0];
            pss = pss < 0 || m[1] < 0 ? -1 : pss + m[1];
            read++;
        }
        return new Sample(rss, pss, read);
    }

    /**
     * The floor of {@code count} samples of {@code processes}, {@code interval} apart: the memory of servers at
     * rest, without the helper processes codex runs for a moment after a thread starts (a shell that captures the
     * environment, for one), which a single sample may catch.
     */
    static Sample settled(Supplier<List<ProcessHandle>> processes, int count, Duration interval)
            throws InterruptedException {
        Sample floor = of(processes.get());
        for (int i = 1; i < count; i++) {
            Thread.sleep(interval.toMillis());
            floor = floor.min(of(processes.get()));
        }
        return floor;
    }

    /** RSS and PSS of one process in bytes (PSS -1 when unknown), or null when it is gone or unreadable. */
    private static long[] read(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid));
        try {
            long rss = -1;
            long pss = -1;
            Path rollup = proc.resolve("smaps_rollup");
            if (Files.isReadable(rollup)) {
                for (String line : Files.readAllLines(rollup)) {
                    if (line.startsWith("Rss:")) {
                        rss = kilobytes(line);
                    } else if (line.startsWith("Pss:")) {
                        pss = kilobytes(line);
                    }
                }
            } else {
                for (String line : Files.readAllLines(proc.resolve("status"))) {
                    if (line.startsWith("VmRSS:")) {
                        rss = kilobytes(line);
                    }
                }
            }
            // A zombie or a kernel thread has no mappings: the file is empty.
            return rss < 0 ? null : new long[] {rss, pss};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** {@code "Rss:   123456 kB"} → bytes. */
    private static long kilobytes(String line) {
        String[] f = line.trim().split("\\s+");
        return Long.parseLong(f[1]) * 1024;
    }

    /**
     * Samples the memory of a changing set of processes on its own thread, every {@code interval}, from its start
     * until it is closed, and keeps the peak of each measure. The processes are asked of {@code processes} at every
     * sample (a server's tree grows while it runs a command); each process seen is also given to {@code seen}.
     */
    static final class Peak implements AutoCloseable {
        private final Supplier<List<ProcessHandle>> processes;
        private final Consumer<ProcessHandle> seen;
        private final CountDownLatch stop = new CountDownLatch(1);
        private final Thread thread;
        private volatile Sample peak = Sample.NONE;
        private volatile int samples;

        Peak(Supplier<List<ProcessHandle>> processes, Consumer<ProcessHandle> seen, Duration interval) {
            this.processes = processes;
            this.seen = seen;
            this.thread = new Thread(() -> {
                try {
                    do {
                        sample();
                    } while (!stop.await(interval.toNanos(), TimeUnit.NANOSECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "bench-memory-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        private void sample() {
            List<ProcessHandle> now = processes.get();
            now.forEach(seen);
            Sample s = of(now);
            synchronized (this) {
                peak = peak.max(s);
                samples++;
            }
        }

        /** The peak so far, each measure on its own (RSS and PSS may peak at different samples). */
        Sample peak() {
            return peak;
        }

        int samples() {
            return samples;
        }

        /** Stops sampling after one last sample, so that a load shorter than the interval still has two. */
        @Override
        public void close() throws InterruptedException {
            stop.countDown();
            thread.join();
            sample();
        }
    }
}

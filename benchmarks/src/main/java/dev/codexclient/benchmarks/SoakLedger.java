package dev.codexclient.benchmarks;

import com.sun.management.UnixOperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * What the soak counts, minute by minute: how each turn ended, the duplicates, the client's resources after a GC,
 * and the kills with the time until their member served again. Written from the workers, the killer and the
 * sampler at once.
 */
final class SoakLedger {
    /** How a turn ended. */
    enum Outcome {
        /** {@code turn/completed} with status completed. */
        COMPLETED,
        /** A {@code CodexException}, or a turn that ended failed or interrupted: what a user can catch and handle. */
        FAILED_TYPED,
        /** Any other exception: a bug. */
        UNTYPED,
        /** No end within the turn timeout: a bug. */
        HUNG
    }

    /**
     * The client's resources at the end of one minute, after a GC.
     *
     * @param minute   minutes since the load began (0: before it)
     * @param heapMb   heap used after a full GC
     * @param threads  live JVM threads
     * @param fds      open file descriptors of the JVM
     * @param children live descendant processes (the servers and the commands they run)
     */
    record Sample(int minute, double heapMb, int threads, long fds, long children) {
    }

    /**
     * One SIGKILL.
     *
     * @param atSeconds   when, in seconds since the load began
     * @param member      whose server
     * @param servingAgainMs how long until the member served on a new server, or -1 when it did not within the wait
     */
    record Kill(double atSeconds, String member, long servingAgainMs) {
    }

    private final LongSupplier clock;
    private final long startNanos;
    private final int minutes;
    private final AtomicLongArray[] outcomes = new AtomicLongArray[Outcome.values().length];
    private final AtomicLongArray duplicates;
    private final List<Sample> samples = new ArrayList<>();
    private final List<Kill> kills = new ArrayList<>();
    private final List<String> hung = new ArrayList<>();
    private final List<String> untyped = new ArrayList<>();
    /**
     * The approval items and tool calls answered in each running turn (its thread and turn id): one asked twice is a
     * duplicate. A turn's are dropped when it ends: a set of every answer of the run grew by about 130 bytes a turn,
     * 4 MB in a 30-minute soak, which the heap figure then counted as the client's.
     */
    private final Map<String, Set<String>> answeredByTurn = new ConcurrentHashMap<>();
    /**
     * The turns that ended lately: a request of one of them comes after its end, a duplicate too. Bounded, so that
     * the ledger's own memory stays flat; no server asks about a turn hundreds of turns after its end.
     */
    private final Set<String> recentlyEnded = Collections.newSetFromMap(new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > RECENTLY_ENDED;
        }
    });
    private static final int RECENTLY_ENDED = 256;

    SoakLedger(long startNanos, int minutes) {
        this(System::nanoTime, startNanos, minutes);
    }

    /**
     * @param clock      the time in nanoseconds, as {@link System#nanoTime()} gives it (a test's own clock)
     * @param startNanos when the load began, on that clock
     * @param minutes    the minutes of load
     */
    SoakLedger(LongSupplier clock, long startNanos, int minutes) {
        this.clock = clock;
        this.startNanos = startNanos;
        this.minutes = minutes;
        for (Outcome o : Outcome.values()) {
            outcomes[o.ordinal()] = new AtomicLongArray(minutes + 2);
        }
        this.duplicates = new AtomicLongArray(minutes + 2);
    }

    /** The minute of the load that runs now, from 1; the minutes after the end count in the last one. */
    int minuteNow() {
        long elapsed = clock.getAsLong() - startNanos;
        return (int) Math.min(minutes, Math.max(0, elapsed) / 60_000_000_000L + 1);
    }

    double secondsNow() {
        return (clock.getAsLong() - startNanos) / 1e9;
    }

    void ended(Outcome outcome, String token, Throwable failure) {
        outcomes[outcome.ordinal()].incrementAndGet(minuteNow());
        if (outcome == Outcome.HUNG) {
            synchronized (hung) {
                hung.add(token);
            }
        } else if (outcome == Outcome.UNTYPED) {
            synchronized (untyped) {
                untyped.add(token + ": " + failure);
            }
        }
    }

    /**
     * A server request answered: an approval's item or a tool's call of {@code turn}; the second time, or after the
     * turn ended, it is a duplicate.
     */
    void answered(String turn, String key) {
        boolean ended;
        synchronized (recentlyEnded) {
            ended = recentlyEnded.contains(turn);
        }
        if (ended || !answeredByTurn.computeIfAbsent(turn, t -> ConcurrentHashMap.newKeySet()).add(key)) {
            duplicate();
        }
    }

    /** {@code turn} ended: what was answered in it is let go, and a later request of it is a duplicate. */
    void turnEnded(String turn) {
        synchronized (recentlyEnded) {
            recentlyEnded.add(turn);
        }
        answeredByTurn.remove(turn);
    }

    void duplicate() {
        duplicates.incrementAndGet(minuteNow());
    }

    synchronized void sample(int minute) {
        System.gc();
        System.gc();
        double heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1048576.0;
        long children = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count();
        add(new Sample(minute, heap, ManagementFactory.getThreadMXBean().getThreadCount(), openFds(), children));
    }

    /** Records a sample taken elsewhere (what {@link #sample} measured, or a test's own series). */
    synchronized void add(Sample sample) {
        samples.add(sample);
    }

    synchronized void killed(Kill kill) {
        kills.add(kill);
    }

    /** Open file descriptors of this JVM: the MXBean's count, else the entries of {@code /proc/self/fd}. */
    static long openFds() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof UnixOperatingSystemMXBean unix) {
            return unix.getOpenFileDescriptorCount();
        }
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            return -1;
        }
    }

    long count(Outcome outcome, int minute) {
        return outcomes[outcome.ordinal()].get(minute);
    }

    long total(Outcome outcome) {
        long n = 0;
        for (int m = 0; m <= minutes + 1; m++) {
            n += outcomes[outcome.ordinal()].get(m);
        }
        return n;
    }

    long duplicates(int minute) {
        return duplicates.get(minute);
    }

    long totalDuplicates() {
        long n = 0;
        for (int m = 0; m <= minutes + 1; m++) {
            n += duplicates.get(m);
        }
        return n;
    }

    int minutes() {
        return minutes;
    }

    synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    synchronized List<Kill> kills() {
        return List.copyOf(kills);
    }

    List<String> hung() {
        synchronized (hung) {
            return List.copyOf(hung);
        }
    }

    List<String> untyped() {
        synchronized (untyped) {
            return List.copyOf(untyped);
        }
    }
}

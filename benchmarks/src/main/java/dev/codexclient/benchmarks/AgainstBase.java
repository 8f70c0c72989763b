package dev.codexclient.benchmarks;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Figure 1's decode passes of this checkout next to another commit's, in turns on one thread: each operation times
 * one pass of the base's protocol and core and one of this checkout's (in alternating order), each side loaded apart
 * in the one JVM ({@link SideLoader}, {@link DecodePass}), and adds their times to the iteration's counters
 * ({@link Times}). The two passes of an operation are a millisecond or less apart, so the ratio of the two sides'
 * times over one iteration is paired: whatever else loads the machine in that second loads both. (Two threads timing
 * one side each at the same time were tried first: on two loaded cores the scheduler gave one of them more than the
 * other for seconds at a time.) The report is the median of those ratios over every iteration of every fork, with
 * the quartiles and the range.
 *
 * <pre>
 * benchmarks/against-base.sh [COMMIT]      (builds COMMIT's protocol and core apart, then runs this)
 * </pre>
 *
 * <p>By hand: {@code -Dbench.base=<the base's protocol and core, jars or class directories, separated as on a class
 * path>}, then {@code main} with optional arguments: forks, measurement iterations, and the data sets and paths to
 * run ({@code delta,deltaNewIds,mix} and {@code decoder,client}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class AgainstBase {

    /** {@link DecodePass}'s data sets: figure 1's deltas and mix, and deltas in which no id repeats. */
    @Param({"delta", "deltaNewIds", "mix"})
    public String dataset;

    /** {@code decoder}: the codec alone; {@code client}: the whole client path (decode, lane, listener). */
    @Param({"decoder", "client"})
    public String path;

    private IntSupplier base;
    private IntSupplier current;
    private boolean baseFirst;

    /** The nanoseconds each side's passes took in one iteration, reported by JMH per iteration as they are. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Times {
        public long baseNanos;
        public long currentNanos;

        @Setup(Level.Iteration)
        public void reset() {
            baseNanos = 0;
            currentNanos = 0;
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        String classPath = System.getProperty("bench.base", "");
        if (classPath.isBlank()) {
            throw new IllegalStateException("-Dbench.base= names the base's protocol and core (see against-base.sh)");
        }
        base = load(SideLoader.parse(classPath));
        // -Dbench.current= puts another build on this side: the base against itself is the check of the harness
        String other = System.getProperty("bench.current", "");
        current = load(other.isBlank() ? SideLoader.thisCheckout() : SideLoader.parse(other));
    }

    /**
     * A side's pass, made on a thread of its own that has ended before the first timed pass: the codec keeps the
     * values a stream repeats for its reader thread (the first thread that decodes, the next once it has ended), and
     * the pass decodes while it is made (the data set's check, the client's handshake), where a client decodes all on
     * its reader thread.
     */
    private IntSupplier load(List<Path> sdk) throws Exception {
        Class<?> pass = Class.forName(DecodePass.class.getName(), true, SideLoader.over(sdk));
        if (pass == DecodePass.class) {
            throw new IllegalStateException("the pass was not loaded apart");
        }
        AtomicReference<Object> made = new AtomicReference<>();
        Thread maker = new Thread(() -> {
            try {
                made.set(pass.getConstructor(String.class, String.class).newInstance(dataset, path));
            } catch (ReflectiveOperationException | RuntimeException e) {
                made.set(e);
            }
        }, "against-base-setup");
        maker.start();
        maker.join();
        if (made.get() instanceof Exception e) {
            throw e;
        }
        return (IntSupplier) made.get();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws ReflectiveOperationException {
        for (IntSupplier side : List.of(base, current)) {
            Method close = side.getClass().getMethod("close");
            close.invoke(side);
        }
    }

    /** One pass of each side, the base first in every other operation. */
    @Benchmark
    public int pair(Times times) {
        baseFirst = !baseFirst;
        long start = System.nanoTime();
        int first = (baseFirst ? base : current).getAsInt();
        long middle = System.nanoTime();
        int second = (baseFirst ? current : base).getAsInt();
        long end = System.nanoTime();
        times.baseNanos += baseFirst ? middle - start : end - middle;
        times.currentNanos += baseFirst ? end - middle : middle - start;
        return first + second;
    }

    public static void main(String[] args) throws Exception {
        String classPath = System.getProperty("bench.base", "");
        int forks = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        String[] datasets = args.length > 2 ? args[2].split(",") : new String[] {"delta", "deltaNewIds", "mix"};
        String[] paths = args.length > 3 ? args[3].split(",") : new String[] {"decoder", "client"};
        String loadBefore = loadAverage();
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                .include(AgainstBase.class.getName() + "\\.")
                .param("dataset", datasets)
                .param("path", paths)
                .forks(forks)
                .warmupIterations(5)
                .warmupTime(TimeValue.seconds(2))
                .measurementIterations(iterations)
                .measurementTime(TimeValue.seconds(2))
                .jvmArgsAppend("-Xmx1g", "-Dbench.base=" + classPath,
                        "-Dbench.current=" + System.getProperty("bench.current", ""))
                .build()).run();
        String loadAfter = loadAverage();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%nThis checkout's speed over the base's, paired per iteration (%d forks "
                + "x %d iterations of 2 s; load average before: %s, after: %s)%n", forks, iterations, loadBefore,
                loadAfter));
        out.append("| data set | path | µs a pass, base | µs a pass, this | this / base: median | quartiles | range |\n");
        out.append("|---|---|---|---|---|---|---|\n");
        for (RunResult r : results) {
            BenchmarkParams params = r.getParams();
            List<Double> ratios = new ArrayList<>();
            double baseNanos = 0;
            double currentNanos = 0;
            long passes = 0;
            for (BenchmarkResult fork : r.getBenchmarkResults()) {
                for (IterationResult it : fork.getIterationResults()) {
                    Map<String, Result> times = it.getSecondaryResults();
                    double b = times.get("baseNanos").getScore();
                    double c = times.get("currentNanos").getScore();
                    // the speed of this side over the base's: the base's time over this one's
                    ratios.add(b / c);
                    baseNanos += b;
                    currentNanos += c;
                    passes += it.getMetadata().getMeasuredOps();
                }
            }
            ratios.sort(null);
            out.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %.0f | **%.2f×** | %.2f–%.2f× | %.2f–%.2f× |%n",
                    params.getParam("dataset"), params.getParam("path"), baseNanos / passes / 1e3,
                    currentNanos / passes / 1e3, quantile(ratios, 0.5), quantile(ratios, 0.25),
                    quantile(ratios, 0.75), ratios.get(0), ratios.get(ratios.size() - 1)));
        }
        System.out.print(out);
    }

    private static double quantile(List<Double> sorted, double q) {
        double at = q * (sorted.size() - 1);
        int low = (int) Math.floor(at);
        int high = (int) Math.ceil(at);
        return sorted.get(low) + (sorted.get(high) - sorted.get(low)) * (at - low);
    }

    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (java.io.IOException | RuntimeException e) {
            return "unknown";
        }
    }
}

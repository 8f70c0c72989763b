package dev.codexclient.benchmarks;

import static dev.codexclient.benchmarks.Results.x;

import dev.codexclient.benchmarks.BenchmarkRunner.Row;
import dev.codexclient.benchmarks.ColdStartJvms.Loading;
import dev.codexclient.benchmarks.ColdStartJvms.Sample;
import dev.codexclient.benchmarks.ColdStartJvms.Side;
import dev.codexclient.benchmarks.Results.Bound;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * Figure 4: fresh JVMs from launch to an initialized client, next to a JVM that only starts a reader thread and
 * parses the same {@code initialize} response with Jackson; without class data sharing and with an AppCDS archive of
 * a training run of each side. Both rows give the classes loaded, how many of them are the SDK's
 * ({@code dev.codexclient.*}, the protocol's included, counted from class-load logging) and the time to the first
 * typed delta.
 */
final class ColdStartFigure {
    private static final double TARGET = 1.05;

    private final Results out;
    private final Path work;

    ColdStartFigure(Results out, Path work) {
        this.out = out;
        this.work = work;
    }

    void run(int n) throws Exception {
        BenchmarkRunner.log("4. cold start");
        ColdStartJvms jvms = ColdStartJvms.create(Children.JAVA, work.resolve("cold-start"));
        // Each side gets its own archive from a training run of itself, as an application would build one.
        Optional<Path> sdkArchive = jvms.train(Side.SDK);
        Optional<Path> baselineArchive = jvms.train(Side.BASELINE);
        String noCds = sdkArchive.isPresent() && baselineArchive.isPresent() ? ""
                : "this JVM wrote no CDS archive (see the [bench] lines of the run)";
        List<Sample> sdk = new ArrayList<>();
        List<Sample> baseline = new ArrayList<>();
        List<Sample> sdkCds = new ArrayList<>();
        List<Sample> baselineCds = new ArrayList<>();
        // Interleaved, so that load from other processes on the machine hits every variant alike.
        for (int i = 0; i < n; i++) {
            baseline.add(jvms.sample(Side.BASELINE, Optional.empty()));
            sdk.add(jvms.sample(Side.SDK, Optional.empty()));
            if (noCds.isEmpty()) {
                baselineCds.add(jvms.sample(Side.BASELINE, baselineArchive));
                sdkCds.add(jvms.sample(Side.SDK, sdkArchive));
            }
        }
        // One more run per variant with class-load logging on stdout, where it interleaves with the phase lines:
        // counts the SDK's and the protocol's classes (and with CDS, shows that the archives were used).
        Loading loading = jvms.loading(Side.SDK, Optional.empty());
        int protocolTotal = ColdStartJvms.protocolClassCount();
        out.put("coldStart.protocolClassesTotal", protocolTotal);
        String target = "≤ " + Results.number(TARGET) + "× baseline; not all protocol types";
        row("coldStart", "JVM launch → client initialized (median of " + n + ")", sdk, baseline, loading,
                "JVM + Jackson readTree of the same response", "", protocolTotal, target);
        String cdsMeasurement = "the same with an AppCDS archive of a training run (-XX:SharedArchiveFile)";
        if (noCds.isEmpty()) {
            Loading sdkShared = jvms.loading(Side.SDK, sdkArchive);
            Loading baselineShared = jvms.loading(Side.BASELINE, baselineArchive);
            if (sdkShared.fromArchiveAtInit() == 0 || baselineShared.fromArchiveAtInit() == 0) {
                noCds = "the JVM did not use the archives it wrote (-Xlog:class+path=info on a run tells why)";
            } else {
                out.put("coldStart.cds.archivedClassesAtInit", sdkShared.fromArchiveAtInit());
                out.put("coldStart.cds.baselineArchivedClassesAtInit", baselineShared.fromArchiveAtInit());
                row("coldStart.cds", cdsMeasurement + " (median of " + n + ")", sdkCds, baselineCds, sdkShared,
                        "JVM + Jackson readTree with its own archive", "; " + archived(sdkShared) + "; baseline "
                                + archived(baselineShared), protocolTotal, target);
            }
        }
        if (!noCds.isEmpty()) {
            out.add(new Row("4 Cold start", cdsMeasurement, noCds, "—", "—", target, "not run"));
        }
    }

    private void row(String key, String measurement, List<Sample> sdk, List<Sample> baseline, Loading loading,
                     String baselineText, String archives, int protocolTotal, String target) {
        long wallMs = medianWallMs(sdk);
        long baselineMs = medianWallMs(baseline);
        long uptimeMs = median(sdk, Sample::uptimeMs);
        long deltaMs = median(sdk, Sample::deltaUptimeMs);
        long classes = median(sdk, Sample::classes);
        long deltaClasses = median(sdk, Sample::deltaClasses);
        long baselineClasses = median(baseline, Sample::classes);
        double ratio = (double) wallMs / baselineMs;
        out.put(key + ".wallMs", wallMs);
        out.put(key + ".baselineWallMs", baselineMs);
        out.put(key + ".ratio", ratio);
        out.put(key + ".uptimeMs", uptimeMs);
        out.put(key + ".deltaUptimeMs", deltaMs);
        out.put(key + ".classes", classes);
        out.put(key + ".deltaClasses", deltaClasses);
        out.put(key + ".baselineClasses", baselineClasses);
        out.put(key + ".sdkClassesAtInit", loading.sdkAtInit());
        out.put(key + ".sdkClassesAfterDelta", loading.sdkAfterDelta());
        out.put(key + ".protocolClassesAtInit", loading.protocolAtInit());
        out.put(key + ".protocolClassesAfterDelta", loading.protocolAfterDelta());
        out.put(key + ".slf4jClassesAtInit", loading.slf4jAtInit());
        String status = out.target(key, (key.endsWith("cds") ? "cold start with AppCDS" : "cold start without CDS")
                + ", SDK / JVM + Jackson", ratio, Bound.AT_MOST, TARGET, "×");
        if (loading.protocolAfterDelta() >= protocolTotal && !out.smoke()) {
            status = "MISSED";
        }
        out.add(new Row("4 Cold start", measurement,
                wallMs + " ms (JVM uptime " + uptimeMs + " ms); first typed delta at " + deltaMs + " ms uptime; "
                        + classes + " classes loaded at init (" + loading.sdkAtInit() + " SDK classes, "
                        + loading.protocolAtInit() + " of them protocol; " + loading.slf4jAtInit() + " SLF4J), "
                        + deltaClasses
                        + " after one typed delta (" + loading.sdkAfterDelta() + " SDK, "
                        + loading.protocolAfterDelta() + " protocol, of " + protocolTotal + ")" + archives,
                baselineText + ": " + baselineMs + " ms, " + baselineClasses + " classes",
                x(ratio) + " baseline", target, status));
    }

    private static String archived(Loading l) {
        return l.classesAtInit() + " classes logged at init (" + l.fromArchiveAtInit() + " from the app's archive, "
                + l.fromJdkArchiveAtInit() + " from the JDK's)";
    }

    private static long medianWallMs(List<Sample> samples) {
        return median(samples, Sample::wallNanos) / 1_000_000;
    }

    private static long median(List<Sample> samples, ToLongFunction<Sample> value) {
        long[] v = samples.stream().mapToLong(value).sorted().toArray();
        return v[v.length / 2];
    }
}

package dev.codexclient.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Figure 2's SDK side alone, in a JVM of its own, for a profiler to attach to: the delta stream or the recorded mix,
 * streamed through a {@code CodexClient} from a {@code BenchServer} child a few times, with the raw pipe's drain of
 * the same file after each round for scale. How the profiles in BENCHMARKS.md were taken:
 *
 * <pre>
 * java -agentpath:/path/to/libasyncProfiler.so=start,event=cpu,interval=200us,file=deltas.collapsed \
 *     -cp &lt;the benchmarks' class path&gt; dev.codexclient.benchmarks.StreamProfile delta 1000000 5
 * </pre>
 *
 * <p>Arguments: {@code delta} or {@code mix}, the lines per round, the rounds. Prints one line per round: the SDK's
 * rate, the raw pipe's, and the SDK's share of it.
 */
public final class StreamProfile {
    private StreamProfile() {
    }

    public static void main(String[] args) throws Exception {
        String kind = args.length > 0 ? args[0] : "delta";
        int lines = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Path work = Files.createTempDirectory("codex-stream-profile");
        try {
            Path file = work.resolve(kind + ".jsonl");
            Recording recording = Recording.load();
            if (kind.equals("delta")) {
                Streams.agentMessageDeltas(recording, file, lines);
            } else if (kind.equals("mix")) {
                Streams.recordedMix(recording, file, lines);
            } else {
                throw new IllegalArgumentException("delta or mix, not " + kind);
            }
            for (int r = 0; r < rounds; r++) {
                double sdk = (lines - 1) / (StreamFigure.sdkStream(file, lines, false) / 1e9);
                double raw = (lines - 1) / (StreamFigure.rawPipe(file, lines) / 1e9);
                System.out.printf(Locale.ROOT, "round %d: SDK %.0f lines/s, raw %.0f lines/s, %.0f%% of raw%n", r + 1,
                        sdk, raw, 100 * sdk / raw);
            }
        } finally {
            try (var files = Files.walk(work)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}

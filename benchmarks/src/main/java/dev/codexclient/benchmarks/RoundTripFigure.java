package dev.codexclient.benchmarks;

import static dev.codexclient.benchmarks.Results.micros;
import static dev.codexclient.benchmarks.Results.x;

import dev.codexclient.CodexClient;
import dev.codexclient.benchmarks.BenchmarkRunner.Row;
import dev.codexclient.benchmarks.Results.Bound;
import dev.codexclient.protocol.ClientRequestMethods;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ThreadSetNameParams;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Figure 3: {@code thread/name/set} round trips through the SDK against the bench app-server child, next to the same
 * request bytes written by a plain Java loop to a second child and its reply read back. Both stay open for the whole
 * figure and take turns, round by round (SDK, raw, SDK, raw …): the raw ping-pong alone moves by 2× between runs
 * (an idle virtual CPU wakes slowly), so each round's ratio is against the raw round right after it.
 */
final class RoundTripFigure {
    private static final double TARGET = 1.5;

    private final Results out;

    RoundTripFigure(Results out) {
        this.out = out;
    }

    /**
     * @param perRound measured round trips per side and round
     * @param warmup unmeasured round trips per side before the first round
     */
    void run(int rounds, int perRound, int warmup) throws Exception {
        BenchmarkRunner.log("3. round trip: " + rounds + " interleaved rounds of " + perRound);
        ThreadSetNameParams params = ThreadSetNameParams.builder()
                .threadId("01a200f4-3e2d-7ad3-bee4-1dd83265070f")
                .name("benchmark round trip: a thread name of a realistic length")
                .build();
        String paramsJson = ProtocolJson.mapper().writeValueAsString(params);
        long[][] sdk = new long[rounds][perRound];
        long[][] raw = new long[rounds][perRound];
        Process p = new ProcessBuilder(Children.benchServer()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (CodexClient client = CodexClient.builder().command(Children.benchServer()).build();
             OutputStream rawOut = p.getOutputStream(); InputStream rawIn = p.getInputStream()) {
            RawLoop rawLoop = new RawLoop(rawOut, rawIn, paramsJson);
            for (int i = 0; i < warmup; i++) {
                client.rpc().call(ClientRequestMethods.THREAD_NAME_SET, params).get(10, TimeUnit.SECONDS);
                rawLoop.roundTrip();
            }
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < perRound; i++) {
                    long t = System.nanoTime();
                    client.rpc().call(ClientRequestMethods.THREAD_NAME_SET, params).get(10, TimeUnit.SECONDS);
                    sdk[r][i] = System.nanoTime() - t;
                }
                for (int i = 0; i < perRound; i++) {
                    raw[r][i] = rawLoop.roundTrip();
                }
            }
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        double[] ratios = new double[rounds];
        StringBuilder perRoundText = new StringBuilder();
        for (int r = 0; r < rounds; r++) {
            Arrays.sort(sdk[r]);
            Arrays.sort(raw[r]);
            long s50 = Isolation.percentile(sdk[r], 0.5);
            long r50 = Isolation.percentile(raw[r], 0.5);
            ratios[r] = (double) s50 / r50;
            perRoundText.append(r == 0 ? "" : ", ").append(x(ratios[r])).append(" (")
                    .append(micros(s50)).append(" / ").append(micros(r50)).append(')');
        }
        long[] allSdk = Arrays.stream(sdk).flatMapToLong(Arrays::stream).sorted().toArray();
        long[] allRaw = Arrays.stream(raw).flatMapToLong(Arrays::stream).sorted().toArray();
        long sdk50 = Isolation.percentile(allSdk, 0.5);
        long sdk99 = Isolation.percentile(allSdk, 0.99);
        long raw50 = Isolation.percentile(allRaw, 0.5);
        long raw99 = Isolation.percentile(allRaw, 0.99);
        double ratio = Results.median(ratios);
        out.put("roundTrip.sdk.p50Micros", sdk50 / 1e3);
        out.put("roundTrip.sdk.p99Micros", sdk99 / 1e3);
        out.put("roundTrip.raw.p50Micros", raw50 / 1e3);
        out.put("roundTrip.raw.p99Micros", raw99 / 1e3);
        out.put("roundTrip.p50Ratio.median", ratio);
        out.put("roundTrip.p50Ratio.min", Arrays.stream(ratios).min().orElseThrow());
        out.put("roundTrip.p50Ratio.max", Arrays.stream(ratios).max().orElseThrow());
        String status = out.target("roundTrip.p50", "round trip p50, SDK / raw (median of the rounds)", ratio,
                Bound.AT_MOST, TARGET, "×");
        out.add(new Row("3 Round trip", "thread/name/set → {} against the bench app-server child, " + rounds
                        + " interleaved rounds of " + perRound + " per side",
                "p50 " + micros(sdk50) + ", p99 " + micros(sdk99) + " (all rounds)",
                "raw pipe ping-pong p50 " + micros(raw50) + ", p99 " + micros(raw99),
                "p50 " + x(ratio) + " raw, median of the rounds' ratios (each round SDK p50 / raw p50: "
                        + perRoundText + ")", "p50 ≤ " + Results.number(TARGET) + "×", status));
    }

    /** The raw side: one request line written, one reply line read, on the calling thread. */
    private static final class RawLoop {
        private final OutputStream out;
        private final InputStream in;
        private final String paramsJson;
        private final byte[] buf = new byte[4096];
        private int id;

        RawLoop(OutputStream out, InputStream in, String paramsJson) {
            this.out = out;
            this.in = in;
            this.paramsJson = paramsJson;
        }

        long roundTrip() throws IOException {
            byte[] line = ("{\"id\":" + id++ + ",\"method\":\"thread/name/set\",\"params\":" + paramsJson + "}\n")
                    .getBytes(StandardCharsets.UTF_8);
            long t = System.nanoTime();
            out.write(line);
            out.flush();
            readLine();
            return System.nanoTime() - t;
        }

        private void readLine() throws IOException {
            int n = 0;
            while (true) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("the child ended");
                }
                if (b == '\n') {
                    return;
                }
                if (n < buf.length) {
                    buf[n++] = (byte) b;
                }
            }
        }
    }
}

package dev.codexclient.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.CodexClient;
import dev.codexclient.internal.decode.NotificationDecoder;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Figure 1: the SDK's typed decode of server notifications next to Jackson {@code readTree} of the same bytes.
 *
 * <p>{@code sdkDecoder} is the counterpart of {@code readTree}: the decoder the client runs on its reader thread
 * turns each line into its typed {@link ServerNotification} variant together with the thread and turn it routes
 * by. {@code sdkClient} feeds each line to a real {@link CodexClient} exactly as its transport would
 * ({@code MessageSink#onMessage}), so it measures everything a notification costs in the SDK: that decode, the hand-off
 * to the thread's lane and the call of a listener; the executor runs lanes inline so the whole path happens on the
 * benchmark thread. One benchmark operation is one pass over the data set.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class DecodeBenchmark {

    /** {@code mix}: the recorded real session's notifications; {@code delta}: agent-message deltas only. */
    @Param({"mix", "delta"})
    public String dataset;

    private List<byte[]> messages;
    private ObjectMapper mapper;
    private NotificationDecoder decoder;
    private CannedServer server;
    private CodexClient client;
    private long delivered;
    private Object last;
    private boolean usedSdk;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        messages = dataset(dataset);
        mapper = ProtocolJson.mapper();
        decoder = new NotificationDecoder(mapper);
        for (byte[] m : messages) {
            if (decoder.decodeLine(m) == null && !mapper.readTree(m).path("method").asText().equals("serverRequest/resolved")) {
                throw new IllegalStateException("the decoder declined a notification of the data set: "
                        + new String(m, java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        Recording recording = Recording.load();
        server = new CannedServer(recording, true);
        client = CodexClient.builder()
                .transport(server)
                .callbackExecutor(new DirectExecutor())
                .onNotification(n -> {
                    delivered++;
                    last = n;
                })
                .build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        client.close();
        if (usedSdk && (delivered == 0 || last == null)) {
            throw new IllegalStateException("the client delivered nothing");
        }
        if (last instanceof ServerNotification.Unrecognized) {
            throw new IllegalStateException("the last notification did not decode into its typed variant");
        }
    }

    /** The messages of a data set, as wire bytes. */
    public static List<byte[]> dataset(String name) throws IOException {
        Recording recording = Recording.load();
        if (name.equals("mix")) {
            return recording.notifications();
        }
        Path file = Files.createTempFile("bench-deltas", ".jsonl");
        try {
            Streams.agentMessageDeltas(recording, file, 200);
            List<byte[]> out = new ArrayList<>();
            for (String line : Files.readAllLines(file)) {
                out.add(line.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            return out;
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Benchmark
    public void jacksonReadTree(Blackhole bh) throws IOException {
        for (byte[] m : messages) {
            bh.consume(mapper.readTree(m));
        }
    }

    @Benchmark
    public void sdkDecoder(Blackhole bh) {
        for (byte[] m : messages) {
            bh.consume(decoder.decodeLine(m));
        }
    }

    @Benchmark
    public void sdkClient(Blackhole bh) {
        usedSdk = true;
        for (byte[] m : messages) {
            server.inject(m);
        }
        bh.consume(last);
    }
}

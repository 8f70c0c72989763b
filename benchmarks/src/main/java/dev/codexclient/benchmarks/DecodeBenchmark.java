package dev.codexclient.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.CodexClient;
import dev.codexclient.internal.rpc.Incoming;
import dev.codexclient.internal.rpc.JsonWireCodec;
import dev.codexclient.internal.rpc.ResultTypes;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.transport.MessageBuffer;
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
 * <p>{@code sdkDecoder} is the counterpart of {@code readTree}: the codec the client runs on its reader thread
 * turns each line into its typed {@link ServerNotification} variant together with the thread and turn it routes
 * by, through the one decode path every message takes, over the data set cut into read buffers of whole lines
 * ({@value #READ_BYTES} bytes at most, the stream transports' read size) as a transport hands them over;
 * {@code sdkDecoderPerLine} decodes each line alone (a parser and a deserialization context per line, as before
 * buffers). {@code sdkClient} feeds the same buffers to a real
 * {@link CodexClient} exactly as its transport would ({@code MessageSink#onMessages}), so it measures everything a
 * notification costs in the SDK: that decode, the hand-off to the thread's lane and the call of a listener; the
 * executor runs lanes inline so the whole path happens on the benchmark thread. One benchmark operation is one pass
 * over the data set.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class DecodeBenchmark {

    /**
     * {@code mix}: the notifications of the real session recorded over every scenario ({@link RecordSession});
     * {@code mix110}: those of the earlier three-turn recording, kept for comparison; {@code delta}: agent-message
     * deltas only.
     */
    @Param({"mix", "mix110", "delta"})
    public String dataset;

    /** The stream transports' read buffer size: the most one read hands over. */
    static final int READ_BYTES = 64 * 1024;

    private List<byte[]> messages;
    private List<MessageBuffer> buffers;
    private ObjectMapper mapper;
    private JsonWireCodec codec;
    private CannedServer server;
    private CodexClient client;
    private long delivered;
    private Object last;
    private boolean usedSdk;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        messages = dataset(dataset);
        buffers = buffers(messages);
        mapper = ProtocolJson.mapper();
        codec = new JsonWireCodec(mapper);
        for (byte[] m : messages) {
            if (!(codec.decode(m, ResultTypes.NONE) instanceof Incoming.Notification n)
                    || n.notification().notification() instanceof ServerNotification.Unrecognized) {
                throw new IllegalStateException("a notification of the data set did not decode into its variant: "
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
            return Recording.load(Recording.SCENARIOS).notifications();
        }
        if (name.equals("mix110")) {
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

    /** The messages cut into read buffers: as many whole lines as fit in {@link #READ_BYTES}, in order. */
    static List<MessageBuffer> buffers(List<byte[]> messages) {
        List<MessageBuffer> out = new ArrayList<>();
        MessageBuffer current = new MessageBuffer();
        int used = 0;
        for (byte[] m : messages) {
            if (used > 0 && used + m.length + 1 > READ_BYTES) {
                out.add(current);
                current = new MessageBuffer();
                used = 0;
            }
            current.add(m, 0, m.length);
            used += m.length + 1;
        }
        if (!current.isEmpty()) {
            out.add(current);
        }
        return out;
    }

    @Benchmark
    public void jacksonReadTree(Blackhole bh) throws IOException {
        for (byte[] m : messages) {
            bh.consume(mapper.readTree(m));
        }
    }

    /**
     * Jackson's parser over the same bytes, every token read and nothing built; string values are skipped, not
     * decoded. What a parser per line costs by itself.
     */
    @Benchmark
    public void jacksonTokensOnly(Blackhole bh) throws IOException {
        for (byte[] m : messages) {
            try (com.fasterxml.jackson.core.JsonParser p = mapper.getFactory().createParser(m)) {
                int tokens = 0;
                while (p.nextToken() != null) {
                    tokens++;
                }
                bh.consume(tokens);
            }
        }
    }

    /**
     * The floor: every token read, and every member name, string and number turned into its Java value, as any
     * decode must; nothing else built. Both the typed decode and {@code readTree} pay this, so it bounds the ratio
     * between them.
     */
    @Benchmark
    public void jacksonTokensAndValues(Blackhole bh) throws IOException {
        for (byte[] m : messages) {
            try (com.fasterxml.jackson.core.JsonParser p = mapper.getFactory().createParser(m)) {
                consumeTokensAndValues(p, bh);
            }
        }
    }

    /** Reads every token, and turns every member name, string and number into its Java value: the floor's work. */
    private static void consumeTokensAndValues(com.fasterxml.jackson.core.JsonParser p, Blackhole bh)
            throws IOException {
        com.fasterxml.jackson.core.JsonToken t;
        while ((t = p.nextToken()) != null) {
            switch (t) {
                case FIELD_NAME -> bh.consume(p.currentName());
                case VALUE_STRING -> bh.consume(p.getText());
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> bh.consume(p.getNumberValue());
                default -> bh.consume(t);
            }
        }
    }

    /**
     * The floor on one parser per read buffer: {@link #jacksonTokensAndValues} over the buffers the typed decode
     * reads, every line a root value of one parser.
     */
    @Benchmark
    public void jacksonTokensAndValuesPerBuffer(Blackhole bh) throws IOException {
        for (MessageBuffer b : buffers) {
            int from = b.start(0);
            try (com.fasterxml.jackson.core.JsonParser p = mapper.getFactory().createParser(b.array(), from,
                    b.end(b.count() - 1) - from)) {
                consumeTokensAndValues(p, bh);
            }
        }
    }

    @Benchmark
    public void sdkDecoder(Blackhole bh) {
        for (MessageBuffer b : buffers) {
            codec.decode(b, ResultTypes.NONE, (in, buffer, index) -> bh.consume(in));
        }
    }

    @Benchmark
    public void sdkDecoderPerLine(Blackhole bh) {
        for (byte[] m : messages) {
            bh.consume(codec.decode(m, ResultTypes.NONE));
        }
    }

    @Benchmark
    public void sdkClient(Blackhole bh) {
        usedSdk = true;
        for (MessageBuffer b : buffers) {
            server.injectAll(b);
        }
        bh.consume(last);
    }
}

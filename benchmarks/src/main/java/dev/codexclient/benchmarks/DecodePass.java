package dev.codexclient.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.CodexClient;
import dev.codexclient.internal.rpc.Incoming;
import dev.codexclient.internal.rpc.JsonWireCodec;
import dev.codexclient.internal.rpc.ResultTypes;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.transport.MessageBuffer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.function.IntSupplier;

/**
 * One pass of figure 1's decode over a data set, written against the SDK's API so that {@link AgainstBase} can load
 * it twice in one JVM, once linked to this checkout's protocol and core and once to another commit's
 * ({@link SideLoader}). {@code decoder} is figure 1's {@code sdkDecoder} (the codec over read buffers), {@code client}
 * its {@code sdkClient} (a {@link CodexClient} fed the same buffers as its transport would, lanes run inline).
 * A pass returns the number of messages it delivered.
 */
public final class DecodePass implements IntSupplier {
    private final List<MessageBuffer> buffers;
    private final JsonWireCodec codec;
    private final CannedServer server;
    private final CodexClient client;
    private int delivered;
    private Object last;

    /**
     * @param dataset {@code delta}, {@code mix}, {@code mix110} (as figure 1) or {@code deltaNewIds}: the deltas
     *                with a new thread, turn and item id and timestamp in every message, where nothing repeats
     * @param path    {@code decoder} or {@code client}
     */
    public DecodePass(String dataset, String path) throws IOException {
        List<byte[]> messages = dataset.equals("deltaNewIds") ? deltasWithNewIds(200) : DecodeBenchmark.dataset(dataset);
        buffers = DecodeBenchmark.buffers(messages);
        if (path.equals("decoder")) {
            codec = new JsonWireCodec(ProtocolJson.mapper());
            for (byte[] m : messages) {
                if (!(codec.decode(m, ResultTypes.NONE) instanceof Incoming.Notification n)
                        || n.notification().notification() instanceof ServerNotification.Unrecognized) {
                    throw new IllegalStateException("not decoded into its variant: " + new String(m,
                            java.nio.charset.StandardCharsets.UTF_8));
                }
            }
            server = null;
            client = null;
        } else if (path.equals("client")) {
            codec = null;
            server = new CannedServer(Recording.load(), true);
            client = CodexClient.builder()
                    .transport(server)
                    .callbackExecutor(new DirectExecutor())
                    .onNotification(n -> {
                        delivered++;
                        last = n;
                    })
                    .build();
        } else {
            throw new IllegalArgumentException("decoder or client, not " + path);
        }
    }

    @Override
    public int getAsInt() {
        delivered = 0;
        if (codec != null) {
            for (MessageBuffer b : buffers) {
                codec.decode(b, ResultTypes.NONE, (in, buffer, index) -> {
                    delivered++;
                    last = in;
                });
            }
        } else {
            for (MessageBuffer b : buffers) {
                server.injectAll(b);
            }
        }
        if (delivered == 0 || last == null) {
            throw new IllegalStateException("nothing delivered");
        }
        return delivered;
    }

    /** Closes the client of the {@code client} path. */
    public void close() {
        if (client != null) {
            client.close();
        }
    }

    /** Figure 1's deltas, each with a thread, turn and item id and a timestamp of its own. */
    static List<byte[]> deltasWithNewIds(int count) {
        Recording recording = Recording.load();
        ObjectNode template = ((ObjectNode) recording.first("item/agentMessage/delta")).deepCopy();
        ObjectNode params = (ObjectNode) template.get("params");
        long emitted = template.path("emittedAtMs").asLong();
        Random random = new Random(43);
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            params.put("threadId", new UUID(random.nextLong(), random.nextLong()).toString());
            params.put("turnId", new UUID(random.nextLong(), random.nextLong()).toString());
            params.put("itemId", "msg_" + i);
            params.put("delta", Streams.TOKENS[i % Streams.TOKENS.length]);
            template.put("emittedAtMs", emitted + i);
            out.add(Recording.bytes(template));
        }
        return out;
    }
}

package dev.codexclient.it.transport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import dev.codexclient.transport.UnixSocketTransport;
import dev.codexclient.transport.WebSocketTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that reads slowly must not lose its connection. codex 0.169.0 has a per-connection outbound queue of 128
 * messages ({@code CHANNEL_CAPACITY}) and source that drops a WebSocket or Unix-socket connection whose queue is full
 * ("disconnecting slow connection after outbound queue filled"); what it does with the events of a turn is to wait:
 * while the client does not read, the turn stalls, and it resumes when the client reads again.
 *
 * <p>Shown here against the real binary with a turn that streams 20 000 deltas (about 5 MB): a client whose listener
 * is deliberately slow keeps reading (its reader thread hands events to the lanes, where they wait for the
 * listener), so its transport reads the whole turn meanwhile; a transport whose reader thread is stuck (what a
 * client must never do) is not dropped and loses nothing once it reads again. Over the Unix socket (about 200 KB of
 * socket buffer) that means codex stalled the turn while nobody read; over loopback TCP the kernel's autotuned
 * buffers can hold the whole 5 MB, so there the stuck reader only shows that nothing is dropped or lost.
 */
@Tag("real-codex")
@Timeout(180)
class RealCodexSlowConsumerTest {

    private static final String SLOW_CONNECTION = "disconnecting slow connection after outbound queue filled";
    private static final int CHUNK = 20;
    private static final int CHUNKS = 20_000;
    private static final Duration WAIT = Duration.ofSeconds(90);
    /** How long the stuck reader stays stuck: a negative wait, for a drop that must not come. */
    private static final Duration STUCK = Duration.ofSeconds(5);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aSlowListenerDoesNotGetTheUnixSocketDropped() throws Exception {
        try (ListeningCodex codex = ListeningCodex.unixSocket()) {
            slowListenerKeepsTheConnection(codex, UnixSocketTransport.builder().path(codex.socket()).build());
        }
    }

    @Test
    void aSlowListenerDoesNotGetTheWebSocketDropped() throws Exception {
        try (ListeningCodex codex = ListeningCodex.webSocket()) {
            slowListenerKeepsTheConnection(codex, WebSocketTransport.builder(codex.uri()).build());
        }
    }

    @Test
    void aStuckReaderStallsCodexOverTheUnixSocketAndLosesNothing() throws Exception {
        try (ListeningCodex codex = ListeningCodex.unixSocket()) {
            stuckReaderStallsTheTurn(codex, UnixSocketTransport.builder().path(codex.socket()).build());
        }
    }

    @Test
    void aStuckReaderStallsCodexOverTheWebSocketAndLosesNothing() throws Exception {
        try (ListeningCodex codex = ListeningCodex.webSocket()) {
            stuckReaderStallsTheTurn(codex, WebSocketTransport.builder(codex.uri()).build());
        }
    }

    /**
     * A listener that blocks on the first delta until the transport's reader has read the whole turn: the connection
     * survives, every delta then arrives in order, and calls made meanwhile are answered.
     */
    private static void slowListenerKeepsTheConnection(ListeningCodex codex, Transport transport) throws Exception {
        int chunks = CHUNKS;
        String text = text(chunks);
        codex.model.enqueue(ModelStep.reply(text).withChunkSize(CHUNK));
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong deltas = new AtomicLong();
        StringBuilder streamed = new StringBuilder();
        TappedTransport tap = new TappedTransport(transport);
        try (CodexClient client = codex.clientBuilder(tap).build()) {
            CodexThread thread = client.startThread(codex.threadParams().approvalPolicy(AskForApproval.Simple.NEVER)
                    .sandbox(SandboxMode.READ_ONLY).build());
            CodexTurn turn = thread.startTurn("stream a lot");
            turn.onAgentMessageDelta(d -> {
                if (deltas.getAndIncrement() == 0) {
                    await(release);
                }
                streamed.append(d.delta());
            });
            long started = System.nanoTime();
            tap.turnCompleted.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            long read = System.nanoTime();

            // The reader has read the whole turn while the listener still blocks: the connection is alive.
            assertThat(deltas).as("the listener is still in its first call").hasValue(1);
            assertThat(client.isClosed()).isFalse();
            assertThat(client.rpc().threadList(ThreadListParams.builder().build()).get(30, TimeUnit.SECONDS))
                    .isNotNull();
            release.countDown();

            TurnResult result = turn.await(WAIT);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(deltas).hasValue(chunks);
            assertThat(streamed.toString()).isEqualTo(text);
            assertThat(codex.output()).doesNotContain(SLOW_CONNECTION);
            System.out.printf("%s: %d messages (%d bytes) read in %d ms while the listener was blocked%n",
                    tap.describe(), tap.messages.get(), tap.bytes.get(),
                    TimeUnit.NANOSECONDS.toMillis(read - started));
        } finally {
            release.countDown();
        }
    }

    /**
     * The same turn read by a transport whose reader thread is stuck in its sink (what a client must never do): codex
     * waits instead of dropping the connection, and once the reader reads again every delta arrives.
     */
    private static void stuckReaderStallsTheTurn(ListeningCodex codex, Transport transport) throws Exception {
        codex.model.enqueue(ModelStep.reply(text(CHUNKS)).withChunkSize(CHUNK));
        BlockingSink sink = new BlockingSink();
        try {
            transport.start(sink);
            send(transport, "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"raw\","
                    + "\"title\":\"raw\",\"version\":\"0\"},\"capabilities\":null}}");
            sink.response(1).get(30, TimeUnit.SECONDS);
            send(transport, "{\"method\":\"initialized\"}");
            send(transport, "{\"id\":2,\"method\":\"thread/start\",\"params\":{\"cwd\":"
                    + JSON.writeValueAsString(codex.workspace.toString())
                    + ",\"approvalPolicy\":\"never\",\"sandbox\":\"read-only\"}}");
            String threadId = sink.response(2).get(30, TimeUnit.SECONDS).path("result").path("thread").path("id")
                    .asText();
            send(transport, "{\"id\":3,\"method\":\"turn/start\",\"params\":{\"threadId\":\"" + threadId
                    + "\",\"input\":[{\"type\":\"text\",\"text\":\"stream a lot\"}]}}");
            assertThat(sink.blocked.await(30, TimeUnit.SECONDS)).as("the reader thread got stuck").isTrue();

            assertThat(codex.awaitOutput(SLOW_CONNECTION, STUCK)).as("codex dropped the connection").isFalse();
            long released = System.nanoTime();
            sink.release.countDown();

            sink.turnCompleted.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(sink.closed).isNotDone();
            assertThat(sink.deltas).hasValue(CHUNKS);
            assertThat(codex.output()).doesNotContain(SLOW_CONNECTION);
            System.out.printf("%s: reader stuck for %s, then all %d deltas (%d bytes) within %d ms%n",
                    transport.describe(), STUCK, sink.deltas.get(), sink.bytes.get(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released));
        } finally {
            sink.release.countDown();
            transport.close();
        }
    }

    private static String text(int chunks) {
        StringBuilder sb = new StringBuilder(chunks * CHUNK);
        for (int i = 0; i < chunks; i++) {
            String head = String.format("%05d", i % 100_000);
            sb.append(head).append("x".repeat(CHUNK - head.length()));
        }
        return sb.toString();
    }

    private static void send(Transport transport, String json) {
        transport.send(json.getBytes(StandardCharsets.UTF_8));
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(2, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A sink that, against the transport contract, blocks on the first agent message delta. */
    private static final class BlockingSink implements MessageSink {
        final CountDownLatch blocked = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicLong deltas = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final CompletableFuture<TransportTermination> closed = new CompletableFuture<>();
        final CompletableFuture<Void> turnCompleted = new CompletableFuture<>();
        private final java.util.Map<Integer, CompletableFuture<JsonNode>> responses =
                new java.util.concurrent.ConcurrentHashMap<>();

        CompletableFuture<JsonNode> response(int id) {
            return responses.computeIfAbsent(id, k -> new CompletableFuture<>());
        }

        @Override
        public void onMessages(MessageBuffer messages) {
            for (int i = 0; i < messages.count(); i++) {
                onMessage(messages.copy(i));
            }
        }

        void onMessage(byte[] message) {
            bytes.addAndGet(message.length);
            String text = new String(message, 0, Math.min(message.length, 200), StandardCharsets.UTF_8);
            if (text.startsWith("{\"id\":")) {
                try {
                    JsonNode node = JSON.readTree(message);
                    response(node.path("id").asInt()).complete(node);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            } else if (text.contains("\"method\":\"item/agentMessage/delta\"")) {
                if (deltas.getAndIncrement() == 0) {
                    blocked.countDown();
                    await(release);
                }
            } else if (text.startsWith("{\"method\":\"turn/completed\"")) {
                turnCompleted.complete(null);
            }
        }

        @Override
        public void onClosed(TransportTermination termination) {
            closed.complete(termination);
        }
    }
}

package dev.codexclient.it.transport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.RestartPolicy;
import dev.codexclient.TurnResult;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ConnectionReplaced;
import dev.codexclient.telemetry.Disconnected;
import dev.codexclient.telemetry.ThreadResumed;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.UnixSocketTransport;
import dev.codexclient.transport.WebSocketTransport;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A WebSocket or Unix-socket connection to a real {@code codex app-server --listen} dropped in the middle of an
 * approval: the client reconnects under its restart policy and resumes the thread; codex sends the pending
 * approval again with its original id; the user's handler has seen it once, and its decision is sent once, on
 * the new connection; the turn, which codex kept running, completes.
 */
@Tag("real-codex")
@Timeout(120)
class RealCodexSocketDropTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String APPROVAL = "item/commandExecution/requestApproval";

    @ParameterizedTest
    @ValueSource(strings = {"websocket", "unix"})
    void aDroppedConnectionIsReopenedAndThePendingApprovalIsHandledOnceAndAnsweredOnce(String kind)
            throws Exception {
        try (ListeningCodex codex = kind.equals("unix") ? ListeningCodex.unixSocket() : ListeningCodex.webSocket()) {
            codex.model.when(r -> r.lastUserText().equals("write a file"),
                    ModelStep.exec("printf x | tee x.txt"), ModelStep.reply("wrote it"));
            List<Wire> wires = new CopyOnWriteArrayList<>();
            Supplier<Transport> factory = () -> {
                Wire w = new Wire(kind.equals("unix") ? UnixSocketTransport.builder().path(codex.socket()).build()
                        : WebSocketTransport.builder(codex.uri()).build());
                wires.add(w);
                return w;
            };
            AtomicInteger handled = new AtomicInteger();
            CountDownLatch asked = new CountDownLatch(1);
            CompletableFuture<ApprovalDecision> decision = new CompletableFuture<>();
            Events events = new Events();
            try (CodexClient client = CodexClient.builder().transportFactory(factory)
                    .restartPolicy(RestartPolicy.builder().backoff(Duration.ofMillis(50), Duration.ofSeconds(1))
                            .build())
                    .telemetryListener(events)
                    .clientInfo("codex-client-it", "codex-client integration tests", "0")
                    .requestTimeout(WAIT)
                    .commandApprovals(request -> {
                        handled.incrementAndGet();
                        asked.countDown();
                        return decision;
                    })
                    .build()) {
                CodexThread thread = client.startThread(codex.threadParams().build());
                CodexTurn turn = thread.startTurn("write a file");
                assertThat(asked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
                JsonNode approval = wires.get(0).received(APPROVAL).get(0);

                // Drop the connection under the client, as a network failure would.
                wires.get(0).dropConnection();
                // A socket closed under the client is a lost connection, not the client's own close.
                assertThat(events.next()).isInstanceOfSatisfying(Disconnected.class, d -> assertThat(d.cause())
                        .hasMessageContaining("was lost").hasMessageNotContaining("the client was closed"));
                assertThat(events.next()).isInstanceOf(ConnectionReplaced.class);
                assertThat(events.next()).isInstanceOfSatisfying(ThreadResumed.class,
                        r -> assertThat(r.threadId()).isEqualTo(thread.id()));

                // codex sends the pending approval again, with its original id, to the connection that resumed.
                Wire second = wires.get(1);
                assertThat(second.awaitReceived(APPROVAL, WAIT)).isTrue();
                assertThat(second.received(APPROVAL)).singleElement().satisfies(replayed -> {
                    assertThat(replayed.get("id")).isEqualTo(approval.get("id"));
                    assertThat(replayed.get("params")).isEqualTo(approval.get("params"));
                });
                assertThat(handled).hasValue(1);
                assertThat(turn.isDone()).isFalse();

                decision.complete(ApprovalDecision.ACCEPT);
                TurnResult result = turn.await(WAIT);
                assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
                assertThat(result.finalText()).isEqualTo("wrote it");
                assertThat(Files.readString(codex.workspace.resolve("x.txt"))).isEqualTo("x");
                assertThat(handled).hasValue(1);
                assertThat(wires.get(0).sentResponsesTo(approval.get("id"))).isZero();
                assertThat(second.sentResponsesTo(approval.get("id"))).isEqualTo(1);
            }
        }
    }

    /** A transport whose traffic the test reads, and whose connection it can drop. */
    private static final class Wire extends ForwardingTransport {
        private final List<JsonNode> received = new CopyOnWriteArrayList<>();
        private final List<JsonNode> sent = new CopyOnWriteArrayList<>();

        Wire(Transport delegate) {
            super(delegate);
        }

        @Override
        void received(byte[] message) {
            try {
                received.add(JSON.readTree(message));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            synchronized (this) {
                notifyAll();
            }
        }

        List<JsonNode> received(String method) {
            return received.stream().filter(m -> method.equals(m.path("method").asText())).toList();
        }

        synchronized boolean awaitReceived(String method, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (received(method).isEmpty()) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return false;
                }
                wait(left);
            }
            return true;
        }

        long sentResponsesTo(JsonNode id) {
            return sent.stream().filter(m -> id.equals(m.get("id")) && !m.has("method")).count();
        }

        @Override
        void sent(byte[] message) {
            try {
                sent.add(JSON.readTree(message));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }

        /** Closes the socket from the client's side without the client knowing. */
        void dropConnection() {
            delegate.close(Duration.ZERO);
        }
    }

    /** The recovery events, in order. */
    private static final class Events implements CodexTelemetryListener {
        private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();

        @Override
        public void disconnected(Disconnected event) {
            queue.add(event);
        }

        @Override
        public void connectionReplaced(ConnectionReplaced event) {
            queue.add(event);
        }

        @Override
        public void threadResumed(ThreadResumed event) {
            queue.add(event);
        }

        Object next() throws InterruptedException {
            return queue.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }
}

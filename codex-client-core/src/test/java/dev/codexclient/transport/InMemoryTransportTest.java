package dev.codexclient.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.errors.CodexTransportException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class InMemoryTransportTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void deliversBothWaysInOrderOnOneThreadPerEnd() throws Exception {
        InMemoryTransport.Pair pair = InMemoryTransport.pair();
        RecordingSink client = new RecordingSink();
        RecordingSink server = new RecordingSink();
        pair.client().start(client);
        pair.server().start(server);
        for (int i = 0; i < 1000; i++) {
            pair.client().send(utf8("{\"c\":" + i + "}"));
            pair.server().send(utf8("{\"s\":" + i + "}"));
        }
        client.awaitCount(1000, WAIT);
        server.awaitCount(1000, WAIT);
        for (int i = 0; i < 1000; i++) {
            assertThat(server.texts().get(i)).isEqualTo("{\"c\":" + i + "}");
            assertThat(client.texts().get(i)).isEqualTo("{\"s\":" + i + "}");
        }
        assertThat(Set.copyOf(client.threads)).hasSize(1);
        assertThat(Set.copyOf(server.threads)).hasSize(1).doesNotContainAnyElementsOf(client.threads);
        pair.client().close();
    }

    @Test
    void messagesSentBeforeStartAreDeliveredOnStart() throws Exception {
        InMemoryTransport.Pair pair = InMemoryTransport.pair();
        pair.client().send(utf8("{\"early\":1}"));
        pair.client().send(utf8("{\"early\":2}"));
        RecordingSink server = new RecordingSink();
        pair.server().start(server);
        server.awaitCount(2, WAIT);
        assertThat(server.texts()).containsExactly("{\"early\":1}", "{\"early\":2}");
        pair.server().close();
    }

    @Test
    void sentArraysAreCopied() throws Exception {
        InMemoryTransport.Pair pair = InMemoryTransport.pair();
        RecordingSink server = new RecordingSink();
        pair.server().start(server);
        byte[] buffer = utf8("{\"v\":1}");
        pair.client().send(buffer);
        buffer[5] = '9';
        server.awaitCount(1, WAIT);
        assertThat(server.texts()).containsExactly("{\"v\":1}");
        pair.client().close();
    }

    @Test
    void closingOneEndTerminatesBothAfterPendingMessages() throws Exception {
        InMemoryTransport.Pair pair = InMemoryTransport.pair();
        RecordingSink client = new RecordingSink();
        RecordingSink server = new RecordingSink();
        pair.client().start(client);
        pair.client().send(utf8("{\"last\":1}"));
        pair.client().close();

        TransportTermination mine = client.awaitClosed(WAIT);
        assertThat(mine.requested()).isTrue();

        pair.server().start(server);
        TransportTermination theirs = server.awaitClosed(WAIT);
        assertThat(server.texts()).containsExactly("{\"last\":1}");
        assertThat(theirs.requested()).isFalse();
        assertThat(theirs.reason()).contains("peer closed");

        assertThatThrownBy(() -> pair.client().send(utf8("{}"))).isInstanceOf(CodexTransportException.class);
        assertThatThrownBy(() -> pair.server().send(utf8("{}"))).isInstanceOf(CodexTransportException.class)
                .hasMessageContaining("peer closed");
        pair.client().close();
        pair.server().close();
        assertThat(client.closedCount).hasValue(1);
        assertThat(server.closedCount).hasValue(1);
    }

    @Test
    void serverCanPlayAChildExit() throws Exception {
        InMemoryTransport.Pair pair = InMemoryTransport.pair();
        RecordingSink client = new RecordingSink();
        RecordingSink server = new RecordingSink();
        pair.client().start(client);
        pair.server().start(server);
        pair.server().send(utf8("{\"bye\":1}"));
        pair.server().closeWith(TransportTermination.exited(101, "thread 'main' panicked"));

        TransportTermination seen = client.awaitClosed(WAIT);
        assertThat(client.texts()).containsExactly("{\"bye\":1}");
        assertThat(seen.exitCode()).hasValue(101);
        assertThat(seen.stderrTail()).isEqualTo("thread 'main' panicked");
        assertThatThrownBy(() -> pair.client().send(utf8("{}")))
                .isInstanceOfSatisfying(CodexTransportException.class, e -> {
                    assertThat(e.exitCode()).hasValue(101);
                    assertThat(e.stderrTail()).contains("panicked");
                });
        assertThat(server.awaitClosed(WAIT).requested()).isTrue();
    }

    @Test
    void closeFromInsideTheSinkAndConcurrentSendsDoNotDeadlock() throws Exception {
        InMemoryTransport.Pair pair = InMemoryTransport.pair();
        RecordingSink client = new RecordingSink();
        CountDownLatch serverGotOne = new CountDownLatch(1);
        pair.client().start(client);
        pair.server().start(new MessageSink() {
            @Override
            public void onMessages(MessageBuffer messages) {
                for (int i = 0; i < messages.count(); i++) {
                    onMessage(messages.copy(i));
                }
            }

            void onMessage(byte[] message) {
                serverGotOne.countDown();
                pair.server().close();
            }

            @Override
            public void onClosed(TransportTermination termination) {
            }
        });
        List<Thread> senders = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread s = new Thread(() -> {
                for (int i = 0; i < 200; i++) {
                    try {
                        pair.client().send(utf8("{}"));
                        pair.server().send(utf8("{}"));
                    } catch (CodexTransportException e) {
                        return;
                    }
                }
            });
            s.start();
            senders.add(s);
        }
        assertThat(serverGotOne.await(5, TimeUnit.SECONDS)).isTrue();
        for (Thread s : senders) {
            s.join(5000);
            assertThat(s.isAlive()).isFalse();
        }
        assertThat(client.awaitClosed(WAIT).requested()).isFalse();
    }

    @Test
    void startTwiceIsRejected() {
        InMemoryTransport.Pair pair = InMemoryTransport.pair();
        pair.client().start(new RecordingSink());
        assertThatThrownBy(() -> pair.client().start(new RecordingSink())).isInstanceOf(IllegalStateException.class);
        pair.client().close();
    }

    @Test
    void leavesNoReaderThreadsBehind() throws Exception {
        Set<String> before = StdioTransportTest.codexThreads();
        for (int i = 0; i < 20; i++) {
            InMemoryTransport.Pair pair = InMemoryTransport.pair();
            RecordingSink client = new RecordingSink();
            RecordingSink server = new RecordingSink();
            pair.client().start(client);
            pair.server().start(server);
            pair.client().send(utf8("{}"));
            server.awaitCount(1, WAIT);
            if (i % 2 == 0) {
                pair.client().close();
            } else {
                pair.server().close();
            }
            client.awaitClosed(WAIT);
            server.awaitClosed(WAIT);
        }
        // Bounded by WAIT as every wait here: a shorter bound on threads ending is a race with a loaded machine.
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!before.containsAll(StdioTransportTest.codexThreads()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(StdioTransportTest.codexThreads()).isSubsetOf(before);
        assertThat(InMemoryTransport.pair().client().describe()).contains("client");
    }

    @Test
    void messagesQueuedTogetherArriveInOneBufferInOrder() throws Exception {
        InMemoryTransport.Pair pair = InMemoryTransport.pair();
        pair.server().start(new RecordingSink());
        for (int n = 0; n < 3; n++) {
            pair.server().send(("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8));
        }
        List<List<String>> buffers = new java.util.concurrent.CopyOnWriteArrayList<>();
        CountDownLatch closed = new CountDownLatch(1);
        pair.client().start(new MessageSink() {
            @Override
            public void onMessages(MessageBuffer messages) {
                List<String> texts = new ArrayList<>();
                for (int i = 0; i < messages.count(); i++) {
                    texts.add(messages.text(i));
                }
                buffers.add(texts);
            }

            @Override
            public void onClosed(TransportTermination termination) {
                closed.countDown();
            }
        });
        pair.server().close();
        assertThat(closed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(buffers).containsExactly(List.of("{\"n\":0}", "{\"n\":1}", "{\"n\":2}"));
    }
}

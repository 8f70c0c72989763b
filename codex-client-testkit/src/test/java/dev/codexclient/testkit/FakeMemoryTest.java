package dev.codexclient.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexClient;
import dev.codexclient.testkit.internal.fake.Json;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a fake keeps in memory: its recording, as the {@link Recording} says, and nothing of a closed client. */
class FakeMemoryTest {
    private static final int THREADS = 10_000;

    @Test
    void aClosedClientAndItsTransportAreNotKeptReachableByTheFake() {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(turn -> turn.agentMessage("x").neverComplete());
            List<WeakReference<?>> refs = useAndClose(fake);
            awaitCollected(refs.get(0), "the closed client");
            awaitCollected(refs.get(1), "the closed client's in-memory transport");
            // the fake goes on serving new clients
            try (CodexClient next = CodexClient.builder().transport(fake.connectInMemory()).build()) {
                assertThat(next.startThread().id()).isNotEmpty();
            }
        }
    }

    /** A client that started a turn the fake never completes, closed while the turn plays. */
    private static List<WeakReference<?>> useAndClose(FakeCodexAppServer fake) {
        Transport transport = fake.connectInMemory();
        CodexClient client = CodexClient.builder().transport(transport).build();
        client.startThread().startTurn("hi");
        fake.takeRequest("turn/start", Duration.ofSeconds(10));
        client.close();
        return List.of(new WeakReference<>(client), new WeakReference<>(transport));
    }

    private static void awaitCollected(WeakReference<?> ref, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (ref.get() != null && System.nanoTime() < deadline) {
            System.gc();
        }
        assertThat(ref.get()).as(what + " is still reachable while the fake is open").isNull();
    }

    @Test
    @Timeout(60)
    void withRecordingOffTheVerificationMethodsFailAtOnceInsteadOfWaiting() {
        try (FakeCodexAppServer fake = FakeCodexAppServer.builder().recording(Recording.off()).build();
             CodexClient client = CodexClient.builder().transport(fake.connectInMemory()).build()) {
            client.startThread();
            Duration forever = Duration.ofDays(1);
            assertThatThrownBy(() -> fake.takeRequest(forever)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Recording.off()");
            assertThatThrownBy(() -> fake.takeRequest("thread/start", forever))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("Recording.off()");
            assertThatThrownBy(() -> fake.pollRequest(forever)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> fake.takeNotification(forever)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(fake::requests).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(fake::receivedMessages).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(fake::sentMessages).isInstanceOf(IllegalStateException.class);
            // what stays available whatever the recording
            assertThat(fake.requestCount()).isEqualTo(2);
            assertThat(fake.clientInfo()).isPresent();
            assertThat(fake.threadIds()).hasSize(1);
            assertThat(fake.recording()).isEqualTo(Recording.off());
        }
    }

    @Test
    void recordingLastKeepsTheNewestOfEachKindAndTheCursorsSkipWhatWasDropped() throws Exception {
        try (FakeCodexAppServer fake = FakeCodexAppServer.builder().recording(Recording.last(3)).build();
             RawClient c = RawClient.inMemory(fake)) {
            c.result("initialize", java.util.Map.of("clientInfo", java.util.Map.of("name", "raw", "version", "1")));
            c.notifyServer("initialized");
            for (int i = 0; i < 5; i++) {
                c.result("thread/start", java.util.Map.of());
            }
            c.result("thread/list", java.util.Map.of());
            assertThat(fake.requestCount()).isEqualTo(7);
            assertThat(fake.requests()).extracting(RecordedRequest::method)
                    .containsExactly("thread/start", "thread/start", "thread/list");
            assertThat(fake.receivedMessages()).hasSize(3);
            assertThat(fake.sentMessages()).hasSize(3);
            // the oldest kept thread/start comes first; the dropped ones are gone
            RecordedRequest first = fake.takeRequest("thread/start", Duration.ofSeconds(5));
            assertThat(first.sequence()).isEqualTo(fake.requests().get(0).sequence());
            assertThat(fake.takeRequest("thread/start", Duration.ofSeconds(5)).sequence())
                    .isGreaterThan(first.sequence());
            assertThatThrownBy(() -> fake.takeRequest("thread/start", Duration.ofMillis(50)))
                    .isInstanceOf(AssertionError.class).hasMessageContaining("the newest 3 of 7");
            assertThat(fake.takeRequest(Duration.ofSeconds(5)).method()).isEqualTo("thread/start");
            assertThat(fake.takeNotification(Duration.ofSeconds(5)).method()).isEqualTo("initialized");
        }
        assertThatThrownBy(() -> Recording.last(0)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * 10,000 threads with a turn each: recording everything kept about 210 MB (21 KB a thread); with recording off
     * what stays is the fake's thread store, about 35 MB. The bound leaves room for the collector's slack and lies
     * far below what recording kept.
     */
    @Test
    void tenThousandThreadsWithRecordingOffRetainOnlyTheThreadStore() throws Exception {
        long before = usedAfterGc();
        try (FakeCodexAppServer fake = FakeCodexAppServer.builder().recording(Recording.off()).build()) {
            drive(fake, THREADS);
            long retained = usedAfterGc() - before;
            assertThat(fake.threadIds()).hasSize(THREADS);
            assertThat(fake.requestCount()).isEqualTo(2 * THREADS + 1);
            assertThat(retained).as("heap retained for %d threads with recording off", THREADS)
                    .isLessThan(100L * 1024 * 1024);
        }
    }

    private static long usedAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /** Starts {@code threads} threads with one turn each over a lean client, 32 at a time, and disconnects. */
    private static void drive(FakeCodexAppServer fake, int threads) throws InterruptedException {
        Transport t = fake.connectInMemory();
        Semaphore window = new Semaphore(32);
        CountDownLatch done = new CountDownLatch(threads);
        CountDownLatch init = new CountDownLatch(1);
        t.start(new MessageSink() {
            @Override
            public void onMessages(MessageBuffer messages) {
                for (int i = 0; i < messages.count(); i++) {
                    onMessage(messages.text(i));
                }
            }

            private void onMessage(String message) {
                JsonNode m = Json.parseUnchecked(message);
                String id = m.path("id").asText("");
                if (id.equals("init")) {
                    init.countDown();
                } else if (id.startsWith("t") && m.has("result")) {
                    String threadId = m.path("result").path("thread").path("id").asText();
                    send(t, "{\"id\":\"u" + id + "\",\"method\":\"turn/start\",\"params\":{\"threadId\":\""
                            + threadId + "\",\"input\":[{\"type\":\"text\",\"text\":\"question\"}]}}");
                } else if ("turn/completed".equals(m.path("method").asText())) {
                    window.release();
                    done.countDown();
                }
            }

            @Override
            public void onClosed(TransportTermination termination) {
            }
        });
        send(t, "{\"id\":\"init\",\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"m\","
                + "\"version\":\"1\"}}}");
        assertThat(init.await(30, TimeUnit.SECONDS)).isTrue();
        send(t, "{\"method\":\"initialized\"}");
        for (int i = 0; i < threads; i++) {
            window.acquire();
            send(t, "{\"id\":\"t" + i + "\",\"method\":\"thread/start\",\"params\":{}}");
        }
        assertThat(done.await(300, TimeUnit.SECONDS)).as("every turn completed").isTrue();
        t.close();
    }

    private static void send(Transport t, String line) {
        t.send(line.getBytes(StandardCharsets.UTF_8));
    }
}

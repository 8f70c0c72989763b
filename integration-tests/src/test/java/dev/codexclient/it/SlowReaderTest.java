package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.PublisherOverflow;
import dev.codexclient.errors.CodexBackpressureException;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A turn of 20,000 small deltas to a reader of 1 KB/s (a Server-Sent Events client on a slow link), in virtual time:
 * a virtual second is the time the server takes to send {@value #SERVER_DELTAS_PER_SECOND} deltas, as the client's
 * own listener counts them, and in each the reader takes at most 1 KB, one requested event at a time. With
 * {@link PublisherOverflow#COALESCE_DELTAS} the text arrives whole in fewer events; with the default
 * {@link PublisherOverflow#FAIL} the same reader is cut off.
 */
@Timeout(120)
class SlowReaderTest {
    private static final int DELTAS = 20_000;
    private static final int SERVER_DELTAS_PER_SECOND = 1_000;
    private static final int READER_BYTES_PER_SECOND = 1_024;

    /** The reader's side: what it got, and an end marker. */
    private static final class Reader implements Flow.Subscriber<ServerNotification> {
        static final Object COMPLETE = new Object();
        final BlockingQueue<Object> arrived = new LinkedBlockingQueue<>();
        volatile Flow.Subscription subscription;

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
        }

        @Override
        public void onNext(ServerNotification item) {
            arrived.add(item);
        }

        @Override
        public void onError(Throwable t) {
            arrived.add(t);
        }

        @Override
        public void onComplete() {
            arrived.add(COMPLETE);
        }
    }

    /** What one run gave the reader. */
    private record Outcome(String text, int events, int deltaEvents, Throwable error, long virtualSeconds) {
    }

    private static String[] deltas() {
        String[] d = new String[DELTAS];
        for (int i = 0; i < DELTAS; i++) {
            // Non-ASCII too: the byte count is the wire's, and merging must keep every character.
            d[i] = (i % 7 == 0 ? "é" : "w") + i + " ";
        }
        return d;
    }

    private static Outcome run(PublisherOverflow overflow, String[] deltas) throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas(deltas).completed());
            try (CodexClient client = inMemory(fake).publisherOverflow(overflow).build()) {
                Semaphore sent = new Semaphore(0);
                CodexTurn turn = client.startThread().startTurn("go");
                turn.onEvent(e -> {
                    if (e instanceof ServerNotification.ItemAgentMessageDelta) {
                        sent.release();
                    }
                });
                Reader reader = new Reader();
                turn.publisher().subscribe(reader);
                StringBuilder text = new StringBuilder();
                int events = 0;
                int deltaEvents = 0;
                int serverSent = 0;
                long credit = 0;
                long second = 0;
                while (true) {
                    // One virtual second: the server sends its share, the reader may take 1 KB.
                    second++;
                    int share = Math.min(SERVER_DELTAS_PER_SECOND, DELTAS - serverSent);
                    if (share > 0) {
                        assertThat(sent.tryAcquire(share, 30, TimeUnit.SECONDS)).as("the server's deltas").isTrue();
                        serverSent += share;
                    }
                    credit = Math.min(credit + READER_BYTES_PER_SECOND, READER_BYTES_PER_SECOND);
                    while (credit > 0) {
                        awaitSubscription(reader);
                        reader.subscription.request(1);
                        Object next = reader.arrived.poll(30, TimeUnit.SECONDS);
                        assertThat(next).as("an event or the end within its demand").isNotNull();
                        if (next == Reader.COMPLETE) {
                            return new Outcome(text.toString(), events, deltaEvents, null, second);
                        }
                        if (next instanceof Throwable error) {
                            return new Outcome(text.toString(), events, deltaEvents, error, second);
                        }
                        events++;
                        if (next instanceof ServerNotification.ItemAgentMessageDelta d) {
                            deltaEvents++;
                            text.append(d.params().delta());
                            credit -= d.params().delta().getBytes(StandardCharsets.UTF_8).length;
                        } else {
                            credit -= 200;
                        }
                    }
                }
            }
        }
    }

    private static void awaitSubscription(Reader reader) {
        ClientTestSupport.awaitCondition("onSubscribe", () -> reader.subscription != null);
    }

    @Test
    void coalescingDeliversTheWholeTextToASlowReader() throws Exception {
        String[] deltas = deltas();
        Outcome outcome = run(PublisherOverflow.COALESCE_DELTAS, deltas);

        assertThat(outcome.error()).isNull();
        assertThat(outcome.text()).isEqualTo(String.join("", deltas));
        assertThat(outcome.deltaEvents()).isGreaterThan(0).isLessThan(DELTAS);
        System.out.printf("20,000 deltas (%d bytes) to a 1 KB/s reader: %d delta events, %d events in all, "
                        + "%d virtual seconds%n", String.join("", deltas).getBytes(StandardCharsets.UTF_8).length,
                outcome.deltaEvents(), outcome.events(), outcome.virtualSeconds());
    }

    @Test
    void failingCutsTheSameReaderOffWithTheTypedOverflow() throws Exception {
        Outcome outcome = run(PublisherOverflow.FAIL, deltas());

        assertThat(outcome.error()).isInstanceOf(CodexBackpressureException.class);
        assertThat(outcome.deltaEvents()).isLessThan(DELTAS);
    }
}

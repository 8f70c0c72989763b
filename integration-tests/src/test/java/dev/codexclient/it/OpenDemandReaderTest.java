package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ClientProbe;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.PublisherOverflow;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A turn of 20,000 one-character deltas to a subscriber whose demand never runs out, as a streaming HTTP response's
 * does while its network buffers take what it writes: coalescing beyond the demand never starts there, so each delta
 * becomes an event of its own, and on the wire some twenty bytes of framing for one character. With
 * {@code publisherDeltaInterval} the same subscriber gets at most one delta event per interval, the text whole. In
 * virtual time: the server sends a delta per millisecond of the client's manual clock.
 */
@Timeout(120)
class OpenDemandReaderTest {
    private static final int DELTAS = 20_000;
    private static final Duration INTERVAL = Duration.ofMillis(50);

    /** What the subscriber got. */
    private record Outcome(String text, int deltaEvents) {
    }

    private static Outcome run(Duration interval) throws Exception {
        String[] deltas = new String[DELTAS];
        for (int i = 0; i < DELTAS; i++) {
            deltas[i] = i % 7 == 0 ? "é" : "w";
        }
        ManualScheduler clock = new ManualScheduler();
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas(deltas).completed());
            try (CodexClient client = ClientProbe.useScheduler(inMemory(fake), clock)
                    .publisherOverflow(PublisherOverflow.COALESCE_DELTAS).publisherDeltaInterval(interval).build()) {
                Semaphore sent = new Semaphore(0);
                CodexThread thread = client.startThread();
                thread.onEvent(e -> {
                    if (e instanceof ServerNotification.ItemAgentMessageDelta) {
                        sent.release();
                    }
                });
                StringBuilder text = new StringBuilder();
                int[] deltaEvents = new int[1];
                CompletableFuture<Void> subscribed = new CompletableFuture<>();
                CompletableFuture<Void> done = new CompletableFuture<>();
                // The thread's publisher, subscribed and with its demand open before the turn starts: every delta is
                // live, none waits for a first request.
                thread.publisher().subscribe(new Flow.Subscriber<>() {
                    @Override
                    public void onSubscribe(Flow.Subscription s) {
                        s.request(Long.MAX_VALUE);
                        subscribed.complete(null);
                    }

                    @Override
                    public void onNext(ServerNotification item) {
                        if (item instanceof ServerNotification.ItemAgentMessageDelta d) {
                            deltaEvents[0]++;
                            text.append(d.params().delta());
                        } else if (item instanceof ServerNotification.TurnCompleted) {
                            done.complete(null);
                        }
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.completeExceptionally(t);
                    }

                    @Override
                    public void onComplete() {
                        done.completeExceptionally(new AssertionError("completed before the turn did"));
                    }
                });
                subscribed.get(30, TimeUnit.SECONDS);
                thread.startTurn("go");
                // A delta per virtual millisecond.
                for (int i = 0; i < DELTAS; i++) {
                    assertThat(sent.tryAcquire(30, TimeUnit.SECONDS)).as("the server's delta").isTrue();
                    clock.advance(Duration.ofMillis(1));
                }
                // turn/completed comes after every delta, on the subscription's lane: what it wrote is seen here.
                done.get(30, TimeUnit.SECONDS);
                return new Outcome(text.toString(), deltaEvents[0]);
            }
        }
    }

    @Test
    void withAnIntervalTheSubscriberGetsAtMostOneDeltaEventPerIntervalAndTheWholeText() throws Exception {
        Outcome paced = run(INTERVAL);
        assertThat(paced.text()).hasSize(DELTAS).startsWith("éwwwwwwé");
        // 20 virtual seconds of deltas: one event at once and one per 50 ms, and one more that the end let go.
        assertThat(paced.deltaEvents()).isLessThanOrEqualTo(2 + DELTAS / (int) INTERVAL.toMillis());
        System.out.printf("20,000 deltas in 20 virtual seconds to an open demand: %d delta events with a %d ms "
                + "interval%n", paced.deltaEvents(), INTERVAL.toMillis());
    }

    @Test
    void withoutAnIntervalEveryDeltaIsAnEventOfItsOwn() throws Exception {
        // The case: coalescing alone never starts while the demand stays open.
        Outcome unpaced = run(Duration.ZERO);
        assertThat(unpaced.text()).hasSize(DELTAS);
        assertThat(unpaced.deltaEvents()).isEqualTo(DELTAS);
    }
}

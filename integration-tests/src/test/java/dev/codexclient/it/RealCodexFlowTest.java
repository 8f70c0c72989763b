package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.PublisherOverflow;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexBackpressureException;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;

/** A real codex turn consumed through Reactor, with backpressure, driven offline by a scripted model. */
@Tag("real-codex")
@Timeout(120)
class RealCodexFlowTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();

    @Test
    void aRealTurnStreamsThroughAFluxWithLimitRate() throws Exception {
        String answer = "The quick brown fox jumps over the lazy dog, twice over.";
        codex.model.enqueue(ModelStep.reply(answer));
        try (CodexClient client = codex.client(b -> { })) {
            CodexThread thread = client.startThread(codex.threadParams().build());
            CodexTurn turn = thread.startTurn("Say the sentence.");
            List<Long> requests = new CopyOnWriteArrayList<>();

            List<ServerNotification> events = JdkFlowAdapter.flowPublisherToFlux(turn.publisher())
                    .doOnRequest(requests::add)
                    .limitRate(2)
                    .collectList()
                    .block(WAIT);

            assertThat(events).isNotEmpty();
            assertThat(events.get(0)).isInstanceOf(ServerNotification.TurnStarted.class);
            assertThat(events.get(events.size() - 1)).isInstanceOf(ServerNotification.TurnCompleted.class);
            String streamed = events.stream()
                    .filter(ServerNotification.ItemAgentMessageDelta.class::isInstance)
                    .map(e -> ((ServerNotification.ItemAgentMessageDelta) e).params().delta())
                    .reduce("", String::concat);
            assertThat(streamed).isEqualTo(answer);
            assertThat(requests).allMatch(n -> n <= 2);
            TurnResult result = turn.await(WAIT);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(result.finalText()).isEqualTo(answer);
        }
    }

    @Test
    void aStalledSubscriberOverflowsWhileTheRealTurnCompletes() throws Exception {
        codex.model.enqueue(ModelStep.reply("one two three four five six seven eight"));
        try (CodexClient client = codex.client(b -> b.publisherBufferSize(2))) {
            RecordingSubscriber<ServerNotification> stalled = new RecordingSubscriber<>(0);
            client.publisher().subscribe(stalled);
            CodexThread thread = client.startThread(codex.threadParams().build());

            TurnResult result = thread.startTurn("Count.").await(WAIT);

            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(stalled.error()).isInstanceOf(CodexBackpressureException.class);
            assertThat(stalled.items).isEmpty();
            assertThat(stalled.violations).isEmpty();
        }
    }

    @Test
    void aReaderThatStartsAfterTheWholeRealTurnGetsItsTextWholeWithCoalescing() throws Exception {
        // About 2,500 model deltas of 8 characters: more than the buffer of 1,024 the reader is given.
        StringBuilder text = new StringBuilder();
        for (int i = 0; text.length() < 20_000; i++) {
            text.append(i % 5 == 0 ? "é" : "w").append(i).append(' ');
        }
        String answer = text.toString();
        codex.model.enqueue(ModelStep.reply(answer));
        try (CodexClient client = codex.client(b -> b.publisherBufferSize(1_024)
                .publisherOverflow(PublisherOverflow.COALESCE_DELTAS))) {
            CodexTurn turn = client.startThread(codex.threadParams().build()).startTurn("Say it all.");
            List<ServerNotification> sent = new CopyOnWriteArrayList<>();
            turn.onEvent(e -> {
                if (e instanceof ServerNotification.ItemAgentMessageDelta) {
                    sent.add(e);
                }
            });
            RecordingSubscriber<ServerNotification> reader = new RecordingSubscriber<>(0);
            turn.publisher().subscribe(reader);
            assertThat(turn.await(WAIT).finalText()).isEqualTo(answer);

            // The slowest reader: nothing read until the server sent everything, then one event at a time.
            StringBuilder read = new StringBuilder();
            int deltaEvents = 0;
            ServerNotification next = null;
            while (!(next instanceof ServerNotification.TurnCompleted)) {
                reader.request(1);
                next = reader.next();
                if (next instanceof ServerNotification.ItemAgentMessageDelta d) {
                    deltaEvents++;
                    read.append(d.params().delta());
                }
            }
            reader.awaitCompletion();
            assertThat(read).hasToString(answer);
            assertThat(sent.size()).as("the deltas codex sent").isGreaterThan(1_024);
            assertThat(deltaEvents).as("the reader's delta events").isLessThan(sent.size());
            System.out.printf("real codex: %d deltas sent, %d delta events to the late reader%n", sent.size(),
                    deltaEvents);
        }
    }
}

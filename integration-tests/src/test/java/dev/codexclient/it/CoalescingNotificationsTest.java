package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.PublisherOverflow;
import dev.codexclient.errors.CodexBackpressureException;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client-wide publisher, {@link CodexClient#publisher()}, with {@link PublisherOverflow#COALESCE_DELTAS}: the
 * fake sends a run of deltas of every kind of text delta the protocol has (an agent message, a plan, reasoning text
 * and summary, a command's and a file change's output), many times the buffer. A subscriber that lags gets each run as
 * one event of its kind with the whole text, a delta from a newer server as it came; one that keeps up gets every
 * delta as sent. With the default {@link PublisherOverflow#FAIL} the same laggard overflows.
 */
@Timeout(60)
class CoalescingNotificationsTest {
    private static final int PER_KIND = 40;
    private static final int BUFFER = 8;

    /** One kind of text delta: its method, the params beyond the common ones, its type and how to read its text. */
    private record Kind(String method, Map<String, Object> extra, Class<? extends ServerNotification> type,
                        Function<ServerNotification, String> text) {
    }

    private static final List<Kind> KINDS = List.of(
            new Kind("item/agentMessage/delta", Map.of(), ServerNotification.ItemAgentMessageDelta.class,
                    n -> ((ServerNotification.ItemAgentMessageDelta) n).params().delta()),
            new Kind("item/plan/delta", Map.of(), ServerNotification.ItemPlanDelta.class,
                    n -> ((ServerNotification.ItemPlanDelta) n).params().delta()),
            new Kind("item/reasoning/textDelta", Map.of("contentIndex", 0),
                    ServerNotification.ItemReasoningTextDelta.class,
                    n -> ((ServerNotification.ItemReasoningTextDelta) n).params().delta()),
            new Kind("item/reasoning/summaryTextDelta", Map.of("summaryIndex", 0),
                    ServerNotification.ItemReasoningSummaryTextDelta.class,
                    n -> ((ServerNotification.ItemReasoningSummaryTextDelta) n).params().delta()),
            new Kind("item/commandExecution/outputDelta", Map.of(),
                    ServerNotification.ItemCommandExecutionOutputDelta.class,
                    n -> ((ServerNotification.ItemCommandExecutionOutputDelta) n).params().delta()),
            new Kind("item/fileChange/outputDelta", Map.of(), ServerNotification.ItemFileChangeOutputDelta.class,
                    n -> ((ServerNotification.ItemFileChangeOutputDelta) n).params().delta()));

    private static String part(int kind, int i) {
        return "k" + kind + "-" + i + (i % 7 == 0 ? " é👋" : " ");
    }

    private static Map<String, Object> params(Kind kind, int k, String delta) {
        Map<String, Object> params = new LinkedHashMap<>(kind.extra());
        params.put("delta", delta);
        params.put("itemId", "item-" + k);
        params.put("threadId", "thr");
        params.put("turnId", "turn");
        return params;
    }

    /** What the two subscribers got. */
    private record Outcome(RecordingSubscriber<ServerNotification> lagging,
                           RecordingSubscriber<ServerNotification> eager, int sent) {
    }

    /**
     * Sends the runs of deltas, then one from a newer server; the lagging subscriber has requested nothing meanwhile,
     * and then requests everything.
     */
    private static Outcome run(PublisherOverflow overflow) throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer();
             CodexClient client = inMemory(fake).publisherOverflow(overflow).publisherBufferSize(BUFFER).build()) {
            RecordingSubscriber<ServerNotification> lagging = new RecordingSubscriber<>(0);
            client.publisher().subscribe(lagging);
            lagging.subscription();
            // Subscribed second: the client hands each notification to its subscriptions in the order they
            // subscribed, so once this one has the last notification, the lagging one has been offered all of them.
            RecordingSubscriber<ServerNotification> eager = new RecordingSubscriber<>(Long.MAX_VALUE);
            client.publisher().subscribe(eager);
            eager.subscription();

            int sent = 0;
            for (int k = 0; k < KINDS.size(); k++) {
                for (int i = 0; i < PER_KIND; i++) {
                    fake.notify(KINDS.get(k).method(), params(KINDS.get(k), k, part(k, i)));
                    sent++;
                }
            }
            Map<String, Object> newer = params(KINDS.get(0), KINDS.size(), "from a newer server");
            newer.put("phase", "final");
            fake.notify(KINDS.get(0).method(), newer);
            sent++;
            int all = sent;
            awaitCondition("the eager subscriber has every notification", () -> eager.items.size() == all);

            if (overflow == PublisherOverflow.COALESCE_DELTAS) {
                assertThat(lagging.end).as("no overflow while it lagged").isNotDone();
                lagging.request(Long.MAX_VALUE);
                awaitCondition("the lagging subscriber has every kind and the newer delta",
                        () -> lagging.items.size() >= KINDS.size() + 1);
            }
            return new Outcome(lagging, eager, sent);
        }
    }

    @Test
    void aLaggingSubscriberGetsEachRunOfDeltasAsOneEventWithTheWholeText() throws Exception {
        Outcome outcome = run(PublisherOverflow.COALESCE_DELTAS);
        List<ServerNotification> got = outcome.lagging().items;

        assertThat(got).hasSize(KINDS.size() + 1);
        for (int k = 0; k < KINDS.size(); k++) {
            Kind kind = KINDS.get(k);
            StringBuilder whole = new StringBuilder();
            for (int i = 0; i < PER_KIND; i++) {
                whole.append(part(k, i));
            }
            assertThat(got.get(k)).as(kind.method()).isInstanceOf(kind.type());
            assertThat(got.get(k).method()).isEqualTo(kind.method());
            assertThat(kind.text().apply(got.get(k))).as(kind.method()).isEqualTo(whole.toString());
            assertThat(got.get(k).threadId()).contains("thr");
        }
        ServerNotification last = got.get(KINDS.size());
        assertThat(last).isInstanceOfSatisfying(ServerNotification.ItemAgentMessageDelta.class, d -> {
            assertThat(d.params().delta()).isEqualTo("from a newer server");
            assertThat(d.params().unknownMembers().get("phase").asText()).isEqualTo("final");
        });
        assertThat(outcome.lagging().violations).isEmpty();
    }

    @Test
    void aSubscriberThatKeepsUpGetsEveryDeltaAsSent() throws Exception {
        Outcome outcome = run(PublisherOverflow.COALESCE_DELTAS);
        List<ServerNotification> got = outcome.eager().items;

        assertThat(got).hasSize(outcome.sent());
        for (int k = 0; k < KINDS.size(); k++) {
            for (int i = 0; i < PER_KIND; i++) {
                ServerNotification n = got.get(k * PER_KIND + i);
                assertThat(n).isInstanceOf(KINDS.get(k).type());
                assertThat(KINDS.get(k).text().apply(n)).isEqualTo(part(k, i));
            }
        }
        assertThat(outcome.eager().violations).isEmpty();
    }

    @Test
    void withoutCoalescingTheSameLaggardOverflows() throws Exception {
        Outcome outcome = run(PublisherOverflow.FAIL);

        assertThat(outcome.lagging().error()).isInstanceOfSatisfying(CodexBackpressureException.class,
                e -> assertThat(e.bufferSize()).isEqualTo(BUFFER));
        assertThat(outcome.lagging().items).isEmpty();
        assertThat(outcome.eager().items).hasSize(outcome.sent());
    }
}

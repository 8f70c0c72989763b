package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.protocol.ThreadListResponse;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Thread management against the real codex: start, list page by page, read, name, archive, fork, resume. */
@Tag("real-codex")
@Timeout(60)
class RealCodexThreadLifecycleTest {
    private static final Duration TURN = Duration.ofSeconds(30);
    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();


    /** Codex stores a thread once it has a turn; this runs one so the thread can be listed, read and resumed. */
    private CodexThread threadWithOneTurn(CodexClient client, String prompt, String answer) {
        codex.model.when(r -> r.lastUserText().equals(prompt), ModelStep.reply(answer));
        CodexThread thread = client.startThread(codex.threadParams().build());
        TurnResult result = thread.startTurn(prompt).await(TURN);
        assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
        assertThat(result.finalText()).isEqualTo(answer);
        return thread;
    }

    @Test
    void listingPagesThroughEveryThread() {
        try (CodexClient client = codex.client(b -> { })) {
            List<String> created = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                created.add(threadWithOneTurn(client, "prompt number " + i, "answer " + i).id());
            }
            ThreadListParams twoPerPage = ThreadListParams.builder().limit(2L).build();

            // The raw call honours the limit and hands out a cursor ...
            ThreadListResponse first = client.rpc().threadList(twoPerPage).join();
            assertThat(first.data()).hasSize(2);
            assertThat(first.nextCursor()).isNotBlank();

            // ... and the client's iterator follows it to the end.
            List<String> listed = new ArrayList<>();
            client.listThreads(twoPerPage).forEach(t -> listed.add(t.id()));
            assertThat(listed).containsExactlyInAnyOrderElementsOf(created);
        }
    }

    @Test
    void readNameArchiveUnarchive() {
        try (CodexClient client = codex.client(b -> { })) {
            CodexThread thread = threadWithOneTurn(client, "remember the colour teal", "Teal it is.");

            ThreadInfo read = thread.read();
            assertThat(read.id()).isEqualTo(thread.id());
            assertThat(read.turns()).singleElement().satisfies(turn -> {
                assertThat(turn.status()).isEqualTo(TurnStatus.COMPLETED);
                assertThat(turn.items()).filteredOn(ThreadItem.AgentMessage.class::isInstance)
                        .extracting(i -> ((ThreadItem.AgentMessage) i).text()).containsExactly("Teal it is.");
            });

            thread.setName("teal thread ✓");
            assertThat(thread.read().name()).isEqualTo("teal thread ✓");

            thread.archive();
            assertThat(ids(client.listThreads())).doesNotContain(thread.id());
            assertThat(ids(client.listThreads(ThreadListParams.builder().archived(true).build())))
                    .contains(thread.id());

            thread.unarchive();
            assertThat(ids(client.listThreads())).contains(thread.id());
            assertThat(ids(client.listThreads(ThreadListParams.builder().archived(true).build())))
                    .doesNotContain(thread.id());
        }
    }

    @Test
    void forkCopiesTheHistoryAndResumeContinuesIt() {
        String threadId;
        try (CodexClient client = codex.client(b -> { })) {
            CodexThread original = threadWithOneTurn(client, "the secret word is pelican", "Noted.");
            threadId = original.id();

            CodexThread fork = original.fork();
            assertThat(fork.id()).isNotEqualTo(original.id());
            assertThat(fork.info().forkedFromId()).isEqualTo(original.id());
            List<Turn> forkedTurns = fork.read().turns();
            assertThat(forkedTurns).hasSize(1);

            // The fork runs on its own: the model sees the copied history in the fork's next request.
            codex.model.when(r -> r.lastUserText().equals("what was the word?"), ModelStep.reply("pelican"));
            TurnResult onFork = fork.startTurn("what was the word?").await(TURN);
            assertThat(onFork.finalText()).isEqualTo("pelican");
            assertThat(codex.model.requests().get(codex.model.requestCount() - 1).inputContains(
                    "the secret word is pelican")).isTrue();
            assertThat(original.read().turns()).hasSize(1);
        }

        // A new connection (a new app-server process) resumes the stored thread and continues it.
        try (CodexClient client = codex.client(b -> { })) {
            CodexThread resumed = client.resumeThread(threadId);
            assertThat(resumed.id()).isEqualTo(threadId);
            codex.model.when(r -> r.lastUserText().equals("and again?"), ModelStep.reply("still pelican"));
            TurnResult again = resumed.startTurn("and again?").await(TURN);
            assertThat(again.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(again.finalText()).isEqualTo("still pelican");
            assertThat(codex.model.requests().get(codex.model.requestCount() - 1).inputContains(
                    "the secret word is pelican")).isTrue();
            assertThat(resumed.read().turns()).hasSize(2);
        }
    }

    @Test
    void optedOutNotificationsNeverArrive() {
        String optedOut = "thread/tokenUsage/updated";
        List<String> methods = new CopyOnWriteArrayList<>();
        try (CodexClient client = codex.client(b -> b.optOutNotifications(optedOut)
                .onNotification(n -> methods.add(n.method())))) {
            codex.model.enqueue(ModelStep.reply("counted").withUsage(50, 7));
            TurnResult result = client.startThread(codex.threadParams().build()).startTurn("count tokens")
                    .await(TURN);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(result.usage()).isEmpty();
        }
        assertThat(methods).contains("turn/started", "item/agentMessage/delta", "turn/completed");
        assertThat(methods).doesNotContain(optedOut);

        // Control: without the opt-out the same turn reports token usage.
        methods.clear();
        try (CodexClient client = codex.client(b -> b.onNotification(n -> methods.add(n.method())))) {
            codex.model.enqueue(ModelStep.reply("counted").withUsage(50, 7));
            TurnResult result = client.startThread(codex.threadParams().build()).startTurn("count tokens")
                    .await(TURN);
            assertThat(result.usage()).isPresent();
        }
        assertThat(methods).contains(optedOut);
    }

    private static List<String> ids(Iterable<ThreadInfo> threads) {
        List<String> ids = new ArrayList<>();
        threads.forEach(t -> ids.add(t.id()));
        return ids;
    }
}

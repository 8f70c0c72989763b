package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.WAIT;
import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexClient;
import dev.codexclient.ThreadSearch;
import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexMethodNotSupportedException;
import dev.codexclient.protocol.ConfigWriteResponse;
import dev.codexclient.protocol.ModelProviderDefaultSetParams;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadSearchParams;
import dev.codexclient.protocol.ThreadSearchResponse;
import dev.codexclient.protocol.ThreadSearchResult;
import dev.codexclient.protocol.WriteStatus;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The streamed thread search against the fake, which answers as codex 0.171.0 does: a partial per matching row,
 * then the page; held pages let a test cancel a search in flight.
 */
@ExtendWith(CodexTestExtension.class)
class ThreadSearchTest {

    private static CodexClient client(FakeCodexAppServer fake) {
        return inMemory(fake).experimentalApi(true).build();
    }

    /** Threads named {@code names}, which the fake's search matches by name. */
    private static List<String> threads(CodexClient client, String... names) {
        List<String> ids = new ArrayList<>();
        for (String name : names) {
            var thread = client.startThread();
            thread.setName(name);
            ids.add(thread.id());
        }
        return ids;
    }

    private static List<JsonNode> sent(FakeCodexAppServer fake, String method) {
        return fake.receivedMessages().stream().filter(m -> method.equals(m.path("method").asText())).toList();
    }

    private static List<String> ids(List<ThreadSearchResult> rows) {
        return rows.stream().map(r -> r.thread().id()).toList();
    }

    @Test
    void partialRowsComeAsTheyArriveThenTheFinalPage(FakeCodexAppServer fake) {
        try (CodexClient client = client(fake)) {
            List<String> ids = threads(client, "banana bread", "apple pie", "banana split");
            List<ServerNotification> onTheWire = new CopyOnWriteArrayList<>();
            client.onNotification(n -> {
                if (n instanceof ServerNotification.ThreadSearchPartial) {
                    onTheWire.add(n);
                }
            });
            try (ThreadSearch search = client.searchThreads("BANANA")) {
                List<ThreadSearchResult> rows = new ArrayList<>();
                for (ThreadSearchResult row : search) {
                    rows.add(row);
                }
                // newest first, one partial each: every row the server sent, in its order
                assertThat(ids(rows)).containsExactly(ids.get(2), ids.get(0));
                assertThat(rows).extracting(ThreadSearchResult::snippet).containsExactly("banana split",
                        "banana bread");
                ThreadSearchResponse page = search.await(WAIT);
                assertThat(ids(page.data())).containsExactly(ids.get(2), ids.get(0));
                assertThat(search.isDone()).isTrue();
                RequestId id = search.requestId().orElseThrow();
                assertThat(onTheWire).hasSize(2).allSatisfy(n -> assertThat(
                        ((ServerNotification.ThreadSearchPartial) n).params().requestId()).isEqualTo(id));
                assertThat(sent(fake, "thread/search/stream")).singleElement()
                        .satisfies(m -> assertThat(m.path("params").path("searchTerm").asText()).isEqualTo("BANANA"));
                // a second iteration reads the kept rows again; closing a finished search sends nothing
                assertThat(ids(List.copyOf(toList(search)))).isEqualTo(ids(rows));
            }
            assertThat(sent(fake, "thread/search/stream/cancel")).isEmpty();
        }
    }

    private static List<ThreadSearchResult> toList(Iterable<ThreadSearchResult> rows) {
        List<ThreadSearchResult> out = new ArrayList<>();
        rows.forEach(out::add);
        return out;
    }

    @Test
    void twoSearchesAtOnceKeepTheirOwnRows(FakeCodexAppServer fake) {
        fake.holdThreadSearches(true);
        try (CodexClient client = client(fake)) {
            List<String> ids = threads(client, "alpha one", "beta one", "alpha two");
            try (ThreadSearch alpha = client.searchThreads("alpha"); ThreadSearch beta = client.searchThreads("beta")) {
                awaitCondition("both searches' rows", () -> alpha.partialRows().size() == 2
                        && beta.partialRows().size() == 1);
                assertThat(alpha.requestId()).isNotEqualTo(beta.requestId());
                assertThat(fake.releaseThreadSearches()).isEqualTo(2);
                assertThat(ids(toList(alpha))).containsExactly(ids.get(2), ids.get(0));
                assertThat(ids(toList(beta))).containsExactly(ids.get(1));
                assertThat(ids(beta.await(WAIT).data())).containsExactly(ids.get(1));
            }
        }
    }

    @Test
    void cancelSendsTheCancelRequestAndTheSearchEndsCancelled(FakeCodexAppServer fake) {
        fake.holdThreadSearches(true);
        try (CodexClient client = client(fake)) {
            threads(client, "banana bread", "banana split");
            ThreadSearch search = client.searchThreads("banana");
            var rows = search.iterator();
            assertThat(rows.hasNext()).isTrue();
            rows.next();
            // the page is held: the search is in flight
            assertThat(search.isDone()).isFalse();
            search.cancel().join();
            assertThat(sent(fake, "thread/search/stream/cancel")).singleElement().satisfies(m -> assertThat(
                    m.path("params").path("requestId").asLong()).isEqualTo(
                    ((RequestId.Number) search.requestId().orElseThrow()).value()));
            assertThatThrownBy(() -> search.await(WAIT)).isInstanceOf(CancellationException.class);
            assertThat(search.result()).isCompletedExceptionally();
            // the second row had come before the cancel: the iteration reads it, then ends
            assertThat(rows.hasNext()).isTrue();
            rows.next();
            assertThat(rows.hasNext()).isFalse();
            // again, or closed: nothing more is sent
            search.cancel().join();
            search.close();
            assertThat(sent(fake, "thread/search/stream/cancel")).hasSize(1);
        }
    }

    @Test
    void closingARunningSearchCancelsIt(FakeCodexAppServer fake) {
        fake.holdThreadSearches(true);
        try (CodexClient client = client(fake)) {
            threads(client, "banana");
            try (ThreadSearch search = client.searchThreads("banana")) {
                for (ThreadSearchResult row : search) {
                    assertThat(row.snippet()).isEqualTo("banana");
                    break;   // enough: leaving the block closes the search
                }
            }
            awaitCondition("the cancel on the wire", () -> sent(fake, "thread/search/stream/cancel").size() == 1);
            assertThat(fake.releaseThreadSearches()).isZero();
        }
    }

    @Test
    void thePublisherGivesTheRowsThenTheEndAndALateSubscriberTheKeptRows(FakeCodexAppServer fake) {
        try (CodexClient client = client(fake)) {
            threads(client, "banana one", "banana two");
            ThreadSearch search = client.searchThreads("banana");
            Collector early = new Collector();
            search.publisher().subscribe(early);
            search.await(WAIT);
            early.done.join();
            assertThat(early.rows).hasSize(2);
            assertThat(early.failure.get()).isNull();

            Collector late = new Collector();
            search.publisher().subscribe(late);
            late.done.join();
            assertThat(ids(late.rows)).isEqualTo(ids(early.rows));
        }
    }

    @Test
    void aCancelledSearchFailsItsSubscribersWithCancellation(FakeCodexAppServer fake) {
        fake.holdThreadSearches(true);
        try (CodexClient client = client(fake)) {
            threads(client, "banana");
            ThreadSearch search = client.searchThreads("banana");
            Collector subscriber = new Collector();
            search.publisher().subscribe(subscriber);
            awaitCondition("the partial row", () -> subscriber.rows.size() == 1);
            search.cancel().join();
            subscriber.done.join();
            assertThat(subscriber.failure.get()).isInstanceOf(CancellationException.class);
        }
    }

    @Test
    void rowsBeyondTheBufferAreDroppedAndCountedTheFinalPageHasThemAll(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).experimentalApi(true).publisherBufferSize(2).build()) {
            threads(client, "banana 1", "banana 2", "banana 3", "banana 4", "banana 5");
            try (ThreadSearch search = client.searchThreads("banana")) {
                ThreadSearchResponse page = search.await(WAIT);
                assertThat(page.data()).hasSize(5);
                assertThat(toList(search)).hasSize(2);
                assertThat(search.partialRows()).hasSize(2);
                assertThat(search.droppedRows()).isEqualTo(3);
            }
        }
    }

    @Test
    void anOlderServerGetsNoSearchAndTheSearchFailsAtOnce(FakeCodexAppServer fake) {
        fake.initializeResult(Map.of("userAgent", "acme/0.169.0 (Debian 12.0.0; x86_64) xterm (acme; 1)"));
        try (CodexClient client = client(fake)) {
            ThreadSearch search = client.searchThreads(ThreadSearchParams.builder().searchTerm("x").limit(3L).build());
            assertThatThrownBy(() -> search.await(WAIT)).isInstanceOfSatisfying(
                    CodexMethodNotSupportedException.class, e -> {
                        assertThat(e.sent()).isFalse();
                        assertThat(e.versionsWithMethod()).contains("0.171.0").doesNotContain("0.169.0");
                    });
            assertThat(search.iterator().hasNext()).isFalse();
            assertThat(search.requestId()).isEmpty();
            search.cancel().join();
            assertThat(sent(fake, "thread/search/stream")).isEmpty();
            assertThat(sent(fake, "thread/search/stream/cancel")).isEmpty();
        }
    }

    @Test
    void withoutTheExperimentalApiTheSearchFailsAtOnce(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            ThreadSearch search = client.searchThreads("x");
            assertThatThrownBy(() -> search.await(WAIT)).isInstanceOf(CodexException.class)
                    .hasMessageContaining("experimentalApi(true)");
            assertThat(sent(fake, "thread/search/stream")).isEmpty();
        }
    }

    @Test
    void waitingForASearchWhereItsRowsAreDeliveredFailsFast(FakeCodexAppServer fake) {
        try (CodexClient client = client(fake)) {
            threads(client, "banana");
            // A partial row can reach the listener before searchThreads has returned the handle to this thread.
            CompletableFuture<ThreadSearch> search = new CompletableFuture<>();
            CompletableFuture<Throwable> seen = new CompletableFuture<>();
            client.onNotification(n -> {
                if (n instanceof ServerNotification.ThreadSearchPartial) {
                    try {
                        search.get(WAIT.toSeconds(), TimeUnit.SECONDS).await(WAIT);
                        seen.complete(null);
                    } catch (RuntimeException e) {
                        seen.complete(e);
                    } catch (Exception e) {
                        seen.completeExceptionally(e);
                    }
                }
            });
            fake.holdThreadSearches(true);
            search.complete(client.searchThreads("banana"));
            assertThat(seen.join()).isInstanceOf(CodexDeadlockException.class)
                    .hasMessageContaining("search.result()");
            fake.releaseThreadSearches();
            assertThat(search.join().await(WAIT).data()).hasSize(1);
        }
    }

    @Test
    void settingTheDefaultModelProviderIsATypedCall(FakeCodexAppServer fake) {
        try (CodexClient client = client(fake)) {
            ConfigWriteResponse written = client.rpc().modelProviderDefaultSet(
                    ModelProviderDefaultSetParams.builder().providerId("openai").build()).join();
            assertThat(written.status()).isEqualTo(WriteStatus.OK);
            assertThat(sent(fake, "modelProvider/default/set")).singleElement().satisfies(m ->
                    assertThat(m.path("params").path("providerId").asText()).isEqualTo("openai"));
        }
    }

    /** Requests everything and records what arrives. */
    private static final class Collector implements Flow.Subscriber<ThreadSearchResult> {
        final List<ThreadSearchResult> rows = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(ThreadSearchResult item) {
            rows.add(item);
        }

        @Override
        public void onError(Throwable throwable) {
            failure.set(throwable);
            done.complete(null);
        }

        @Override
        public void onComplete() {
            done.complete(null);
        }
    }
}

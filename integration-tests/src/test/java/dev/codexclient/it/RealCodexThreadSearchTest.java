package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexVersion;
import dev.codexclient.MethodSupport;
import dev.codexclient.ThreadSearch;
import dev.codexclient.errors.CodexMethodNotSupportedException;
import dev.codexclient.protocol.ClientRequestMethods;
import dev.codexclient.protocol.ConfigWriteResponse;
import dev.codexclient.protocol.ModelProviderDefaultSetParams;
import dev.codexclient.protocol.ModelProviderListParams;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadSearchResponse;
import dev.codexclient.protocol.ThreadSearchResult;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.protocol.WriteStatus;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The streamed thread search and {@code modelProvider/default/set} against the real codex 0.171.0, and the search
 * refused unsent by the real 0.169.0.
 *
 * <p>codex sends partial rows best effort: a few per search, sometimes none (seen: 0–8 on 10–40 stored threads, more
 * often on a search's first run of a term). So the test searches distinct terms until one search has brought partial
 * rows, at most ten, and checks every search: the rows the handle gives are exactly the partials codex sent for its
 * request, in order.
 */
@Tag("real-codex")
@Timeout(240)
class RealCodexThreadSearchTest {
    private static final Duration TURN = Duration.ofSeconds(30);
    private static final Duration SEARCH = Duration.ofSeconds(30);
    private static final int THREADS = 30;
    private static final List<String> TERMS = List.of("banana", "tell me", "about banana", "banana number",
            "me about", "number 1", "tell me about", "about", "number", "me");

    /** Stored threads, each with one turn about "banana number k": what the searches find. */
    private static Set<String> storeThreads(RealCodexFixture codex, CodexClient client) {
        Set<String> ids = new TreeSet<>();
        for (int k = 0; k < THREADS; k++) {
            codex.model.enqueue(ModelStep.reply("noted, banana number " + k));
            var thread = client.startThread(codex.threadParams().build());
            assertThat(thread.startTurn("tell me about banana number " + k).await(TURN).status())
                    .isEqualTo(TurnStatus.COMPLETED);
            ids.add(thread.id());
        }
        return ids;
    }

    @Test
    void aSearchStreamsPartialRowsThenItsPageAndACancelledOneEndsCancelled() throws Exception {
        try (RealCodexFixture codex = new RealCodexFixture(CodexBinary.pinned());
             CodexClient client = codex.client(b -> b.experimentalApi(true))) {
            assertThat(client.serverInfo().supports(ClientRequestMethods.THREAD_SEARCH_STREAM))
                    .isEqualTo(MethodSupport.SUPPORTED);
            Set<String> stored = storeThreads(codex, client);
            // What codex sent, by request id: the handle must give exactly these rows.
            Map<RequestId, List<String>> onTheWire = new ConcurrentHashMap<>();
            client.onNotification(n -> {
                if (n instanceof ServerNotification.ThreadSearchPartial p) {
                    onTheWire.computeIfAbsent(p.params().requestId(), id -> new CopyOnWriteArrayList<>())
                            .addAll(p.params().data().stream().map(r -> r.thread().id()).toList());
                }
            });

            int withPartials = 0;
            for (String term : TERMS) {
                List<String> rows = new ArrayList<>();
                ThreadSearchResponse page;
                RequestId id;
                try (ThreadSearch search = client.searchThreads(term)) {
                    for (ThreadSearchResult row : search) {
                        assertThat(row.snippet()).containsIgnoringCase(term.split(" ")[0]);
                        rows.add(row.thread().id());
                    }
                    page = search.await(SEARCH);
                    id = search.requestId().orElseThrow();
                }
                assertThat(rows).as("rows of %s", term).isEqualTo(onTheWire.getOrDefault(id, List.of()));
                System.out.printf("thread/search/stream \"%s\": %d partial rows, a page of %d%n", term, rows.size(),
                        page.data().size());
                assertThat(stored).containsAll(rows);
                assertThat(page.data()).isNotEmpty();
                assertThat(stored).containsAll(page.data().stream().map(r -> r.thread().id()).toList());
                if (!rows.isEmpty()) {
                    withPartials++;
                    if (withPartials >= 2) {
                        break;
                    }
                }
            }
            assertThat(withPartials).as("searches that brought partial rows, of up to %d", TERMS.size())
                    .isPositive();

            // Cancel searches in flight: at the first partial row, or at once for a search that sends none.
            int cancelled = 0;
            for (String term : TERMS) {
                ThreadSearch search = client.searchThreads(term);
                var rows = search.iterator();
                if (rows.hasNext()) {
                    rows.next();
                }
                search.cancel().get();   // codex acknowledged the cancel: it went on the wire
                try {
                    search.await(SEARCH);    // codex answered before the cancel reached it
                } catch (CancellationException e) {
                    cancelled++;
                    System.out.printf("thread/search/stream \"%s\": cancelled in flight%n", term);
                    assertThat(search.result()).isCompletedExceptionally();
                    while (rows.hasNext()) {
                        rows.next();
                    }
                    assertThat(search.isDone()).isTrue();
                    break;
                } finally {
                    search.close();
                }
            }
            assertThat(cancelled).as("a search that ended cancelled, of up to %d", TERMS.size()).isEqualTo(1);
        }
    }

    @Test
    void settingTheDefaultModelProviderIsATypedCall() {
        try (RealCodexFixture codex = new RealCodexFixture(CodexBinary.pinned());
             CodexClient client = codex.client(b -> b.experimentalApi(true))) {
            ConfigWriteResponse written = client.rpc().modelProviderDefaultSet(
                    ModelProviderDefaultSetParams.builder().providerId("openai").build()).join();
            assertThat(written.status()).isEqualTo(WriteStatus.OK);
            assertThat(written.filePath()).endsWith("config.toml");
            assertThat(client.rpc().modelProviderList(new ModelProviderListParams()).join()
                    .defaultProviderId()).isEqualTo("openai");
        }
    }

    @Test
    void codex0169GetsNoSearchAndTheCallFailsAtOnce(@TempDir java.nio.file.Path home) {
        try (RealCodexFixture codex = new RealCodexFixture(CodexBinary.version("0.169.0"));
             CodexClient client = codex.client(b -> b.experimentalApi(true).environment("HOME", home.toString()))) {
            assertThat(client.serverInfo().codexVersion()).contains(CodexVersion.parse("0.169.0"));
            ThreadSearch search = client.searchThreads("banana");
            assertThatThrownBy(() -> search.await(SEARCH)).isInstanceOfSatisfying(
                    CodexMethodNotSupportedException.class, e -> {
                        assertThat(e.sent()).isFalse();
                        assertThat(e.versionsWithMethod()).contains("0.171.0");
                        assertThat(e.serverMethods()).contains("thread/search").doesNotContain("thread/search/stream");
                    });
            // the connection is fine: what 0.169.0 has still works
            assertThat(client.rpc().modelProviderList(new ModelProviderListParams()).join()
                    .defaultProviderId()).isNotBlank();
        }
    }
}

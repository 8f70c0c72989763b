package dev.codexclient.approvals.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.codexclient.approvals.ApprovalKind;
import dev.codexclient.approvals.EntryEvent;
import dev.codexclient.approvals.EntryJson;
import dev.codexclient.approvals.EntryState;
import dev.codexclient.approvals.InboxDecision;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.InboxQuery;
import dev.codexclient.approvals.InboxStoreException;
import dev.codexclient.approvals.testing.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * The JDBC store on the databases it knows, each a real server: H2 embedded in files, and PostgreSQL. The same
 * behaviour on both: entries kept whole, replaced only at the version read, listed with filters and pages, and the
 * changes of one store heard by another on the same database.
 */
class JdbcInboxStoreTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    static Stream<Arguments> databases() {
        return Stream.of(Arguments.of("h2", (Supplier<JdbcInboxStore>) () -> {
            try {
                Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "h2-");
                return JdbcInboxStore.h2(dir.resolve("inbox"));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }), Arguments.of("postgresql", (Supplier<JdbcInboxStore>) () ->
                JdbcInboxStore.builder(TestPostgres.shared().newDatabase()).build()));
    }

    static InboxEntry entry(String id, String thread, Instant at, EntryState state) {
        return new InboxEntry(id, ApprovalKind.COMMAND, "item/commandExecution/requestApproval|" + thread + "|turn|"
                + id + "|", thread, Optional.of("turn"), Optional.of(id),
                JsonNodeFactory.instance.objectNode().put("command", "echo <b>'x'</b> \u00e9"), Optional.empty(),
                List.of(InboxDecision.ACCEPT, InboxDecision.DECLINE), state, at, at.plus(Duration.ofHours(1)),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.of("a"), false,
                List.of(new EntryEvent(at, "requested", Optional.of("a"), "codex asked")), 0);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void keepsEntriesWholeAndReplacesThemOnlyAtTheVersionRead(String db, Supplier<JdbcInboxStore> open) {
        try (JdbcInboxStore store = open.get()) {
            InboxEntry e = entry("e1", "t1", T0, EntryState.PENDING);
            store.insert(e);
            assertThat(store.find("e1")).map(EntryJson::toJson).contains(EntryJson.toJson(e));
            assertThat(store.findByRequestKey(e.requestKey())).map(InboxEntry::id).contains("e1");

            InboxEntry decided = decided(e, "alice");
            InboxEntry other = decided(e, "bob");
            assertThat(store.replace(e, decided)).isTrue();
            assertThat(store.replace(e, other)).isFalse();     // read at version 0, which is gone
            assertThat(store.find("e1").orElseThrow().decidedBy()).contains("alice");
            assertThatThrownBy(() -> store.insert(e)).isInstanceOf(InboxStoreException.class);
        }
    }

    private static InboxEntry decided(InboxEntry e, String by) {
        return new InboxEntry(e.id(), e.kind(), e.requestKey(), e.threadId(), e.turnId(), e.itemId(), e.request(),
                e.item(), e.offered(), EntryState.DECIDED, e.requestedAt(), e.expiresAt(),
                Optional.of(InboxDecision.ACCEPT), Optional.of(by), Optional.of(T0), Optional.of("decided by " + by),
                e.holder(), false, e.history(), e.version() + 1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void listsWithFiltersAndPagesNewestFirstAndFindsWhatExpires(String db, Supplier<JdbcInboxStore> open) {
        try (JdbcInboxStore store = open.get()) {
            for (int i = 0; i < 25; i++) {
                store.insert(entry("p" + i, i % 2 == 0 ? "even" : "odd", T0.plusSeconds(i), EntryState.PENDING));
            }
            store.insert(entry("w", "even", T0.plusSeconds(100), EntryState.WITHDRAWN));

            var page = store.list(InboxQuery.pending().page(1, 10));
            assertThat(page.total()).isEqualTo(25);
            assertThat(page.entries()).extracting(InboxEntry::id)
                    .containsExactly("p14", "p13", "p12", "p11", "p10", "p9", "p8", "p7", "p6", "p5");
            assertThat(store.list(InboxQuery.all().withThread("even")).total()).isEqualTo(14);
            assertThat(store.list(InboxQuery.all().withState(EntryState.WITHDRAWN)).entries())
                    .extracting(InboxEntry::id).containsExactly("w");
            assertThat(store.list(InboxQuery.all().withKind(ApprovalKind.PERMISSIONS)).total()).isZero();

            assertThat(store.expiring(T0.plus(Duration.ofHours(1)).plusSeconds(2), 100)).extracting(InboxEntry::id)
                    .containsExactly("p0", "p1", "p2");
            var stats = store.pendingStats();
            assertThat(stats.count()).isEqualTo(25);
            assertThat(stats.oldest()).contains(T0);
        }
    }

    @Test
    void aChangeThroughOneStoreIsHeardByAnotherOnTheSameDatabaseByNotification() throws Exception {
        String name = TestPostgres.shared().newDatabaseName();
        DataSource ds = TestPostgres.shared().database(name);
        // A poll that never comes within the test: only NOTIFY can bring the change.
        try (JdbcInboxStore a = JdbcInboxStore.builder(ds).pollInterval(Duration.ofHours(1)).build();
             JdbcInboxStore b = JdbcInboxStore.builder(TestPostgres.shared().database(name))
                     .pollInterval(Duration.ofHours(1)).build()) {
            CompletableFuture<String> heard = new CompletableFuture<>();
            b.watch((id, version) -> heard.complete(id + "@" + version));
            awaitListening(b);
            a.insert(entry("n1", "t", T0, EntryState.PENDING));
            assertThat(heard.get(30, TimeUnit.SECONDS)).isEqualTo("n1@0");
        }
    }

    @Test
    void withoutNotificationsTheChangeIsFoundByThePoll() throws Exception {
        String name = TestPostgres.shared().newDatabaseName();
        try (JdbcInboxStore a = JdbcInboxStore.builder(TestPostgres.shared().database(name))
                .notifications(false).build();
             JdbcInboxStore b = JdbcInboxStore.builder(TestPostgres.shared().database(name))
                     .notifications(false).pollInterval(Duration.ofMillis(100)).build()) {
            CompletableFuture<String> heard = new CompletableFuture<>();
            b.watch((id, version) -> heard.complete(id + "@" + version));
            a.insert(entry("q1", "t", T0, EntryState.PENDING));
            assertThat(heard.get(30, TimeUnit.SECONDS)).isEqualTo("q1@0");
        }
    }

    /** The listening connection is up once the server lists it among the listeners of the channel. */
    private static void awaitListening(JdbcInboxStore store) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            boolean listening = store.run(c -> {
                try (var s = c.createStatement(); var r = s.executeQuery(
                        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN codex_inbox%'")) {
                    r.next();
                    return r.getInt(1) > 0;
                }
            }, "look for the listener");
            if (listening) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("the store never listened");
    }
}

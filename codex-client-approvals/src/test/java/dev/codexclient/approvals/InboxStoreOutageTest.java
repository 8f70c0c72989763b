package dev.codexclient.approvals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.approvals.store.JdbcInboxStore;
import dev.codexclient.approvals.testing.TestPostgres;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The inbox while its PostgreSQL server is stopped, for real: it fails closed (no decision is recorded, nothing is
 * sent), health says why, the request that arrived meanwhile is written when the server is back, and then decided.
 */
class InboxStoreOutageTest {

    @Test
    void whileThePostgresServerIsDownTheInboxFailsClosedAndWhenItIsBackNothingIsLost() throws Exception {
        try (TestPostgres pg = TestPostgres.start();
             ApprovalInbox inbox = ApprovalInbox.builder().tick(Duration.ZERO)
                     .store(JdbcInboxStore.builder(pg.database(pg.newDatabaseName())).build()).build()) {
            pg.stop();
            CompletableFuture<ApprovalDecision> answer = inbox.policy()
                    .decide(Requests.command("t1", "call-1", "make deploy")).toCompletableFuture();
            inbox.tick();

            InboxHealth down = inbox.health();
            assertThat(down.up()).isFalse();
            assertThat(down.problem().orElseThrow()).contains("Connection");
            assertThat(down.unsaved()).isEqualTo(1);
            assertThatThrownBy(() -> inbox.decide("any", InboxDecision.ACCEPT, "alice"))
                    .isInstanceOf(InboxStoreException.class);
            assertThat(answer).isNotDone();

            pg.restart();
            inbox.tick();

            assertThat(inbox.health().up()).isTrue();
            InboxEntry entry = inbox.list(InboxQuery.pending()).entries().get(0);
            assertThat(entry.request().get("command").asText()).isEqualTo("make deploy");
            assertThat(inbox.decide(entry.id(), InboxDecision.ACCEPT, "alice")).isInstanceOf(DecideResult.Decided.class);
            assertThat(answer.get(30, TimeUnit.SECONDS)).isEqualTo(ApprovalDecision.ACCEPT);
        }
    }
}

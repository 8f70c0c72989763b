package dev.codexclient.approvals.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.EntryState;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.testing.Entries;
import dev.codexclient.approvals.testing.RealCodex;
import dev.codexclient.approvals.testing.TestPostgres;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two instances of a service in two JVMs, one PostgreSQL inbox: instance A's client holds codex's request, a person
 * decides through instance B's API, and codex (A's) runs the command. B's poll is set beyond the test's length, A's
 * too: the decision reaches A by NOTIFY. The meters of the decision are B's, where it was made.
 */
@Tag("real-codex")
class InboxTwoInstancesTest {
    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    void aDecisionThroughInstanceBReachesTheRequestHeldByInstanceA() throws Exception {
        String db = TestPostgres.shared().newDatabaseName();
        String url = TestPostgres.shared().url(db);
        try (RealCodex codex = new RealCodex();
             Instances.Instance b = Instances.start("b", "spring.datasource.url=" + url, "codex.enabled=false",
                     "codex.approvals.inbox.instance-id=b", "codex.approvals.inbox.poll-interval=1h");
             ConfigurableApplicationContext a = Services.withRealCodex(codex, "--spring.datasource.url=" + url,
                     "--codex.approvals.inbox.instance-id=a", "--codex.approvals.inbox.poll-interval=1h")) {
            codex.model.when(r -> r.lastUserText().equals("write the file"),
                    ModelStep.exec("printf approved | tee approved.txt"), ModelStep.reply("Done."));
            ApprovalInbox inboxA = a.getBean(ApprovalInbox.class);
            CodexTurn turn;
            InboxEntry held;
            try (Entries entries = new Entries(inboxA)) {
                turn = a.getBean(CodexClient.class).startThread(codex.threadParams()).startTurn("write the file");
                held = entries.await(e -> e.state() == EntryState.PENDING, WAIT);
            }
            assertThat(held.holder()).contains("a");

            Http bob = new Http(b.port()).signIn("bob", InboxTestApplication.PASSWORD);
            JsonNode listed = bob.get("/api/entries?state=pending", null).json();
            assertThat(listed.get("entries").get(0).get("id").asText()).isEqualTo(held.id());
            Http.Answer decided = bob.decide(held.id(), "accept");
            assertThat(decided.status()).isEqualTo(200);

            assertThat(turn.await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(Files.readString(codex.workspace.resolve("approved.txt"))).isEqualTo("approved");
            JsonNode entry = bob.get("/api/entries/" + held.id(), null).json();
            assertThat(entry.get("decidedBy").asText()).isEqualTo("bob");
            assertThat(entry.get("sent").asBoolean()).isTrue();
            // The decision was made on B: B measured it, A did not.
            assertThat(a.getBean(MeterRegistry.class).find("codex.approvals.inbox.time.to.end").timer()).isNull();
            JsonNode metric = bob.getOutside("/actuator/metrics/codex.approvals.inbox.time.to.end",
                    Http.basic("bob", InboxTestApplication.PASSWORD)).json();
            assertThat(metric.path("measurements").get(0).get("value").asDouble()).isEqualTo(1.0);
        }
    }
}

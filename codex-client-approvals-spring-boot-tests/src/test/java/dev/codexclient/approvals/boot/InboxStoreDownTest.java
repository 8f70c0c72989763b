package dev.codexclient.approvals.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.InboxQuery;
import dev.codexclient.approvals.Requests;
import dev.codexclient.approvals.testing.TestPostgres;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The service while its PostgreSQL server is stopped: the API refuses to decide (503, nothing recorded), health is
 * down and says why, and the request that came meanwhile is in the inbox once the server is back.
 */
class InboxStoreDownTest {

    @Test
    void withoutItsDatabaseTheServiceFailsClosedSaysWhyAndLosesNothing() throws Exception {
        try (TestPostgres pg = TestPostgres.start()) {
            String url = pg.url(pg.newDatabaseName());
            try (ConfigurableApplicationContext app = new SpringApplicationBuilder(InboxTestApplication.class)
                    .run("--server.port=0", "--codex.enabled=false", "--spring.datasource.url=" + url,
                            "--spring.datasource.hikari.connection-timeout=1000",
                            "--spring.datasource.hikari.initialization-fail-timeout=-1")) {
                int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
                ApprovalInbox inbox = app.getBean(ApprovalInbox.class);
                Http alice = new Http(port).signIn("alice", InboxTestApplication.PASSWORD);
                String basic = Http.basic("alice", InboxTestApplication.PASSWORD);

                pg.stop();
                CompletableFuture<ApprovalDecision> answer = inbox.policy()
                        .decide(Requests.command("t1", "call-1", "make release")).toCompletableFuture();
                inbox.tick();

                Http.Answer refused = alice.decide("any-entry", "accept");
                assertThat(refused.status()).isEqualTo(503);
                assertThat(refused.json().get("error").asText()).contains("cannot be reached")
                        .contains("nothing was recorded");
                Http.Answer health = alice.getOutside("/actuator/health", basic);
                assertThat(health.status()).isEqualTo(503);
                JsonNode inboxHealth = health.json().get("components").get("codexApprovalsInbox");
                assertThat(inboxHealth.get("status").asText()).isEqualTo("DOWN");
                assertThat(inboxHealth.get("details").get("problem").asText()).isNotBlank();
                assertThat(inboxHealth.get("details").get("unsaved").asInt()).isEqualTo(1);
                assertThat(answer).isNotDone();

                pg.restart();
                // The connection pool needs a try or two to connect again after the failures: the inbox's timer
                // tries again on each tick, as it does every second in production.
                for (int tries = 0; tries < 30 && !inbox.health().up(); tries++) {
                    inbox.tick();
                }

                JsonNode back = alice.getOutside("/actuator/health", basic).json();
                assertThat(back.get("components").get("codexApprovalsInbox").get("status").asText()).isEqualTo("UP");
                InboxEntry entry = inbox.list(InboxQuery.pending()).entries().get(0);
                assertThat(entry.request().get("command").asText()).isEqualTo("make release");
                assertThat(alice.decide(entry.id(), "accept").status()).isEqualTo(200);
                assertThat(answer.get(30, TimeUnit.SECONDS)).isEqualTo(ApprovalDecision.ACCEPT);
            }
        }
    }
}

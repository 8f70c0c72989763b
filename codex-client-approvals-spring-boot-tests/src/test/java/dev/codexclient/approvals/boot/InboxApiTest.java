package dev.codexclient.approvals.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.EntryState;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.InboxQuery;
import dev.codexclient.approvals.Requests;
import dev.codexclient.spring.boot.CodexClientBuilderCustomizer;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.transport.Transport;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;

/**
 * The REST API and the page on a running service, through HTTP as a browser or a script sends it: who may read and
 * decide (401, 403 and CSRF change nothing), the decider taken from the signed-in user, clear 400s and 404s, the 409
 * of a second decision, the client's secrets masked, codex's text escaped where the server writes it.
 */
@SpringBootTest(classes = {InboxTestApplication.class, InboxApiTest.Secrets.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"codex.approvals.inbox.store=memory", "codex.approvals.inbox.resume-threads=false"})
class InboxApiTest {
    static final String SECRET = "sk-live-0123456789abcdefSECRET";
    private static final FakeCodexAppServer FAKE = new FakeCodexAppServer();

    /** A client on the fake server that knows a secret: what it masks, the inbox masks. */
    @TestConfiguration
    static class Secrets {
        @Bean
        Transport fakeCodex() {
            return FAKE.connectInMemory();
        }

        @Bean
        CodexClientBuilderCustomizer secret() {
            return b -> b.secret(SECRET);
        }
    }

    @Value("${local.server.port}")
    int port;
    @Autowired
    ApprovalInbox inbox;

    private CompletableFuture<ApprovalDecision> answer;
    private InboxEntry entry;

    @BeforeEach
    void aPendingRequest() throws Exception {
        answer = inbox.policy().decide(Requests.command("thread-" + System.nanoTime(), "call-1",
                "curl -H 'Authorization: Bearer " + SECRET + "' https://example.test <script>x()</script>"))
                .toCompletableFuture();
        inbox.tick();
        entry = inbox.list(InboxQuery.pending().page(0, 500)).entries().stream()
                .filter(e -> e.history().size() == 1).findFirst().orElseThrow();
    }

    private EntryState state() {
        return inbox.entry(entry.id()).orElseThrow().state();
    }

    @Test
    void withoutSigningInTheApiAnswers401AndChangesNothing() throws Exception {
        Http anonymous = new Http(port);
        assertThat(anonymous.get("/api/entries", null).status()).isEqualTo(401);
        // Refused before anything else looks at it: the CSRF check comes first (403), the sign-in after (401).
        assertThat(anonymous.post("/api/entries/" + entry.id() + "/decision", "{\"decision\":\"accept\"}", null,
                false).status()).isIn(401, 403);
        assertThat(anonymous.get("/api/entries", Http.basic("alice", "wrong")).status()).isEqualTo(401);
        // The page sends a person to its sign-in form instead.
        Http.Answer page = anonymous.get("/", null);
        assertThat(page.status()).isEqualTo(302);
        assertThat(page.headers().firstValue("Location").orElseThrow()).endsWith("/codex/approvals/login");
        assertThat(state()).isEqualTo(EntryState.PENDING);
        assertThat(answer).isNotDone();
    }

    @Test
    void aUserWithoutTheRoleGets403AndChangesNothing() throws Exception {
        Http mallory = new Http(port).signIn("mallory", InboxTestApplication.PASSWORD);
        assertThat(mallory.get("/api/entries", null).status()).isEqualTo(403);
        assertThat(mallory.decide(entry.id(), "accept").status()).isEqualTo(403);
        assertThat(new Http(port).get("/api/entries", Http.basic("mallory", InboxTestApplication.PASSWORD))
                .status()).isEqualTo(403);
        assertThat(state()).isEqualTo(EntryState.PENDING);
    }

    @Test
    void aDecisionWithoutTheCsrfTokenIsRefusedAndChangesNothing() throws Exception {
        Http alice = new Http(port).signIn("alice", InboxTestApplication.PASSWORD);
        assertThat(alice.post("/api/entries/" + entry.id() + "/decision", "{\"decision\":\"accept\"}", null, false)
                .status()).isEqualTo(403);
        // Basic credentials, which a browser sends by itself once given, are no way around it.
        assertThat(new Http(port).post("/api/entries/" + entry.id() + "/decision", "{\"decision\":\"accept\"}",
                Http.basic("alice", InboxTestApplication.PASSWORD), false).status()).isIn(401, 403);
        assertThat(state()).isEqualTo(EntryState.PENDING);
    }

    @Test
    void theDeciderIsTheSignedInUserWhateverTheBodySays() throws Exception {
        Http alice = new Http(port).signIn("alice", InboxTestApplication.PASSWORD);
        Http.Answer decided = alice.post("/api/entries/" + entry.id() + "/decision",
                "{\"decision\":\"accept\",\"decidedBy\":\"mallory\",\"by\":\"mallory\",\"user\":\"mallory\"}",
                null, true);
        assertThat(decided.status()).isEqualTo(200);
        assertThat(decided.json().get("decidedBy").asText()).isEqualTo("alice");
        assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(ApprovalDecision.ACCEPT);
        assertThat(inbox.entry(entry.id()).orElseThrow().decidedBy()).contains("alice");
    }

    @Test
    void aSecondDecisionIsRefusedWithWhoDecidedFirstAndWhen() throws Exception {
        new Http(port).signIn("alice", InboxTestApplication.PASSWORD).decide(entry.id(), "decline");
        Http.Answer second = new Http(port).signIn("bob", InboxTestApplication.PASSWORD).decide(entry.id(), "accept");
        assertThat(second.status()).isEqualTo(409);
        JsonNode body = second.json();
        assertThat(body.get("decidedBy").asText()).isEqualTo("alice");
        assertThat(body.get("decision").asText()).isEqualTo("decline");
        assertThat(body.get("endedAt").asText()).isNotBlank();
        assertThat(body.get("error").asText()).contains("by alice");
        assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(ApprovalDecision.DECLINE);
    }

    @Test
    void malformedDecisionsUnknownEntriesAndDecisionsNotOfferedGetClearMessages() throws Exception {
        Http alice = new Http(port).signIn("alice", InboxTestApplication.PASSWORD);
        String path = "/api/entries/" + entry.id() + "/decision";
        Http.Answer notJson = alice.post(path, "decision=accept", null, true);
        assertThat(notJson.status()).isEqualTo(400);
        assertThat(notJson.json().get("error").asText()).contains("not JSON");
        Http.Answer noDecision = alice.post(path, "{\"verdict\":\"yes\"}", null, true);
        assertThat(noDecision.status()).isEqualTo(400);
        assertThat(noDecision.json().get("error").asText()).contains("names no decision");
        Http.Answer unknownName = alice.post(path, "{\"decision\":\"approve-all\"}", null, true);
        assertThat(unknownName.status()).isEqualTo(400);
        assertThat(unknownName.json().get("error").asText()).contains("no decision is called 'approve-all'")
                .contains("acceptForSession");
        Http.Answer notOffered = alice.post(path, "{\"decision\":\"acceptWithExecpolicyAmendment\"}", null, true);
        assertThat(notOffered.status()).isEqualTo(400);
        assertThat(notOffered.json().get("error").asText()).contains("does not offer").contains("accept, ");
        Http.Answer unknownEntry = alice.decide("no-such-entry", "accept");
        assertThat(unknownEntry.status()).isEqualTo(404);
        assertThat(unknownEntry.json().get("error").asText()).contains("no entry has the id 'no-such-entry'");
        assertThat(alice.get("/api/entries/no-such-entry", null).status()).isEqualTo(404);
        Http.Answer badFilter = alice.get("/api/entries?state=open", null);
        assertThat(badFilter.status()).isEqualTo(400);
        assertThat(badFilter.json().get("error").asText()).contains("no state is called 'open'");
        assertThat(state()).isEqualTo(EntryState.PENDING);
    }

    @Test
    void theListFiltersAndPagesAndTheClientsSecretsAreMasked() throws Exception {
        Http alice = new Http(port).signIn("alice", InboxTestApplication.PASSWORD);
        Http.Answer list = alice.get("/api/entries?state=pending&kind=command&thread=" + entry.threadId()
                + "&page=0&size=5", null);
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/json");
        assertThat(list.json().get("total").asInt()).isEqualTo(1);
        assertThat(list.json().get("entries").get(0).get("id").asText()).isEqualTo(entry.id());
        Http.Answer one = alice.get("/api/entries/" + entry.id(), null);
        assertThat(one.body()).doesNotContain(SECRET).contains("[REDACTED]");
        assertThat(list.body()).doesNotContain(SECRET);
        // What the store keeps was masked before it was written.
        assertThat(entry.request().toString()).doesNotContain(SECRET);
    }

    @Test
    void thePageWritesNothingOfCodexsAsHtmlAndAllowsNoScriptButItsOwn() throws Exception {
        Http alice = new Http(port).signIn("alice", InboxTestApplication.PASSWORD);
        Http.Answer page = alice.get("/", null);
        assertThat(page.status()).isEqualTo(200);
        // The entries come through the API and are set as text by the script; the page itself holds none.
        assertThat(page.body()).doesNotContain("<script>x()").doesNotContain("curl");
        assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow())
                .contains("script-src 'self'").doesNotContain("unsafe-inline");
        Http.Answer script = alice.get("/inbox.js", null);
        assertThat(script.body()).doesNotContain("innerHTML").doesNotContain("insertAdjacentHTML")
                .doesNotContain("eval(").contains("textContent");
    }
}

package dev.codexclient.approvals;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.approvals.store.JdbcInboxStore;
import dev.codexclient.approvals.testing.Entries;
import dev.codexclient.approvals.testing.RealCodex;
import dev.codexclient.approvals.testing.TestPostgres;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every end of an entry, reached with the real codex: a command approval codex asks for becomes a pending entry, and
 * it is decided (the command runs, or not), withdrawn (the turn is interrupted), expired (the default decision is
 * sent), or lost (codex's process is killed); a decision made through another instance on the same PostgreSQL
 * inbox reaches codex; and across a restart of the service, with codex as a server of its own, the request codex
 * sends again on resume is matched to its entry and answered with the decision made while the service was down.
 */
@Tag("real-codex")
class InboxRealCodexTest {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String COMMAND = "printf approved | tee approved.txt";

    private final RealCodex codex = new RealCodex();

    @AfterEach
    void close() {
        codex.close();
    }

    private void scriptCommandTurn() {
        codex.model.when(r -> r.lastUserText().equals("write the file"),
                ModelStep.exec(COMMAND), ModelStep.reply("Done."));
    }

    private static InboxEntry pending(Entries entries) throws Exception {
        return entries.await(e -> e.state() == EntryState.PENDING && e.holder().isPresent(), WAIT);
    }

    @Test
    void anApprovedCommandRunsAndTheTurnCompletes_aDeclinedOneDoesNot() throws Exception {
        scriptCommandTurn();
        try (ApprovalInbox inbox = ApprovalInbox.builder().build();
             Entries entries = new Entries(inbox);
             CodexClient client = inbox.install(codex.stdioClient()).build()) {
            inbox.masking(client::mask);
            CodexThread thread = client.startThread(codex.threadParams());
            CodexTurn turn = thread.startTurn("write the file");
            InboxEntry entry = pending(entries);
            assertThat(entry.kind()).isEqualTo(ApprovalKind.COMMAND);
            assertThat(entry.threadId()).isEqualTo(thread.id());
            assertThat(entry.request().get("command").asText()).contains("tee approved.txt");
            assertThat(entry.offered()).contains(InboxDecision.ACCEPT, InboxDecision.DECLINE);

            assertThat(inbox.decide(entry.id(), InboxDecision.ACCEPT, "alice"))
                    .isInstanceOf(DecideResult.Decided.class);

            TurnResult result = turn.await(WAIT);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(Files.readString(codex.workspace.resolve("approved.txt"))).isEqualTo("approved");
            InboxEntry decided = entries.await(e -> e.id().equals(entry.id()) && e.sent(), WAIT);
            assertThat(decided.state()).isEqualTo(EntryState.DECIDED);
            assertThat(decided.decidedBy()).contains("alice");

            // Decline: the turn goes on without the command.
            Files.delete(codex.workspace.resolve("approved.txt"));
            scriptCommandTurn();
            CodexTurn second = thread.startTurn("write the file");
            InboxEntry next = entries.await(e -> e.state() == EntryState.PENDING && !e.id().equals(entry.id()), WAIT);
            inbox.decide(next.id(), InboxDecision.DECLINE, "bob");
            assertThat(second.await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(codex.workspace.resolve("approved.txt")).doesNotExist();
            assertThat(entries.await(e -> e.id().equals(next.id()) && e.sent(), WAIT).decision())
                    .contains(InboxDecision.DECLINE);
        }
    }

    @Test
    void anInterruptedTurnWithdrawsItsEntry() throws Exception {
        scriptCommandTurn();
        try (ApprovalInbox inbox = ApprovalInbox.builder().build();
             Entries entries = new Entries(inbox);
             CodexClient client = inbox.install(codex.stdioClient()).build()) {
            CodexThread thread = client.startThread(codex.threadParams());
            CodexTurn turn = thread.startTurn("write the file");
            InboxEntry entry = pending(entries);

            assertThat(turn.interrupt(WAIT).status()).isEqualTo(TurnStatus.INTERRUPTED);

            InboxEntry withdrawn = entries.await(e -> e.id().equals(entry.id()) && e.state().ended(), WAIT);
            assertThat(withdrawn.state()).isEqualTo(EntryState.WITHDRAWN);
            // codex resolves a pending request of an interrupted turn itself (serverRequest/resolved) and then ends
            // the turn (turn/completed): whichever the inbox hears first withdraws the entry.
            assertThat(withdrawn.endReason().orElseThrow()).isIn("codex resolved the request itself", "its turn ended");
            assertThat(inbox.decide(entry.id(), InboxDecision.ACCEPT, "alice"))
                    .isInstanceOf(DecideResult.AlreadyEnded.class);
            assertThat(codex.workspace.resolve("approved.txt")).doesNotExist();
        }
    }

    @Test
    void anEntryNoOneDecidesExpiresAndCodexGetsTheDefaultDecision() throws Exception {
        scriptCommandTurn();
        ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z"));
        try (ApprovalInbox inbox = ApprovalInbox.builder().clock(clock).tick(Duration.ZERO)
                .timeToLive(ApprovalKind.COMMAND, Duration.ofMinutes(15)).build();
             Entries entries = new Entries(inbox);
             CodexClient client = inbox.install(codex.stdioClient()).build()) {
            CodexTurn turn = client.startThread(codex.threadParams()).startTurn("write the file");
            InboxEntry entry = pending(entries);

            clock.advance(Duration.ofMinutes(15));
            inbox.tick();

            assertThat(turn.await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(codex.workspace.resolve("approved.txt")).doesNotExist();
            InboxEntry expired = entries.await(e -> e.id().equals(entry.id()) && e.sent(), WAIT);
            assertThat(expired.state()).isEqualTo(EntryState.EXPIRED);
            assertThat(expired.decision()).contains(InboxDecision.DECLINE);
        }
    }

    @Test
    void whenCodexsProcessIsKilledItsEntriesAreLostWithTheirThread() throws Exception {
        scriptCommandTurn();
        try (ApprovalInbox inbox = ApprovalInbox.builder().build();
             Entries entries = new Entries(inbox);
             CodexClient client = inbox.install(codex.stdioClient()).build()) {
            CodexThread thread = client.startThread(codex.threadParams());
            thread.startTurn("write the file");
            InboxEntry entry = pending(entries);

            client.serverProcessTree().forEach(ProcessHandle::destroyForcibly);

            InboxEntry lost = entries.await(e -> e.id().equals(entry.id()) && e.state().ended(), WAIT);
            assertThat(lost.state()).isEqualTo(EntryState.LOST);
            assertThat(lost.threadId()).isEqualTo(thread.id());
            assertThat(lost.lastEvent().detail()).contains("resume thread " + thread.id());
        }
    }

    @Test
    void aDecisionThroughAnotherInstanceOnTheSamePostgresReachesTheInstanceThatHoldsTheRequest() throws Exception {
        scriptCommandTurn();
        String db = TestPostgres.shared().newDatabaseName();
        // The holder's poll never comes within the test: the decision reaches it by NOTIFY.
        try (ApprovalInbox a = ApprovalInbox.builder().instanceId("a").store(JdbcInboxStore.builder(
                     TestPostgres.shared().database(db)).pollInterval(Duration.ofHours(1)).build()).build();
             ApprovalInbox b = ApprovalInbox.builder().instanceId("b").store(JdbcInboxStore.builder(
                     TestPostgres.shared().database(db)).build()).build();
             Entries seenByB = new Entries(b);
             CodexClient client = a.install(codex.stdioClient()).build()) {
            CodexTurn turn = client.startThread(codex.threadParams()).startTurn("write the file");
            InboxEntry entry = seenByB.await(e -> e.state() == EntryState.PENDING, WAIT);
            assertThat(entry.holder()).contains("a");

            assertThat(b.decide(entry.id(), InboxDecision.ACCEPT, "bob")).isInstanceOf(DecideResult.Decided.class);

            assertThat(turn.await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(codex.workspace.resolve("approved.txt")).exists();
            InboxEntry sent = seenByB.await(e -> e.id().equals(entry.id()) && e.sent(), WAIT);
            assertThat(sent.history()).anySatisfy(h -> {
                assertThat(h.what()).isEqualTo("sent");
                assertThat(h.by()).contains("a");
            });
        }
    }

    @Test
    void afterARestartOfTheServiceTheRequestCodexSendsAgainIsAnsweredWithTheDecisionMadeMeanwhile()
            throws Exception {
        scriptCommandTurn();
        var server = codex.listen();
        String db = TestPostgres.shared().newDatabaseName();
        String threadId;
        String entryId;
        // The service, first run: its client connects to codex, which asks; then the service stops.
        try (ApprovalInbox inbox = ApprovalInbox.builder().instanceId("service")
                .store(JdbcInboxStore.builder(TestPostgres.shared().database(db)).build()).build();
             Entries entries = new Entries(inbox)) {
            try (CodexClient client = inbox.install(RealCodex.webSocketClient(server)).build()) {
                CodexThread thread = client.startThread(codex.threadParams());
                threadId = thread.id();
                thread.startTurn("write the file");
                entryId = pending(entries).id();
            }
            InboxEntry released = entries.await(e -> e.id().equals(entryId) && e.holder().isEmpty(), WAIT);
            assertThat(released.state()).isEqualTo(EntryState.PENDING);
            assertThat(released.lastEvent().what()).isEqualTo("released");
        }
        // While the service is down, someone decides on another instance.
        try (ApprovalInbox other = ApprovalInbox.builder().instanceId("other")
                .store(JdbcInboxStore.builder(TestPostgres.shared().database(db)).build()).build()) {
            assertThat(other.decide(entryId, InboxDecision.ACCEPT, "carol")).isInstanceOf(DecideResult.Decided.class);
        }
        assertThat(codex.workspace.resolve("approved.txt")).doesNotExist();
        // The service again: it resumes the threads its entries wait on, codex sends the request again, the entry
        // answers it.
        try (ApprovalInbox inbox = ApprovalInbox.builder().instanceId("service")
                .store(JdbcInboxStore.builder(TestPostgres.shared().database(db)).build()).build();
             Entries entries = new Entries(inbox)) {
            CompletableFuture<ServerNotification.TurnCompleted> completed = new CompletableFuture<>();
            try (CodexClient client = inbox.install(RealCodex.webSocketClient(server))
                    .onNotification(n -> {
                        if (n instanceof ServerNotification.TurnCompleted c) {
                            completed.complete(c);
                        }
                    }).build()) {
                assertThat(inbox.threadsToResume()).containsExactly(threadId);
                client.resumeThreadWithoutTurns(threadId);

                InboxEntry sent = entries.await(e -> e.id().equals(entryId) && e.sent(), WAIT);
                assertThat(sent.history()).extracting(EntryEvent::what).contains("released", "decided", "replayed",
                        "sent");
                assertThat(completed.get(WAIT.toSeconds(), TimeUnit.SECONDS).params().turn().status())
                        .isEqualTo(TurnStatus.COMPLETED);
                assertThat(Files.readString(codex.workspace.resolve("approved.txt"))).isEqualTo("approved");
                assertThat(inbox.list(InboxQuery.all()).total()).isEqualTo(1);
            }
        }
    }
}

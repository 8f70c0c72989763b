package dev.codexclient.approvals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ServerRequestWithdrawnException;
import dev.codexclient.ServerRequestWithdrawnException.Reason;
import dev.codexclient.approvals.store.InMemoryInboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The inbox's rules on a store in memory and a clock of the test's: an entry per request, the first decision wins,
 * every entry ends once, a request codex sends again finds its entry, the store's absence fails closed.
 */
class ApprovalInboxTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z"));
    private final FlakyStore store = new FlakyStore(new InMemoryInboxStore());
    private final ApprovalInbox inbox = ApprovalInbox.builder().store(store).clock(clock).instanceId("a")
            .tick(Duration.ZERO).timeToLive(Duration.ofMinutes(30)).build();

    @AfterEach
    void close() {
        inbox.close();
    }

    private InboxEntry onlyPending() {
        inbox.tick();   // the request is admitted on the inbox's thread; the tick runs behind it
        List<InboxEntry> pending = inbox.list(InboxQuery.pending()).entries();
        assertThat(pending).hasSize(1);
        return pending.get(0);
    }

    @Test
    void aRequestBecomesAPendingEntryAndItsDecisionAnswersTheClient() throws Exception {
        CompletableFuture<ApprovalDecision> answer = inbox.policy()
                .decide(Requests.command("t1", "call-1", "rm -rf build")).toCompletableFuture();
        InboxEntry entry = onlyPending();
        assertThat(entry.kind()).isEqualTo(ApprovalKind.COMMAND);
        assertThat(entry.threadId()).isEqualTo("t1");
        assertThat(entry.request().get("command").asText()).isEqualTo("rm -rf build");
        assertThat(entry.offered()).containsExactly(InboxDecision.ACCEPT, InboxDecision.ACCEPT_FOR_SESSION,
                InboxDecision.DECLINE, InboxDecision.CANCEL);
        assertThat(entry.holder()).contains("a");
        assertThat(answer).isNotDone();

        DecideResult result = inbox.decide(entry.id(), InboxDecision.ACCEPT, "alice");

        assertThat(result).isInstanceOf(DecideResult.Decided.class);
        assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(ApprovalDecision.ACCEPT);
        inbox.tick();
        InboxEntry decided = inbox.entry(entry.id()).orElseThrow();
        assertThat(decided.state()).isEqualTo(EntryState.DECIDED);
        assertThat(decided.decidedBy()).contains("alice");
        assertThat(decided.sent()).isTrue();
        assertThat(decided.history()).extracting(EntryEvent::what).containsExactly("requested", "decided", "sent");
    }

    @Test
    void theFirstDecisionWinsAndASecondIsRefusedWithWhoDecidedAndWhen() {
        inbox.policy().decide(Requests.command("t1", "call-1", "make"));
        InboxEntry entry = onlyPending();
        inbox.decide(entry.id(), InboxDecision.DECLINE, "alice");
        clock.advance(Duration.ofSeconds(5));

        DecideResult second = inbox.decide(entry.id(), InboxDecision.ACCEPT, "bob");

        assertThat(second).isInstanceOfSatisfying(DecideResult.AlreadyEnded.class, r -> {
            assertThat(r.entry().decidedBy()).contains("alice");
            assertThat(r.entry().decision()).contains(InboxDecision.DECLINE);
            assertThat(r.entry().endedAt()).contains(Instant.parse("2026-12-01T10:00:00Z"));
            assertThat(r.entry().lastEvent().what()).isEqualTo("refused");
            assertThat(r.entry().lastEvent().by()).contains("bob");
        });
    }

    @Test
    void aDecisionTheKindDoesNotOfferAndAnUnknownEntryAreRefused() {
        inbox.policy().decide(Requests.command("t1", "call-1", "make"));
        InboxEntry entry = onlyPending();
        assertThat(inbox.decide(entry.id(), InboxDecision.ACCEPT_WITH_EXECPOLICY_AMENDMENT, "alice"))
                .isInstanceOf(DecideResult.NotOffered.class);
        assertThat(inbox.decide("no-such-entry", InboxDecision.ACCEPT, "alice"))
                .isInstanceOf(DecideResult.Unknown.class);
        assertThat(inbox.entry(entry.id()).orElseThrow().state()).isEqualTo(EntryState.PENDING);
    }

    @Test
    void anEntryNoOneDecidesExpiresWithTheDefaultDecisionSentAndRecorded() throws Exception {
        CompletableFuture<ApprovalDecision> answer = inbox.policy()
                .decide(Requests.fileChange("t1", "call-2")).toCompletableFuture();
        InboxEntry entry = onlyPending();
        clock.advance(Duration.ofMinutes(29));
        inbox.tick();
        assertThat(answer).isNotDone();

        clock.advance(Duration.ofMinutes(1));
        inbox.tick();

        assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(ApprovalDecision.DECLINE);
        inbox.tick();
        InboxEntry expired = inbox.entry(entry.id()).orElseThrow();
        assertThat(expired.state()).isEqualTo(EntryState.EXPIRED);
        assertThat(expired.decision()).contains(InboxDecision.DECLINE);
        assertThat(expired.sent()).isTrue();
        assertThat(expired.endReason().orElseThrow()).contains("PT30M");
    }

    @Test
    void theReasonOfAWithdrawalEndsTheEntry() {
        CompletableFuture<ApprovalDecision> resolved = inbox.policy()
                .decide(Requests.command("t1", "call-1", "a")).toCompletableFuture();
        CompletableFuture<ApprovalDecision> gone = inbox.policy()
                .decide(Requests.command("t2", "call-2", "b")).toCompletableFuture();
        inbox.tick();

        resolved.completeExceptionally(new ServerRequestWithdrawnException(Reason.RESOLVED));
        gone.completeExceptionally(new ServerRequestWithdrawnException(Reason.GONE));
        inbox.tick();

        InboxEntry withdrawn = inbox.list(InboxQuery.all().withThread("t1")).entries().get(0);
        InboxEntry lost = inbox.list(InboxQuery.all().withThread("t2")).entries().get(0);
        assertThat(withdrawn.state()).isEqualTo(EntryState.WITHDRAWN);
        assertThat(lost.state()).isEqualTo(EntryState.LOST);
        assertThat(lost.lastEvent().detail()).contains("resume thread t2");
        assertThat(inbox.decide(lost.id(), InboxDecision.ACCEPT, "alice"))
                .isInstanceOf(DecideResult.AlreadyEnded.class);
    }

    @Test
    void aRequestCodexSendsAgainAfterTheClientLeftIsAnsweredWithTheDecisionMadeMeanwhile() throws Exception {
        CompletableFuture<ApprovalDecision> first = inbox.policy()
                .decide(Requests.command("t1", "call-1", "deploy")).toCompletableFuture();
        InboxEntry entry = onlyPending();
        first.completeExceptionally(new ServerRequestWithdrawnException(Reason.DISCONNECTED));
        inbox.tick();
        InboxEntry released = inbox.entry(entry.id()).orElseThrow();
        assertThat(released.state()).isEqualTo(EntryState.PENDING);
        assertThat(released.holder()).isEmpty();
        assertThat(inbox.threadsToResume()).containsExactly("t1");

        inbox.decide(entry.id(), InboxDecision.ACCEPT_FOR_SESSION, "alice");   // while no client holds it
        CompletableFuture<ApprovalDecision> replay = inbox.policy()
                .decide(Requests.command("t1", "call-1", "deploy")).toCompletableFuture();

        assertThat(replay.get(10, TimeUnit.SECONDS)).isEqualTo(ApprovalDecision.ACCEPT_FOR_SESSION);
        inbox.tick();
        assertThat(inbox.list(InboxQuery.all()).total()).isEqualTo(1);
        assertThat(inbox.entry(entry.id()).orElseThrow().history()).extracting(EntryEvent::what)
                .containsExactly("requested", "released", "decided", "replayed", "sent");
    }

    @Test
    void withoutItsStoreTheInboxFailsClosedAndLosesNothing() throws Exception {
        store.down(true);
        CompletableFuture<ApprovalDecision> answer = inbox.policy()
                .decide(Requests.command("t1", "call-1", "make")).toCompletableFuture();
        inbox.tick();

        assertThat(inbox.health().up()).isFalse();
        assertThat(inbox.health().problem().orElseThrow()).contains("the store is down");
        assertThat(inbox.health().unsaved()).isEqualTo(1);
        assertThatThrownBy(() -> inbox.decide("any", InboxDecision.ACCEPT, "alice"))
                .isInstanceOf(InboxStoreException.class);
        assertThat(answer).isNotDone();

        store.down(false);
        inbox.tick();

        assertThat(inbox.health().up()).isTrue();
        InboxEntry entry = onlyPending();
        inbox.decide(entry.id(), InboxDecision.ACCEPT, "alice");
        assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(ApprovalDecision.ACCEPT);
    }

    @Test
    void listenersAreToldOfChangesAndOfEndsHere() throws Exception {
        List<String> changes = new CopyOnWriteArrayList<>();
        List<String> ends = new CopyOnWriteArrayList<>();
        inbox.subscribe(new InboxListener() {
            @Override
            public void changed(InboxEntry entry) {
                changes.add(entry.state() + "/" + entry.version());
            }

            @Override
            public void ended(InboxEntry entry) {
                ends.add(entry.state().name());
            }
        });
        inbox.policy().decide(Requests.command("t1", "call-1", "make"));
        InboxEntry entry = onlyPending();
        inbox.decide(entry.id(), InboxDecision.DECLINE, "alice");
        inbox.tick();   // behind the delivery, which marks the entry sent
        inbox.tick();   // behind the change that marking made

        // Each version at most once, in order; a version overtaken before it was told is not told.
        assertThat(changes).doesNotHaveDuplicates().endsWith("DECIDED/2");   // decided, then sent
        assertThat(changes).isSortedAccordingTo(java.util.Comparator.comparing(c -> c.substring(c.indexOf('/'))));
        assertThat(ends).containsExactly("DECIDED");
    }
}

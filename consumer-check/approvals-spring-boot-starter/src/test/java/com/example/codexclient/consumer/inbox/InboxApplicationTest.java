package com.example.codexclient.consumer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.Subscription;
import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.EntryState;
import dev.codexclient.approvals.InboxDecision;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.InboxListener;
import dev.codexclient.approvals.InboxQuery;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/** The application with the testkit's fake in place of codex: its approvals wait in the starter's inbox. */
@SpringBootTest
class InboxApplicationTest {
    @TestConfiguration
    static class FakeCodex {
        @Bean(destroyMethod = "close")
        FakeCodexAppServer fakeCodexAppServer() {
            return new FakeCodexAppServer();
        }

        @Bean
        Transport codexTransport(FakeCodexAppServer fake) {
            return fake.connectInMemory();
        }
    }

    @Autowired
    private FakeCodexAppServer fake;
    @Autowired
    private CodexClient codex;
    @Autowired
    private ApprovalInbox inbox;

    @Test
    void theApplicationsApprovalsWaitInTheInbox() throws Exception {
        fake.onTurnStart(t -> t.commandApproval("make deploy", reply -> { }).agentMessage("Deployed.").completed());
        // Told by the inbox when the request becomes an entry: the request arrives after the turn's start.
        CompletableFuture<InboxEntry> entered = new CompletableFuture<>();
        Subscription listening = inbox.subscribe(new InboxListener() {
            @Override
            public void changed(InboxEntry entry) {
                if (entry.state() == EntryState.PENDING) {
                    entered.complete(entry);
                }
            }
        });
        CodexTurn turn;
        try {
            turn = codex.startThread().startTurn("deploy");
            entered.get(30, TimeUnit.SECONDS);
        } finally {
            listening.close();
        }
        List<InboxEntry> pending = inbox.list(InboxQuery.pending()).entries();
        assertThat(pending).as("the approval, as an entry").singleElement()
                .satisfies(e -> assertThat(e.id()).isEqualTo(entered.join().id()));
        inbox.decide(pending.get(0).id(), InboxDecision.ACCEPT, "approver");
        assertThat(turn.await(Duration.ofSeconds(30)).finalText()).isEqualTo("Deployed.");
        boolean named = Boolean.getBoolean("consumer.namedModule");
        assertThat(InboxApplication.class.getModule().isNamed()).as("the application's module").isEqualTo(named);
    }
}

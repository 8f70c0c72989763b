package com.example.codexclient.consumer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.InboxDecision;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.InboxQuery;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.transport.Transport;
import java.time.Duration;
import java.util.List;
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
        CodexTurn turn = codex.startThread().startTurn("deploy");
        InboxEntry pending = null;
        for (int i = 0; i < 600 && pending == null; i++) {
            inbox.tick();   // the request is admitted on the inbox's thread, ahead of the tick
            List<InboxEntry> entries = inbox.list(InboxQuery.pending()).entries();
            pending = entries.isEmpty() ? null : entries.get(0);
        }
        assertThat(pending).as("the approval, as an entry").isNotNull();
        inbox.decide(pending.id(), InboxDecision.ACCEPT, "approver");
        assertThat(turn.await(Duration.ofSeconds(30)).finalText()).isEqualTo("Deployed.");
        boolean named = Boolean.getBoolean("consumer.namedModule");
        assertThat(InboxApplication.class.getModule().isNamed()).as("the application's module").isEqualTo(named);
    }
}

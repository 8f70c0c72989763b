package com.example.codexclient.consumer.approvals;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codexclient.CodexTurn;
import dev.codexclient.approvals.DecideResult;
import dev.codexclient.approvals.EntryState;
import dev.codexclient.approvals.InboxDecision;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.InboxQuery;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReviewsTest {
    @Test
    void anApprovalWaitsInTheInboxUntilSomeoneDecides() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "h2-");
        try (FakeCodexAppServer fake = new FakeCodexAppServer();
             Reviews reviews = new Reviews(dir.resolve("inbox"), fake.connectInMemory())) {
            fake.onTurnStart(t -> t.commandApproval("make deploy", reply -> { }).agentMessage("done").completed());
            CodexTurn turn = reviews.client().startThread().startTurn("deploy");
            InboxEntry pending = null;
            for (int i = 0; i < 600 && pending == null; i++) {
                List<InboxEntry> entries = reviews.inbox().list(InboxQuery.pending()).entries();
                pending = entries.isEmpty() ? null : entries.get(0);
                if (pending == null) {
                    reviews.inbox().tick();   // the request is admitted on the inbox's thread, ahead of the tick
                }
            }
            assertTrue(pending != null, "the approval is an entry of the inbox");
            assertTrue(reviews.inbox().decide(pending.id(), InboxDecision.ACCEPT, "alice")
                    instanceof DecideResult.Decided);
            assertEquals("done", turn.await(Duration.ofSeconds(30)).finalText());
            assertEquals(EntryState.DECIDED, reviews.inbox().entry(pending.id()).orElseThrow().state());
        }
        boolean named = Boolean.getBoolean("consumer.namedModule");
        assertEquals(named, Reviews.class.getModule().isNamed(), "the consumer's module");
    }
}

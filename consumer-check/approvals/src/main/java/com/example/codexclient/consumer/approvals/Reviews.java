package com.example.codexclient.consumer.approvals;

import dev.codexclient.CodexClient;
import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.store.JdbcInboxStore;
import dev.codexclient.transport.Transport;
import java.nio.file.Path;

/** A user's code: a client whose approvals wait in an inbox kept in an embedded H2 database. */
public final class Reviews implements AutoCloseable {
    private final ApprovalInbox inbox;
    private final CodexClient client;

    public Reviews(Path database, Transport transport) {
        inbox = ApprovalInbox.builder().store(JdbcInboxStore.h2(database)).instanceId("consumer").build();
        client = inbox.install(CodexClient.builder().transport(transport)).build();
        inbox.masking(client::mask);
    }

    public ApprovalInbox inbox() {
        return inbox;
    }

    public CodexClient client() {
        return client;
    }

    @Override
    public void close() {
        client.close();
        inbox.close();
    }
}

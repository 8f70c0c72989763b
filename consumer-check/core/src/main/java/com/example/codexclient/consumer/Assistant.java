package com.example.codexclient.consumer;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.TurnResult;
import dev.codexclient.transport.Transport;
import java.time.Duration;

/** What a user's code does with the SDK: one thread, one turn, the agent's answer. */
public final class Assistant {
    private final Transport transport;

    /** An assistant talking to codex over {@code transport}. */
    public Assistant(Transport transport) {
        this.transport = transport;
    }

    /** Asks codex once and returns the agent's final text. */
    public String ask(String prompt) {
        try (CodexClient codex = CodexClient.builder().transport(transport)
                .approvals(ApprovalPolicy.declineAll()).build()) {
            TurnResult result = codex.startThread().startTurn(prompt).await(Duration.ofSeconds(30));
            return result.finalText();
        }
    }
}

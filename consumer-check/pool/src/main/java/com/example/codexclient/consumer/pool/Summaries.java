package com.example.codexclient.consumer.pool;

import dev.codexclient.Codex;
import dev.codexclient.CodexThread;
import dev.codexclient.protocol.ThreadStartParams;
import java.time.Duration;

/** What a user's service does with the face: it takes a {@code Codex}, and so runs on a client or a pool. */
public final class Summaries {
    private final Codex codex;

    /**
     * @param codex where the threads run
     */
    public Summaries(Codex codex) {
        this.codex = codex;
    }

    /** Asks codex once for a summary of {@code cwd} and returns the agent's final text. */
    public String summarise(String cwd) {
        CodexThread thread = codex.startThread(ThreadStartParams.builder().cwd(cwd).build());
        return thread.startTurn("Summarise " + cwd).await(Duration.ofSeconds(30)).finalText();
    }
}

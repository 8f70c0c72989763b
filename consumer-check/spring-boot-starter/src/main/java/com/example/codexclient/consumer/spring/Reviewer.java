package com.example.codexclient.consumer.spring;

import dev.codexclient.CodexClient;
import java.time.Duration;
import org.springframework.stereotype.Service;

/** A service of the application, given the client the starter made. */
@Service
public class Reviewer {
    private final CodexClient codex;

    /** The service, with the application's client. */
    public Reviewer(CodexClient codex) {
        this.codex = codex;
    }

    /** Asks codex to review {@code diff} and returns its answer. */
    public String review(String diff) {
        return codex.startThread().startTurn("Review this diff:\n" + diff).await(Duration.ofSeconds(30)).finalText();
    }
}

package com.example.codexclient.consumer.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codexclient.CodexClient;
import dev.codexclient.agent.AgentRunner;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReviewerTest {
    @TempDir
    Path dir;

    @Test
    void reviewsACopyOfTheSourcesAndReadsTheVerdict() throws Exception {
        Path repo = Files.createDirectories(dir.resolve("repo/src"));
        Files.writeString(repo.resolve("Main.java"), "class Main {}");
        Path workspaces = Files.createDirectories(dir.resolve("workspaces"));
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("{\"approve\":false,\"summary\":\"a leak\","
                    + "\"findings\":[\"Main.java: stream not closed\"]}").completed());

            Reviewer.Verdict verdict = new Reviewer(() -> CodexClient.builder().transport(fake.connectInMemory())
                    .requestTimeout(Duration.ofSeconds(10))).review(dir.resolve("repo"), workspaces);

            assertEquals(new Reviewer.Verdict(false, "a leak", List.of("Main.java: stream not closed")), verdict);
            assertTrue(fake.takeRequest("turn/start", Duration.ofSeconds(5)).params().path("outputSchema")
                    .isObject(), "the verdict's schema went to codex");
        }
        try (var left = Files.list(workspaces)) {
            assertEquals(0, left.count(), "the workspace is gone");
        }
        boolean named = Boolean.getBoolean("consumer.namedModule");
        assertEquals(named, Reviewer.class.getModule().isNamed(), "the consumer's module");
        assertEquals(named, AgentRunner.class.getModule().isNamed(), "codex-client-agent's module");
    }
}

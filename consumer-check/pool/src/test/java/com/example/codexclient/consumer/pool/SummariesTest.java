package com.example.codexclient.consumer.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.codexclient.CodexClient;
import dev.codexclient.pool.CodexPool;
import dev.codexclient.pool.MemberStats;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SummariesTest {
    @Test
    void aServiceWrittenAgainstTheFaceRunsOnAPoolOfTwo() {
        try (FakeCodexAppServer a = new FakeCodexAppServer(); FakeCodexAppServer b = new FakeCodexAppServer()) {
            a.onTurnStart(t -> t.agentMessage("from a").completed());
            b.onTurnStart(t -> t.agentMessage("from b").completed());
            try (CodexPool pool = CodexPool.builder()
                    .member("a", () -> CodexClient.builder().transportFactory(a::connectInMemory)
                            .requestTimeout(Duration.ofSeconds(10)).build())
                    .member("b", () -> CodexClient.builder().transportFactory(b::connectInMemory)
                            .requestTimeout(Duration.ofSeconds(10)).build())
                    .build()) {
                Summaries summaries = new Summaries(pool);
                assertEquals("from a", summaries.summarise("/work/one"));
                assertEquals("from b", summaries.summarise("/work/two"));
                assertEquals(List.of(1, 1), pool.stats().stream().map(MemberStats::threads).toList());
            }
        }
        boolean named = Boolean.getBoolean("consumer.namedModule");
        assertEquals(named, Summaries.class.getModule().isNamed(), "the consumer's module");
        assertEquals(named, CodexPool.class.getModule().isNamed(), "codex-client-pool's module");
    }
}

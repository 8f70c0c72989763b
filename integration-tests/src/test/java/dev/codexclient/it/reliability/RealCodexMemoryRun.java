package dev.codexclient.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.it.RealCodexFixture;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The memory figure of docs/RELIABILITY.md: the resident memory of the app-server process trees for 20 threads on
 * one app-server against one app-server per thread, each thread having run one turn. Not in the default run:
 * {@code mvn -B -q -pl integration-tests -am verify -Dmemory=true -Dtest=RealCodexMemoryRun
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@EnabledIfSystemProperty(named = "memory", matches = "true")
@Timeout(600)
class RealCodexMemoryRun {
    private static final int THREADS = 20;
    private static final Duration TURN = Duration.ofSeconds(60);

    @Test
    void twentyThreadsOnOneServerAgainstOneServerEach() throws Exception {
        try (RealCodexFixture codex = new RealCodexFixture()) {
            codex.model.whenAlways(r -> true, ModelStep.reply("ok"));
            long shared;
            try (CodexClient client = codex.clientBuilder().build()) {
                for (int i = 0; i < THREADS; i++) {
                    CodexThread t = client.startThread(codex.threadParams().build());
                    assertThat(t.startTurn("hello").await(TURN).status()).isEqualTo(TurnStatus.COMPLETED);
                }
                shared = treeRss(client.serverProcess().orElseThrow());
            }
            long separate = 0;
            List<CodexClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < THREADS; i++) {
                    CodexClient client = codex.clientBuilder().build();
                    clients.add(client);
                    CodexThread t = client.startThread(codex.threadParams().build());
                    assertThat(t.startTurn("hello").await(TURN).status()).isEqualTo(TurnStatus.COMPLETED);
                }
                for (CodexClient c : clients) {
                    separate += treeRss(c.serverProcess().orElseThrow());
                }
            } finally {
                clients.forEach(CodexClient::close);
            }
            System.out.printf("memory: %d threads on one app-server: %d MiB RSS; one app-server per thread: %d MiB "
                    + "RSS (%d MiB each); ratio %.1f%n", THREADS, shared >> 20, separate >> 20,
                    (separate / THREADS) >> 20, (double) separate / shared);
        }
    }

    /** The resident memory of a process and its descendants (the native binary, and the npm launcher when it runs). */
    private static long treeRss(ProcessHandle root) throws IOException {
        long total = rss(root.pid());
        for (ProcessHandle p : (Iterable<ProcessHandle>) root.descendants()::iterator) {
            total += rss(p.pid());
        }
        return total;
    }

    private static long rss(long pid) throws IOException {
        Path status = Path.of("/proc", Long.toString(pid), "status");
        if (!Files.exists(status)) {
            return 0;
        }
        try (Stream<String> lines = Files.lines(status)) {
            return lines.filter(l -> l.startsWith("VmRSS:")).findFirst()
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024).orElse(0L);
        }
    }
}

package dev.codexclient.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.testkit.internal.fake.Json;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fake behind a real child process: stdio pipes, exit codes and stderr are the operating system's. */
class ChildProcessRelayTest {
    private final FakeCodexAppServer fake = new FakeCodexAppServer();
    private RawClient client;

    @AfterEach
    void tearDown() {
        if (client != null) {
            client.close();
        }
        fake.close();
    }

    private RawClient spawn() throws IOException {
        List<String> command = fake.childProcessCommand();
        assertThat(command.get(0)).endsWith("java");
        client = RawClient.child(command);
        fake.awaitConnections(1, Duration.ofSeconds(10));
        return client;
    }

    @Test
    void fullTurnWithApprovalOverRealPipes() throws Exception {
        fake.onTurnStart(turn -> turn.agentMessage("Deleting…")
                .commandApproval("rm -rf /", reply -> assertThat(reply.decision()).contains("decline"))
                .completed());
        RawClient c = spawn();
        c.initialize();
        String threadId = c.startThread();
        c.result("turn/start", Map.of("threadId", threadId, "input", List.of()));
        JsonNode approval = c.serverRequest("item/commandExecution/requestApproval");
        c.send(Json.parseUnchecked("{\"id\":" + approval.path("id").asLong()
                + ",\"result\":{\"decision\":\"decline\"}}"));
        assertThat(c.notification("turn/completed").path("params").path("turn").path("status").asText())
                .isEqualTo("completed");
        fake.verifyNoFailures();
        assertThat(fake.takeRequest("turn/start", RawClient.WAIT).params().path("threadId").asText())
                .isEqualTo(threadId);

        // Like codex: closing stdin ends the process.
        c.closeStdin();
        assertThat(c.process().waitFor(5, TimeUnit.SECONDS)).isTrue();
        assertThat(c.process().exitValue()).isZero();
    }

    @Test
    void faultsThatNeedAProcess() throws Exception {
        RawClient c = spawn();
        c.initialize();
        fake.apply(Fault.slowFragments(3, Duration.ofMillis(15)));
        assertThat(c.notification("warning").path("params").path("message").asText())
                .isEqualTo("fragmented ✓ – naïve café 🎉 done");
        // the line really arrived in several reads
        assertThat(c.chunkSizes().stream().filter(n -> n <= 3).count()).isGreaterThan(3);

        fake.apply(Fault.floodStderr(4L * 1024 * 1024));
        fake.apply(Fault.hugeLine(2 * 1024 * 1024));
        assertThat(c.notification("warning").path("params").path("message").asText().length())
                .isGreaterThan(2 * 1024 * 1024 - 200);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.stderrBytes() < 4L * 1024 * 1024 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(c.stderrBytes()).isGreaterThanOrEqualTo(4L * 1024 * 1024);

        fake.apply(Fault.closeStdout());
        assertThat(c.awaitEof(RawClient.WAIT)).isTrue();
        assertThat(c.process().isAlive()).isTrue();
        c.request("thread/start", Map.of());
        assertThat(fake.takeRequest("thread/start", RawClient.WAIT)).isNotNull();

        fake.apply(Fault.exit(7));
        assertThat(c.process().waitFor(5, TimeUnit.SECONDS)).isTrue();
        assertThat(c.process().exitValue()).isEqualTo(7);
    }

    @Test
    void aHungServerStopsAnsweringAndOutlivesItsStdinUntilASignal() throws Exception {
        RawClient c = spawn();
        c.initialize();
        fake.apply(Fault.hang());
        c.request("thread/start", Map.of());
        assertThat(fake.takeRequest("thread/start", RawClient.WAIT)).isNotNull();
        // A server request in flight fails on the fake's side once the relay reports the end of its stdin.
        PendingServerRequest inFlight = fake.sendRequest("currentTime/read", Map.of("threadId", "t"));
        c.closeStdin();
        assertThatThrownBy(() -> inFlight.awaitResponse(RawClient.WAIT)).hasMessageContaining("disconnected");
        // A relay that is not hung exits right after reporting it; this one keeps running ...
        assertThat(c.process().waitFor(1, TimeUnit.SECONDS)).isFalse();
        assertThat(c.awaitEof(Duration.ofMillis(1))).isFalse();
        // ... until a signal ends it.
        c.process().destroy();
        assertThat(c.process().waitFor(5, TimeUnit.SECONDS)).isTrue();
        assertThat(c.process().exitValue()).isEqualTo(143);   // 128 + SIGTERM
    }

    @Test
    void theRelayDiesWithTheFake() throws Exception {
        RawClient c = spawn();
        c.initialize();
        fake.close();
        assertThat(c.process().waitFor(5, TimeUnit.SECONDS)).isTrue();
        assertThat(c.awaitEof(RawClient.WAIT)).isTrue();
    }

    @Test
    void aRelayWithTheWrongTokenIsRejected() throws Exception {
        List<String> command = new java.util.ArrayList<>(fake.childProcessCommand());
        command.set(command.size() - 1, "not-the-token");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(70);
            assertThat(fake.connectionCount()).isZero();
        } finally {
            p.destroyForcibly();
        }
    }
}

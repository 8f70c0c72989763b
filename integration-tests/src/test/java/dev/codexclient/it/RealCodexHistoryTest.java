package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.RestartPolicy;
import dev.codexclient.Subscription;
import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadHistoryMode;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.telemetry.RestartCompleted;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.WireRecorder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the pinned codex stores a thread's history, and what the client does with it: a thread the client starts is
 * paginated without the client asking (codex's own default since 0.160.0; the client sends no {@code historyMode}),
 * and a thread compacted with {@link CodexThread#compactAndAwait(Duration)} takes its next turn at once, has a
 * compaction checkpoint on disk (what a resume reads back to), and is resumed from it after a SIGKILL.
 */
@Tag("real-codex")
@Timeout(300)
class RealCodexHistoryTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aThreadTheClientStartsIsPaginatedWithoutTheClientAskingForIt(@TempDir Path wire) throws Exception {
        try (RealCodexFixture codex = new RealCodexFixture()) {
            codex.model.whenAlways(r -> true, ModelStep.reply("noted"));
            Path file = wire.resolve("wire.jsonl");
            try (CodexClient client = CodexClient.builder()
                    .transportFactory(() -> WireRecorder.wrap(codex.stdioTransport().build(), file))
                    .requestTimeout(Duration.ofSeconds(30))
                    .build()) {
                CodexThread thread = client.startThread(codex.threadParams().build());
                thread.startTurn("hello").await(WAIT);
                assertThat(thread.info().historyMode()).isEqualTo(ThreadHistoryMode.PAGINATED);
                assertThat(thread.read().historyMode()).isEqualTo(ThreadHistoryMode.PAGINATED);
            }
            JsonNode start = sent(file).filter(m -> m.path("method").asText().equals("thread/start")).findFirst()
                    .orElseThrow();
            assertThat(start.path("params").has("historyMode")).as("%s", start).isFalse();
        }
    }

    @Test
    void aCompactedThreadTakesItsNextTurnAtOnceAndIsResumedFromItsCheckpointAfterAKill() throws Exception {
        try (RealCodexFixture codex = new RealCodexFixture()) {
            codex.model.whenAlways(r -> true, ModelStep.reply("noted"));
            RestartPolicyTest.Recorder events = new RestartPolicyTest.Recorder();
            try (CodexClient client = codex.client(b -> b.telemetryListener(events)
                    .restartPolicy(RestartPolicy.builder().maxAttempts(3)
                            .backoff(Duration.ofMillis(50), Duration.ofSeconds(1)).build()))) {
                CodexThread thread = client.startThread(codex.threadParams().build());
                for (int i = 0; i < 3; i++) {
                    thread.startTurn("turn " + i).await(WAIT);
                }

                thread.compactAndAwait(WAIT);
                // Started right after: codex would refuse it while it still compacted (ActiveTurnNotSteerable).
                assertThat(thread.startTurn("after the compaction").await(WAIT).status())
                        .isEqualTo(TurnStatus.COMPLETED);
                assertThat(checkpoints(codex.model.codexHome(), thread.id())).isEqualTo(1);

                // Inside a listener of the thread the wait could never end; the async form works there.
                CompletableFuture<Throwable> refused = new CompletableFuture<>();
                CompletableFuture<Void> compactedFromListener = new CompletableFuture<>();
                Subscription listening = thread.onEvent(n -> {
                    if (n instanceof ServerNotification.TurnCompleted && !refused.isDone()) {
                        try {
                            thread.compactAndAwait(WAIT);
                            refused.complete(null);
                        } catch (RuntimeException e) {
                            refused.complete(e);
                        }
                        thread.compactAndAwaitAsync().whenComplete((v, e) -> {
                            if (e == null) {
                                compactedFromListener.complete(null);
                            } else {
                                compactedFromListener.completeExceptionally(e);
                            }
                        });
                    }
                });
                thread.startTurn("one more").await(WAIT);
                assertThat(refused.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                        .isInstanceOf(CodexDeadlockException.class);
                compactedFromListener.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(checkpoints(codex.model.codexHome(), thread.id())).isEqualTo(2);

                // The restart resumes the held thread from its last checkpoint; the conversation goes on.
                client.serverProcessTree().forEach(ProcessHandle::destroyForcibly);
                RestartCompleted restarted = events.future(RestartCompleted.class).get(WAIT.toSeconds(),
                        TimeUnit.SECONDS);
                assertThat(restarted.threadsResumed()).isEqualTo(1);
                assertThat(thread.startTurn("after the restart").await(WAIT).finalText()).isEqualTo("noted");
                listening.close();
            }
        }
    }

    /** The compaction checkpoints codex wrote into the thread's rollout file under {@code codexHome}. */
    private static long checkpoints(Path codexHome, String threadId) throws IOException {
        Path rollout;
        try (Stream<Path> files = Files.walk(codexHome.resolve("sessions"))) {
            rollout = files.filter(f -> f.getFileName().toString().endsWith(threadId + ".jsonl")).findFirst()
                    .orElseThrow();
        }
        long count = 0;
        for (String line : Files.readAllLines(rollout)) {
            if (JSON.readTree(line).path("type").asText().equals("compacted")) {
                count++;
            }
        }
        return count;
    }

    private static Stream<JsonNode> sent(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        return lines.stream().map(l -> {
            try {
                return JSON.readTree(l);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).filter(m -> m.path("dir").asText().equals("sent")).map(m -> m.path("message"));
    }
}

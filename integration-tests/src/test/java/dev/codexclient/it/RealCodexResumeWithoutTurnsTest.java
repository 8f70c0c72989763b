package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.CodexVersion;
import dev.codexclient.RestartPolicy;
import dev.codexclient.Subscription;
import dev.codexclient.errors.CodexServerRestartedException;
import dev.codexclient.telemetry.RestartCompleted;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.WireRecorder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The real app-server SIGKILLed with two threads held, one idle with a few turns behind it and one with a turn
 * running: the restart resumes both without their turns where the server can leave them out (codex 0.151.0 and
 * later without {@code experimentalApi}), lists the latest turns of the one with the running turn only, settles that
 * turn with {@link CodexServerRestartedException}, and the history survives ({@code thread/read}). On servers that
 * cannot (0.98.0, 0.120.0) it resumes them with their turns, as before. Seen on the wire, between client and server.
 */
@Tag("real-codex")
@Timeout(300)
class RealCodexResumeWithoutTurnsTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    static List<String> versions() {
        return CompatVersions.configuredOrPinned();
    }

    @ParameterizedTest(name = "codex {0}")
    @MethodSource("versions")
    void heldThreadsAreResumedWithoutTheirTurnsAndOnlyARunningTurnsThreadListsItsLatest(String version,
            @TempDir Path wire) throws Exception {
        boolean leavesOut = CodexVersion.parse(version).isAtLeast("0.151.0");
        try (RealCodexFixture codex = new RealCodexFixture(CodexBinary.version(version))) {
            codex.model.whenAlways(r -> r.lastUserText().startsWith("turn "), ModelStep.reply("noted"));
            codex.model.whenAlways(r -> r.lastUserText().equals("long work"), ModelStep.stall(Duration.ofMinutes(5)));
            codex.model.whenAlways(r -> r.lastUserText().equals("after the restart"), ModelStep.reply("back"));
            // Each connection's messages in a file of its own: connection-1.jsonl, connection-2.jsonl, …
            AtomicInteger connections = new AtomicInteger();
            RestartPolicyTest.Recorder events = new RestartPolicyTest.Recorder();
            try (CodexClient client = CodexClient.builder()
                    .transportFactory(() -> WireRecorder.wrap(codex.stdioTransport().build(),
                            wire.resolve("connection-" + connections.incrementAndGet() + ".jsonl")))
                    .restartPolicy(RestartPolicy.builder().maxAttempts(3)
                            .backoff(Duration.ofMillis(50), Duration.ofSeconds(1)).build())
                    .telemetryListener(events)
                    .requestTimeout(Duration.ofSeconds(30))
                    .build()) {
                CodexThread idle = client.startThread(codex.threadParams().build());
                for (int i = 0; i < 3; i++) {
                    assertThat(idle.startTurn("turn " + i).await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
                }
                Subscription hold = idle.onEvent(n -> { });
                CodexThread busy = client.startThread(codex.threadParams().build());
                busy.startTurn("turn before").await(WAIT);
                CodexTurn running = busy.startTurn("long work");
                ClientTestSupport.awaitCondition("the model is asked for the long work", WAIT,
                        () -> codex.model.requests().stream().anyMatch(r -> r.lastUserText().equals("long work")));
                ClientTestSupport.awaitCondition("the running turn is named", WAIT,
                        () -> running.id() != null && !running.id().isEmpty());

                client.serverProcessTree().forEach(ProcessHandle::destroyForcibly);
                RestartCompleted restarted = events.future(RestartCompleted.class).get(WAIT.toSeconds(),
                        TimeUnit.SECONDS);
                assertThat(restarted.threadsResumed()).isEqualTo(2);

                try {
                    running.result().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    throw new AssertionError("the running turn completed on a server that lost it");
                } catch (ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(CodexServerRestartedException.class);
                }

                // The connection of the restart: the last one opened (an attempt may have failed before it).
                List<JsonNode> replaced = messages(wire.resolve("connection-" + connections.get() + ".jsonl"));
                List<JsonNode> restartRequests = replaced.stream().filter(m -> m.path("dir").asText().equals("sent"))
                        .map(m -> m.path("message")).toList();
                List<JsonNode> restartResponses = replaced.stream()
                        .filter(m -> m.path("dir").asText().equals("received") && !m.path("message").has("method"))
                        .map(m -> m.path("message")).toList();
                List<JsonNode> resumes = restartRequests.stream()
                        .filter(m -> m.path("method").asText().equals("thread/resume")).toList();
                assertThat(resumes).extracting(m -> m.path("params").path("threadId").asText())
                        .containsExactlyInAnyOrder(idle.id(), busy.id());
                assertThat(resumes).allSatisfy(m -> assertThat(m.path("params").path("excludeTurns").asBoolean())
                        .isEqualTo(leavesOut));
                List<JsonNode> lists = restartRequests.stream()
                        .filter(m -> m.path("method").asText().equals("thread/turns/list")).toList();
                List<JsonNode> answers = restartResponses.stream()
                        .filter(m -> resumes.stream().anyMatch(r -> r.path("id").equals(m.path("id")))).toList();
                assertThat(answers).hasSize(2);
                if (leavesOut) {
                    assertThat(answers).allSatisfy(a -> assertThat(a.path("result").path("thread").path("turns"))
                            .isEmpty());
                    assertThat(lists).singleElement().satisfies(m -> {
                        assertThat(m.path("params").path("threadId").asText()).isEqualTo(busy.id());
                        assertThat(m.path("params").path("limit").asInt()).isEqualTo(5);
                    });
                    JsonNode page = restartResponses.stream()
                            .filter(m -> m.path("id").equals(lists.get(0).path("id"))).findFirst().orElseThrow();
                    assertThat(page.path("result").path("data")).as("the latest turns: %s", page).isNotEmpty();
                } else {
                    assertThat(lists).isEmpty();
                    assertThat(answers).anySatisfy(a -> assertThat(a.path("result").path("thread").path("turns"))
                            .hasSize(3));
                }

                // The history is whole; the threads go on.
                assertThat(idle.read().turns()).hasSize(3);
                assertThat(idle.startTurn("after the restart").await(WAIT).finalText()).isEqualTo("back");
                assertThat(busy.startTurn("after the restart").await(WAIT).finalText()).isEqualTo("back");
                hold.close();
            }
        }
    }

    @ParameterizedTest(name = "codex {0}")
    @MethodSource("versions")
    void aThreadResumedByIdHasItsTurnsAndOneResumedWithoutThemGoesOnWithoutThemInTheAnswer(String version) {
        boolean leavesOut = CodexVersion.parse(version).isAtLeast("0.151.0");
        try (RealCodexFixture codex = new RealCodexFixture(CodexBinary.version(version))) {
            codex.model.whenAlways(r -> true, ModelStep.reply("noted"));
            String id;
            try (CodexClient client = codex.client(b -> { })) {
                CodexThread thread = client.startThread(codex.threadParams().build());
                for (int i = 0; i < 3; i++) {
                    thread.startTurn("turn " + i).await(WAIT);
                }
                id = thread.id();
            }
            // A new server, as after a restart of the application.
            try (CodexClient client = codex.client(b -> { })) {
                assertThat(client.resumeThread(id).info().turns()).hasSize(3);
                CodexThread resumed = client.resumeThreadWithoutTurns(id);
                assertThat(resumed.info().turns()).hasSize(leavesOut ? 0 : 3);
                assertThat(resumed.read().turns()).hasSize(3);
                assertThat(resumed.startTurn("and on").await(WAIT).finalText()).isEqualTo("noted");
            }
        }
    }

    /** The messages a {@link WireRecorder} wrote: {@code {"dir": "sent" | "received", "message": {…}}} each. */
    private static List<JsonNode> messages(Path file) throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            lines.add(JSON.readTree(line));
        }
        return lines;
    }
}

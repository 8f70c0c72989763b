package dev.codexclient.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.testkit.internal.fake.Json;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayTest {
    @TempDir
    Path dir;

    /** Records a session: handshake, a thread, a turn with an approval, over a recorded in-memory transport. */
    private Path record() throws Exception {
        Path file = dir.resolve("session.jsonl");
        try (FakeCodexAppServer live = new FakeCodexAppServer()) {
            live.onTurnStart(turn -> turn.agentMessage("Hi there")
                    .commandApproval("make", reply -> { })
                    .completed());
            WireRecorder recorder = WireRecorder.wrap(live.connectInMemory(), file);
            List<JsonNode> inbox = new CopyOnWriteArrayList<>();
            recorder.start(new MessageSink() {
                @Override
                public void onMessages(MessageBuffer messages) {
                    for (int i = 0; i < messages.count(); i++) {
                        onMessage(messages.copy(i));
                    }
                }

                void onMessage(byte[] message) {
                    JsonNode node = Json.parseUnchecked(new String(message, StandardCharsets.UTF_8));
                    inbox.add(node);
                    if (node.path("method").asText().equals("item/commandExecution/requestApproval")) {
                        recorder.send(("{\"id\":" + node.path("id") + ",\"result\":{\"decision\":\"accept\"}}")
                                .getBytes(StandardCharsets.UTF_8));
                    }
                }

                @Override
                public void onClosed(TransportTermination termination) {
                }
            });
            send(recorder, "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"r\","
                    + "\"version\":\"1\"}}}");
            send(recorder, "{\"method\":\"initialized\"}");
            send(recorder, "{\"id\":2,\"method\":\"thread/start\",\"params\":{}}");
            await(inbox, m -> m.path("id").asInt() == 2 && m.has("result"));
            String threadId = inbox.stream().filter(m -> m.path("id").asInt() == 2 && m.has("result")).findFirst()
                    .orElseThrow().path("result").path("thread").path("id").asText();
            send(recorder, "{\"id\":3,\"method\":\"turn/start\",\"params\":{\"threadId\":\"" + threadId
                    + "\",\"input\":[]}}");
            await(inbox, m -> m.path("method").asText().equals("turn/completed"));
            await(inbox, m -> m.path("method").asText().equals("thread/status/changed")
                    && m.path("params").path("status").path("type").asText().equals("idle"));
            recorder.close();
            live.verifyNoFailures();
        }
        return file;
    }

    private static void send(Transport t, String json) {
        t.send(json.getBytes(StandardCharsets.UTF_8));
    }

    private static void await(List<JsonNode> inbox, java.util.function.Predicate<JsonNode> p)
            throws InterruptedException {
        long deadline = System.nanoTime() + RawClient.WAIT.toNanos();
        while (inbox.stream().noneMatch(p)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out; inbox " + inbox);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void recorderWritesOneLinePerMessage() throws Exception {
        Path file = record();
        List<JsonNode> lines = Files.readAllLines(file).stream().map(Json::parseUnchecked).toList();
        assertThat(lines).allSatisfy(l -> assertThat(l.path("dir").asText()).isIn("sent", "received"));
        assertThat(lines.get(0).path("dir").asText()).isEqualTo("sent");
        assertThat(lines.get(0).path("message").path("method").asText()).isEqualTo("initialize");
        assertThat(lines).anySatisfy(l -> {
            assertThat(l.path("dir").asText()).isEqualTo("received");
            assertThat(l.path("message").path("method").asText()).isEqualTo("turn/completed");
        });
        assertThat(lines).anySatisfy(l -> {
            assertThat(l.path("dir").asText()).isEqualTo("sent");
            assertThat(l.path("message").path("result").path("decision").asText()).isEqualTo("accept");
        });
    }

    @Test
    void replayAnswersWithTheClientsOwnIds() throws Exception {
        Path file = record();
        String recordedThread = Files.readAllLines(file).stream().map(Json::parseUnchecked)
                .filter(l -> l.path("message").path("id").asInt() == 2 && l.path("message").has("result"))
                .findFirst().orElseThrow().path("message").path("result").path("thread").path("id").asText();
        try (FakeCodexAppServer replay = FakeCodexAppServer.replay(file);
             RawClient c = RawClient.inMemory(replay)) {
            // different ids than the recording: string ids
            c.sendRaw("{\"id\":\"init-a\",\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"x\","
                    + "\"version\":\"2\"}}}");
            JsonNode init = c.take(m -> m.path("id").asText().equals("init-a"), "initialize response");
            assertThat(init.path("result").has("userAgent")).isTrue();
            c.notifyServer("initialized");
            c.sendRaw("{\"id\":\"t-b\",\"method\":\"thread/start\",\"params\":{}}");
            JsonNode thread = c.take(m -> m.path("id").asText().equals("t-b"), "thread/start response");
            assertThat(thread.path("result").path("thread").path("id").asText()).isEqualTo(recordedThread);
            c.sendRaw("{\"id\":\"u-c\",\"method\":\"turn/start\",\"params\":{\"threadId\":\"" + recordedThread
                    + "\",\"input\":[]}}");
            assertThat(c.take(m -> m.path("id").asText().equals("u-c"), "turn/start response")
                    .path("result").path("turn").path("status").asText()).isEqualTo("inProgress");
            JsonNode approval = c.serverRequest("item/commandExecution/requestApproval");
            // the recorded turn waits for our answer
            assertThat(c.poll(m -> m.path("method").asText().equals("turn/completed"), Duration.ofMillis(150)))
                    .isEmpty();
            c.send(Json.parseUnchecked("{\"id\":" + approval.path("id") + ",\"result\":{\"decision\":\"accept\"}}"));
            assertThat(c.notification("serverRequest/resolved").path("params").path("requestId"))
                    .isEqualTo(approval.path("id"));
            assertThat(c.notification("turn/completed").path("params").path("turn").path("status").asText())
                    .isEqualTo("completed");
            assertThat(c.all("item/agentMessage/delta")).isNotEmpty();
            c.notification("thread/status/changed");
            replay.verifyNoFailures();
        }
    }

    @Test
    void aDivergingClientIsReported() throws Exception {
        Path file = record();
        try (FakeCodexAppServer replay = FakeCodexAppServer.replay(file, Duration.ofMillis(300));
             RawClient c = RawClient.inMemory(replay)) {
            c.sendRaw("{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"x\","
                    + "\"version\":\"2\"}}}");
            c.response(1);
            c.notifyServer("initialized");
            // the recording expects thread/start; this client asks for something else
            c.sendRaw("{\"id\":2,\"method\":\"model/list\",\"params\":{}}");
            // the replay gives up on thread/start and answers the request it has no answer for with an error
            assertThat(c.response(2).path("error").path("code").asInt()).isEqualTo(-32603);
            assertThat(replay.failures()).hasSize(2);
            assertThat(replay.failures().get(0)).hasMessageContaining("diverged")
                    .hasMessageContaining("thread/start");
            assertThat(replay.failures().get(1)).hasMessageContaining("no answer for the client's model/list");
        }
    }

    @Test
    void rawLinesAreReplayedAndBadFilesRejected() throws Exception {
        Path file = dir.resolve("raw.jsonl");
        Files.writeString(file, String.join("\n",
                "{\"dir\":\"sent\",\"message\":{\"id\":5,\"method\":\"initialize\",\"params\":{}}}",
                "{\"dir\":\"received\",\"raw\":\"garbage <html>\"}",
                "{\"dir\":\"received\",\"message\":{\"id\":5,\"result\":{\"userAgent\":\"u\"}}}",
                ""));
        try (FakeCodexAppServer replay = FakeCodexAppServer.replay(file);
             RawClient c = RawClient.inMemory(replay)) {
            long id = c.request("initialize", Map.of());
            assertThat(c.take(JsonNode::isTextual, "raw line").asText()).isEqualTo("garbage <html>");
            assertThat(c.response(id).path("result").path("userAgent").asText()).isEqualTo("u");
        }
        // a response recorded before its own request (a recorder race) is still matched
        Path early = dir.resolve("early.jsonl");
        Files.writeString(early, String.join("\n",
                "{\"dir\":\"received\",\"message\":{\"id\":9,\"result\":{\"userAgent\":\"early\"}}}",
                "{\"dir\":\"sent\",\"message\":{\"id\":9,\"method\":\"initialize\",\"params\":{}}}",
                ""));
        try (FakeCodexAppServer replay = FakeCodexAppServer.replay(early);
             RawClient c = RawClient.inMemory(replay)) {
            long id = c.request("initialize", Map.of());
            assertThat(c.response(id).path("result").path("userAgent").asText()).isEqualTo("early");
            replay.verifyNoFailures();
        }
        Path bad = dir.resolve("bad.jsonl");
        Files.writeString(bad, "{\"dir\":\"sideways\",\"message\":{}}\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> FakeCodexAppServer.replay(bad))
                .isInstanceOf(IOException.class).hasMessageContaining("bad.jsonl:1");
    }
}

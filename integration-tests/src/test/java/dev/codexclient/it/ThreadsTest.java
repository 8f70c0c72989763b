package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.protocol.DynamicToolSpec;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.protocol.ThreadReadParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.RecordedRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Thread operations of the client API: start, resume, fork, read, name, archive, compact, unsubscribe, list. */
@ExtendWith(CodexTestExtension.class)
class ThreadsTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    record Lookup(String key) {
    }

    @Test
    void compactAndAwaitEndsWithTheCompactionTurnAndNeverWaitsPastTheClientsClose(FakeCodexAppServer fake)
            throws Exception {
        try (CodexClient client = inMemory(fake).build()) {
            CodexThread thread = client.startThread();
            String id = thread.id();
            java.util.concurrent.CompletableFuture<Void> compaction = thread.compactAndAwaitAsync();
            assertThat(fake.takeRequest("thread/compact/start", WAIT).params().path("threadId").asText())
                    .isEqualTo(id);
            // A turn that ended before codex started compacting is not the compaction's.
            fake.notify("turn/completed", Map.of("threadId", id, "turn", turn("earlier", "completed")));
            fake.notify("turn/started", Map.of("threadId", id, "turn", turn("compaction", "inProgress")));
            fake.notify("turn/completed", Map.of("threadId", id, "turn", turn("compaction", "completed")));
            compaction.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);

            // A compaction that failed fails the wait.
            java.util.concurrent.CompletableFuture<Void> failing = thread.compactAndAwaitAsync();
            fake.takeRequest("thread/compact/start", WAIT);
            fake.notify("turn/started", Map.of("threadId", id, "turn", turn("second", "inProgress")));
            fake.notify("turn/completed", Map.of("threadId", id, "turn", turn("second", "failed")));
            org.assertj.core.api.Assertions.assertThatThrownBy(
                    () -> failing.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                    .hasCauseInstanceOf(dev.codexclient.errors.CodexException.class)
                    .hasMessageContaining("ended FAILED");

            // One that never ends fails when the client closes, instead of waiting for ever.
            java.util.concurrent.CompletableFuture<Void> unfinished = thread.compactAndAwaitAsync();
            fake.takeRequest("thread/compact/start", WAIT);
            client.close();
            org.assertj.core.api.Assertions.assertThatThrownBy(
                    () -> unfinished.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                    .hasCauseInstanceOf(dev.codexclient.errors.CodexException.class);
        }
    }

    private static Map<String, Object> turn(String id, String status) {
        return Map.of("id", id, "status", status, "items", List.of());
    }

    @Test
    void startThreadAppendsTheClientsDynamicToolsToThoseOfTheParams(FakeCodexAppServer fake) throws Exception {
        ObjectNode schema = ProtocolJson.mapper().createObjectNode().put("type", "object");
        DynamicToolSpec own = new DynamicToolSpec.Function(null, "declared on the params", schema, "own_tool");
        try (CodexClient client = inMemory(fake).experimentalApi(true)
                .tool(DynamicTool.of("lookup", "Looks a key up", Lookup.class, a -> ToolResult.text(a.key())))
                .tool(DynamicTool.ofJson("echo", "Echoes", schema, args -> ToolResult.text(args.toString())))
                .build()) {
            CodexThread thread = client.startThread(ThreadStartParams.builder().model("gpt-5.1-codex")
                    .dynamicTools(List.of(own)).build());
            assertThat(thread.id()).isNotBlank();
            RecordedRequest start = fake.takeRequest("thread/start", WAIT);
            assertThat(start.params().path("model").asText()).isEqualTo("gpt-5.1-codex");
            JsonNode tools = start.params().path("dynamicTools");
            assertThat(tools).extracting(t -> t.path("name").asText()).containsExactly("own_tool", "lookup", "echo");
            JsonNode lookup = tools.get(1);
            assertThat(lookup.path("type").asText()).isEqualTo("function");
            assertThat(lookup.path("description").asText()).isEqualTo("Looks a key up");
            assertThat(lookup.path("inputSchema").path("type").asText()).isEqualTo("object");
            assertThat(lookup.path("inputSchema").path("properties").has("key")).isTrue();
            assertThat(lookup.path("inputSchema").path("required")).extracting(JsonNode::asText)
                    .containsExactly("key");
        }
    }

    @Test
    void startThreadWithoutToolsSendsNoDynamicTools(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            client.startThread();
            assertThat(fake.takeRequest("thread/start", WAIT).params().has("dynamicTools")).isFalse();
        }
    }

    @Test
    void threadOperationsSendTheirRequests(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            CodexThread thread = client.startThread();
            String id = thread.id();

            CodexThread resumed = client.resumeThread(id);
            assertThat(resumed.id()).isEqualTo(id);
            assertThat(fake.takeRequest("thread/resume", WAIT).params().path("threadId").asText()).isEqualTo(id);

            CodexThread fork = thread.fork();
            assertThat(fork.id()).isNotEqualTo(id);
            assertThat(fork.info().forkedFromId()).isEqualTo(id);
            assertThat(fake.takeRequest("thread/fork", WAIT).params().path("threadId").asText()).isEqualTo(id);
            CodexThread forkById = client.forkThread(id);
            assertThat(forkById.id()).isNotIn(id, fork.id());

            thread.setName("release notes");
            RecordedRequest name = fake.takeRequest("thread/name/set", WAIT);
            assertThat(name.params().path("threadId").asText()).isEqualTo(id);
            assertThat(name.params().path("name").asText()).isEqualTo("release notes");

            ThreadInfo read = thread.read();
            assertThat(read.id()).isEqualTo(id);
            assertThat(read.name()).isEqualTo("release notes");
            assertThat(thread.info().name()).isEqualTo("release notes");
            RecordedRequest readRequest = fake.takeRequest("thread/read", WAIT);
            assertThat(readRequest.params().path("includeTurns").asBoolean()).isTrue();

            thread.archive();
            assertThat(fake.takeRequest("thread/archive", WAIT).params().path("threadId").asText()).isEqualTo(id);
            assertThat(client.listThreads()).extracting(ThreadInfo::id).doesNotContain(id);
            assertThat(client.listThreads(ThreadListParams.builder().archived(true).build()))
                    .extracting(ThreadInfo::id).containsExactly(id);
            thread.unarchive();
            assertThat(fake.takeRequest("thread/unarchive", WAIT).params().path("threadId").asText())
                    .isEqualTo(id);
            assertThat(client.listThreads()).extracting(ThreadInfo::id).contains(id);

            thread.compact();
            assertThat(fake.takeRequest("thread/compact/start", WAIT).params().path("threadId").asText())
                    .isEqualTo(id);

            fake.on("thread/revert").respond(Map.of("thread", thread.info()));
            ThreadInfo reverted = thread.revertTo("turn-7");
            JsonNode revert = fake.takeRequest("thread/revert", WAIT).params();
            assertThat(revert.path("threadId").asText()).isEqualTo(id);
            assertThat(revert.path("beforeTurnId").asText()).isEqualTo("turn-7");
            assertThat(reverted.id()).isEqualTo(id);
            assertThat(thread.info()).isEqualTo(reverted);

            thread.unsubscribe();
            assertThat(fake.takeRequest("thread/unsubscribe", WAIT).params().path("threadId").asText())
                    .isEqualTo(id);
        }
    }

    @Test
    void threadOperationOnAnUnknownThreadFailsTyped(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            Throwable failure = ClientTestSupport.failureOf(client.rpc().threadRead(
                    ThreadReadParams.builder().threadId("no-such-thread").build()), WAIT);
            assertThat(failure).isInstanceOfSatisfying(CodexRpcException.class, e -> {
                        assertThat(e.method()).hasValue("thread/read");
                        assertThat(e.serverMessage()).contains("no-such-thread");
                    });
        }
    }

    @Test
    void listThreadsFollowsNextCursorAcrossThreePages(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            List<ThreadInfo> all = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                all.add(client.startThread().info());
            }
            fake.on("thread/list", r -> !r.params().has("cursor")).respond(page(all.subList(0, 2), "c1"));
            fake.on("thread/list", r -> r.params().path("cursor").asText().equals("c1"))
                    .respond(page(all.subList(2, 4), "c2"));
            fake.on("thread/list", r -> r.params().path("cursor").asText().equals("c2"))
                    .respond(page(all.subList(4, 5), null));

            List<String> listed = new ArrayList<>();
            for (ThreadInfo t : client.listThreads(ThreadListParams.builder().limit(2L).build())) {
                listed.add(t.id());
            }
            assertThat(listed).containsExactlyElementsOf(all.stream().map(ThreadInfo::id).toList());
            List<RecordedRequest> calls = fake.requests().stream()
                    .filter(r -> r.method().equals("thread/list")).toList();
            assertThat(calls).hasSize(3);
            assertThat(calls).allSatisfy(r -> assertThat(r.params().path("limit").asLong()).isEqualTo(2));
            assertThat(calls).extracting(r -> r.params().path("cursor").asText(""))
                    .containsExactly("", "c1", "c2");
        }
    }

    @Test
    void listAllThreadsAndItsAsyncTwinBothFetchEveryPage(FakeCodexAppServer fake) throws Exception {
        try (CodexClient client = inMemory(fake).build()) {
            List<ThreadInfo> all = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                all.add(client.startThread().info());
            }
            fake.on("thread/list", r -> !r.params().has("cursor")).always().respond(page(all.subList(0, 2), "c1"));
            fake.on("thread/list", r -> r.params().path("cursor").asText().equals("c1")).always()
                    .respond(page(all.subList(2, 3), null));
            ThreadListParams twoPerPage = ThreadListParams.builder().limit(2L).build();
            List<String> ids = all.stream().map(ThreadInfo::id).toList();

            assertThat(client.listAllThreads(twoPerPage)).extracting(ThreadInfo::id).containsExactlyElementsOf(ids);
            assertThat(client.listAllThreadsAsync(twoPerPage).get(5, TimeUnit.SECONDS)).extracting(ThreadInfo::id)
                    .containsExactlyElementsOf(ids);
            @SuppressWarnings("removal")
            List<ThreadInfo> byFormerName = client.listThreadsAsync(twoPerPage).get(5, TimeUnit.SECONDS);
            assertThat(byFormerName).extracting(ThreadInfo::id).containsExactlyElementsOf(ids);
            assertThat(fake.requests().stream().filter(r -> r.method().equals("thread/list"))).hasSize(6);
        }
    }

    @Test
    void listThreadsIsLazyAndStopsOnAnEmptyCursor(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).build()) {
            ThreadInfo only = client.startThread().info();
            fake.on("thread/list").respond(page(List.of(only), ""));
            Iterable<ThreadInfo> threads = client.listThreads();
            assertThat(fake.requests()).extracting(RecordedRequest::method).doesNotContain("thread/list");
            assertThat(threads).extracting(ThreadInfo::id).containsExactly(only.id());
            assertThat(fake.requests().stream().filter(r -> r.method().equals("thread/list"))).hasSize(1);
        }
    }

    private static Map<String, Object> page(List<ThreadInfo> threads, String nextCursor) {
        Map<String, Object> page = new HashMap<>();
        page.put("data", threads);
        page.put("nextCursor", nextCursor);
        page.put("backwardsCursor", null);
        return page;
    }
}

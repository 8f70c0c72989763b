package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.CodexClient;
import dev.codexclient.conversation.CodexConversations;
import dev.codexclient.CodexTurn;
import dev.codexclient.DynamicTool;
import dev.codexclient.Inputs;
import dev.codexclient.ToolResult;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.RecordedRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Conversations on threads: one thread per conversation, turns one after another, a resume after a closing. */
@ExtendWith(CodexTestExtension.class)
class ConversationsTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    private static CompletableFuture<CodexTurn> say(CodexConversations conversations, String conversation, String text,
                                                    List<DynamicTool> tools, List<Boolean> started) {
        return conversations.startTurn(conversation, ThreadStartParams.builder().build(), () -> tools, opened -> {
            started.add(opened.started());
            return opened.thread().turnParams().input(Inputs.text(text)).build();
        });
    }

    private static List<String> methods(FakeCodexAppServer fake) {
        List<String> methods = new ArrayList<>();
        fake.requests().forEach(r -> methods.add(r.method()));
        methods.removeIf(m -> m.equals("initialize"));
        return methods;
    }

    @Test
    void aConversationKeepsItsThreadAndItsTurnsRunOneAfterAnother(FakeCodexAppServer fake) throws Exception {
        CompletableFuture<ToolResult> gate = new CompletableFuture<>();
        ObjectNode schema = ProtocolJson.mapper().createObjectNode().put("type", "object");
        DynamicTool wait = DynamicTool.ofAsync("wait", "Waits for the test", schema, (args, call, mapper) -> gate);
        fake.enqueueTurn(turn -> turn.toolCall("wait", Map.of(), reply -> { }).agentMessage("first").completed());
        fake.enqueueTurn(turn -> turn.agentMessage("second").completed());
        fake.enqueueTurn(turn -> turn.agentMessage("other").completed());
        List<Boolean> started = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake).experimentalApi(true).build();
             CodexConversations conversations = CodexConversations.builder(client).build()) {
            CodexTurn first = say(conversations, "alice", "one", List.of(wait), started).get(5, TimeUnit.SECONDS);
            CompletableFuture<CodexTurn> second = say(conversations, "alice", "two", List.of(wait), started);
            // The second turn waits for the first, which waits for its tool: the second is asked for after the
            // tool's answer, whatever the timing.
            gate.complete(ToolResult.text("released"));
            assertThat(first.await(WAIT).finalText()).isEqualTo("first");
            assertThat(second.get(5, TimeUnit.SECONDS).await(WAIT).finalText()).isEqualTo("second");
            String bobThread = say(conversations, "bob", "three", List.of(), started).get(5, TimeUnit.SECONDS).threadId();

            assertThat(methods(fake)).containsExactly("thread/start", "turn/start", "turn/start", "thread/start",
                    "turn/start");
            int toolAnswer = -1;
            int secondTurn = -1;
            List<JsonNode> received = fake.receivedMessages();
            for (int i = 0; i < received.size(); i++) {
                JsonNode m = received.get(i);
                if (m.path("result").has("success")) {
                    toolAnswer = i;
                }
                if (m.path("method").asText().equals("turn/start") && m.toString().contains("\"two\"")) {
                    secondTurn = i;
                }
            }
            assertThat(toolAnswer).isNotNegative();
            assertThat(secondTurn).isGreaterThan(toolAnswer);
            assertThat(started).containsExactly(true, false, true);
            assertThat(conversations.threadId("alice")).contains(first.threadId());
            assertThat(conversations.threadId("bob")).contains(bobThread).isNotEqualTo(conversations.threadId("alice"));
        }
    }

    @Test
    void aThreadTheServerClosedIsResumedWithItsToolsAndAStoredOneInALaterProcess(FakeCodexAppServer fake)
            throws Exception {
        fake.onTurnStart(turn -> turn.agentMessage("ok").completed());
        List<Boolean> started = new CopyOnWriteArrayList<>();
        CodexConversations.Store store = CodexConversations.Store.inMemory();
        ObjectNode schema = ProtocolJson.mapper().createObjectNode().put("type", "object");
        DynamicTool now = DynamicTool.ofJson("now", "The time", schema, a -> ToolResult.text("noon"));
        String threadId;
        try (CodexClient client = inMemory(fake).experimentalApi(true).build();
             CodexConversations conversations = CodexConversations.builder(client).store(store).build()) {
            CodexTurn first = say(conversations, "c", "one", List.of(now), started).get(5, TimeUnit.SECONDS);
            first.await(WAIT);
            threadId = first.threadId();
            // The closing, then a later notification of the same thread: one thread's notifications are handled in
            // order, so once the later one is seen the client has let go of the closed thread entirely.
            CountDownLatch after = new CountDownLatch(1);
            client.onNotification(n -> {
                if (n instanceof ServerNotification.ThreadNameUpdated) {
                    after.countDown();
                }
            });
            fake.notify("thread/closed", Map.of("threadId", threadId));
            fake.notify("thread/name/updated", Map.of("threadId", threadId, "threadName", "after the closing"));
            assertThat(after.await(5, TimeUnit.SECONDS)).isTrue();
            say(conversations, "c", "two", List.of(now), started).get(5, TimeUnit.SECONDS).await(WAIT);
            assertThat(fake.requestToolCall(threadId, "t", "now", Map.of()).awaitResponse(WAIT).result()
                    .path("success").asBoolean()).isTrue();
        }
        try (CodexClient client = inMemory(fake).experimentalApi(true).build();
             CodexConversations conversations = CodexConversations.builder(client).store(store).build()) {
            assertThat(say(conversations, "c", "three", List.of(now), started).get(5, TimeUnit.SECONDS).threadId())
                    .isEqualTo(threadId);
        }
        assertThat(started).containsExactly(true, false, false);
        List<RecordedRequest> resumes = fake.requests().stream().filter(r -> r.method().equals("thread/resume"))
                .toList();
        assertThat(resumes).hasSize(2).allSatisfy(r -> {
            assertThat(r.params().path("threadId").asText()).isEqualTo(threadId);
            assertThat(r.params().path("excludeTurns").asBoolean()).isTrue();
        });
    }

    @Test
    void pastItsBoundTheLeastRecentlyUsedIdleConversationIsLetGoAndResumedOnItsNextTurn(FakeCodexAppServer fake)
            throws Exception {
        fake.onTurnStart(turn -> turn.agentMessage("ok").completed());
        List<Boolean> started = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake).build();
             CodexConversations conversations = CodexConversations.builder(client).maxConversations(2).build()) {
            for (String who : List.of("a", "b", "c")) {
                say(conversations, who, "hello", List.of(), started).get(5, TimeUnit.SECONDS).await(WAIT);
            }
            assertThat(conversations.size()).isEqualTo(2);
            // "a" was let go of, its thread id kept: its next turn resumes the thread rather than starting one.
            String aThread = conversations.threadId("a").orElseThrow();
            CodexTurn again = say(conversations, "a", "again", List.of(), started).get(5, TimeUnit.SECONDS);
            assertThat(again.threadId()).isEqualTo(aThread);
            assertThat(started).containsExactly(true, true, true, false);
            assertThat(methods(fake)).contains("thread/resume");
            assertThat(conversations.size()).isEqualTo(2);
        }
    }

    /** Takes one part, then asks for nothing more until told. */
    private static final class OneAtATime implements java.util.concurrent.Flow.Subscriber<
            dev.codexclient.conversation.AnswerPart> {
        final List<dev.codexclient.conversation.AnswerPart> parts = new CopyOnWriteArrayList<>();
        final CountDownLatch first = new CountDownLatch(1);
        final CompletableFuture<Void> done = new CompletableFuture<>();
        volatile java.util.concurrent.Flow.Subscription subscription;

        @Override
        public void onSubscribe(java.util.concurrent.Flow.Subscription s) {
            subscription = s;
            s.request(1);
        }

        @Override
        public void onNext(dev.codexclient.conversation.AnswerPart part) {
            parts.add(part);
            first.countDown();
        }

        @Override
        public void onError(Throwable error) {
            done.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            done.complete(null);
        }
    }

    @Test
    void anAnswersStreamHandsOverNoMoreThanItsSubscriberAskedForAndEndsWithTheResult(FakeCodexAppServer fake)
            throws Exception {
        fake.onTurnStart(turn -> turn.agentMessageDeltas("a", "b", "c", "d").completed());
        try (CodexClient client = inMemory(fake).build();
             CodexConversations conversations = CodexConversations.builder(client).build()) {
            CompletableFuture<Void> ended = new CompletableFuture<>();
            client.onNotification(n -> {
                if (n instanceof ServerNotification.TurnCompleted) {
                    ended.complete(null);
                }
            });
            OneAtATime subscriber = new OneAtATime();
            conversations.stream(dev.codexclient.conversation.ConversationTurn.builder(List.of(
                    dev.codexclient.conversation.ConversationMessage.user("go"))).build()).subscribe(subscriber);
            assertThat(subscriber.first.await(5, TimeUnit.SECONDS)).isTrue();
            // The turn ended; the stream still hands over only what was asked for.
            ended.get(5, TimeUnit.SECONDS);
            assertThat(subscriber.done).isNotDone();
            assertThat(subscriber.parts).hasSize(1);
            subscriber.subscription.request(Long.MAX_VALUE);
            subscriber.done.get(5, TimeUnit.SECONDS);
            assertThat(subscriber.parts).hasSize(5);
            assertThat(subscriber.parts.subList(0, 4)).extracting(p -> ((dev.codexclient.conversation.AnswerPart.Text) p)
                    .text()).containsExactly("a", "b", "c", "d");
            assertThat(subscriber.parts.get(4)).isInstanceOfSatisfying(dev.codexclient.conversation.AnswerPart.End.class,
                    e -> assertThat(e.result().finalText()).isEqualTo("abcd"));
        }
    }
}

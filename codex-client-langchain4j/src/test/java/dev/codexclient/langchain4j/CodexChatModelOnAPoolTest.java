package dev.codexclient.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.pool.CodexPool;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The chat model on a {@link CodexPool} of two servers, as on a client: a memory id's thread is placed on one member
 * and stays there, and a failed turn leaves the conversation usable on that member.
 */
class CodexChatModelOnAPoolTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    private static CodexClient client(FakeCodexAppServer fake) {
        return CodexClient.builder().transport(fake.connectInMemory()).requestTimeout(Duration.ofSeconds(10)).build();
    }

    private static ChatResponse say(CodexChatModel model, String text, Object memoryId) {
        return model.chat(model.memoryIdTransformer().apply(ChatRequest.builder().messages(UserMessage.from(text))
                .build(), memoryId));
    }

    private static String threadOf(ChatResponse response) {
        return ((CodexChatResponseMetadata) response.metadata()).threadId();
    }

    private static List<String> inputTexts(FakeCodexAppServer fake) {
        List<String> texts = new ArrayList<>();
        fake.takeRequest("turn/start", WAIT).params().path("input").forEach(i -> texts.add(i.path("text").asText()));
        return texts;
    }

    @Test
    void memoryIdsSpreadOverTheMembersAndEachKeepsItsMemberThroughAFailedTurn() {
        try (FakeCodexAppServer a = new FakeCodexAppServer(); FakeCodexAppServer b = new FakeCodexAppServer()) {
            a.onTurnStart(turn -> turn.agentMessage("a answers").completed());
            b.onTurnStart(turn -> turn.agentMessage("b answers").completed());
            try (CodexPool pool = CodexPool.builder().member("a", () -> client(a)).member("b", () -> client(b))
                    .build();
                 CodexChatModel model = CodexChatModel.builder(pool).build()) {
                ChatResponse first = say(model, "hello", 1);
                ChatResponse other = say(model, "hello", 2);

                assertThat(first.aiMessage().text()).isEqualTo("a answers");
                assertThat(other.aiMessage().text()).isEqualTo("b answers");
                assertThat(threadOf(first)).isEqualTo(a.threadIds().get(0));
                assertThat(threadOf(other)).isEqualTo(b.threadIds().get(0));
                assertThat(inputTexts(a)).containsExactly("hello");

                a.enqueueTurn(turn -> turn.agentMessage("partial").failed("upstream returned 502"));
                assertThatThrownBy(() -> say(model, "run the tests", 1))
                        .isInstanceOf(CodexTurnFailedException.class).hasMessageContaining("502");
                ChatResponse after = say(model, "try again", 1);

                assertThat(after.aiMessage().text()).isEqualTo("a answers");
                assertThat(threadOf(after)).isEqualTo(threadOf(first));
                assertThat(inputTexts(a)).containsExactly("run the tests");
                assertThat(inputTexts(a)).containsExactly("try again");
                assertThat(a.threadIds()).hasSize(1);
                assertThat(b.threadIds()).hasSize(1);
            }
        }
    }
}

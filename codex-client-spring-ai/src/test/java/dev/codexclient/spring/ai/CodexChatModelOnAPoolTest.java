package dev.codexclient.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.pool.CodexPool;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * The chat model on a {@link CodexPool} of two servers, as on a client: a conversation's thread is placed on one
 * member and stays there, its turns run on that member, and a failed turn leaves the conversation usable.
 */
class CodexChatModelOnAPoolTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    private static CodexClient client(FakeCodexAppServer fake) {
        return CodexClient.builder().transport(fake.connectInMemory()).requestTimeout(Duration.ofSeconds(10)).build();
    }

    private static Prompt say(String text, String conversation) {
        return new Prompt(text, ToolCallingChatOptions.builder().toolContext(ChatMemory.CONVERSATION_ID, conversation)
                .build());
    }

    private static List<String> inputTexts(FakeCodexAppServer fake) {
        List<String> texts = new ArrayList<>();
        fake.takeRequest("turn/start", WAIT).params().path("input").forEach(i -> texts.add(i.path("text").asText()));
        return texts;
    }

    @Test
    void conversationsSpreadOverTheMembersAndEachKeepsItsMemberThroughAFailedTurn() {
        try (FakeCodexAppServer a = new FakeCodexAppServer(); FakeCodexAppServer b = new FakeCodexAppServer()) {
            a.onTurnStart(turn -> turn.agentMessage("a answers").completed());
            b.onTurnStart(turn -> turn.agentMessage("b answers").completed());
            try (CodexPool pool = CodexPool.builder().member("a", () -> client(a)).member("b", () -> client(b))
                    .build();
                 CodexChatModel model = CodexChatModel.builder(pool).build()) {
                ChatResponse first = model.call(say("hello", "c1"));
                ChatResponse other = model.call(say("hello", "c2"));

                assertThat(first.getResult().getOutput().getText()).isEqualTo("a answers");
                assertThat(other.getResult().getOutput().getText()).isEqualTo("b answers");
                assertThat(CodexMetadata.threadId(first)).contains(a.threadIds().get(0));
                assertThat(CodexMetadata.threadId(other)).contains(b.threadIds().get(0));
                assertThat(inputTexts(a)).containsExactly("hello");

                // c1's next turn fails on its member; the conversation goes on there, on the same thread.
                a.enqueueTurn(turn -> turn.agentMessage("partial").failed("upstream returned 502"));
                assertThatThrownBy(() -> model.call(say("run the tests", "c1")))
                        .isInstanceOf(CodexTurnFailedException.class).hasMessageContaining("502");
                ChatResponse after = model.call(say("try again", "c1"));

                assertThat(after.getResult().getOutput().getText()).isEqualTo("a answers");
                assertThat(CodexMetadata.threadId(after)).isEqualTo(CodexMetadata.threadId(first));
                assertThat(inputTexts(a)).containsExactly("run the tests");
                assertThat(inputTexts(a)).containsExactly("try again");
                assertThat(a.threadIds()).hasSize(1);
                assertThat(b.threadIds()).hasSize(1);
            }
        }
    }
}

package dev.codexclient.conversation;

import static dev.codexclient.conversation.ConversationMessage.assistant;
import static dev.codexclient.conversation.ConversationMessage.system;
import static dev.codexclient.conversation.ConversationMessage.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.protocol.UserInput;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What of a chat history codex is sent, against what it has seen. */
class TurnInputTest {
    private static List<String> texts(List<UserInput> input) {
        return input.stream().map(i -> ((UserInput.Text) i).text()).toList();
    }

    private static List<String> sent(List<ConversationMessage> history, List<ConversationMessage> seen,
                                     boolean newThread) {
        List<ConversationMessage> dialog = TurnInput.dialog(history);
        return texts(TurnInput.of(dialog, TurnInput.firstUnseen(dialog, seen), newThread));
    }

    @Test
    void aMessageOfAFailedTurnIsNotSentAgainBesideTheNextOne() {
        List<ConversationMessage> seen = List.of(user("one"), assistant("1"), user("fails"));
        assertThat(sent(List.of(system("be brief"), user("one"), assistant("1"), user("fails"), user("two")), seen,
                false)).containsExactly("two");
    }

    @Test
    void theSameTextAskedAgainAfterAFailureIsSent() {
        assertThat(sent(List.of(user("yes"), user("yes")), List.of(user("yes")), false)).containsExactly("yes");
        // Without a memory the prompt is the new message alone, whatever codex saw.
        assertThat(sent(List.of(user("yes")), List.of(user("yes")), false)).containsExactly("yes");
    }

    @Test
    void aWindowThatDroppedTheOldestMessagesStillLinesUp() {
        List<ConversationMessage> seen = List.of(user("a"), assistant("A"), user("b"), assistant("B"), user("c"));
        assertThat(sent(List.of(user("b"), assistant("B"), user("c"), user("d")), seen, false))
                .containsExactly("d");
    }

    @Test
    void anAnswerIsComparedByRoleAloneSinceAStreamedAnswerMayBeKeptOtherwise() {
        List<ConversationMessage> seen = List.of(user("a"), assistant("final text"));
        assertThat(sent(List.of(user("a"), assistant("streamed commentary and final text"), user("b")), seen, false))
                .containsExactly("b");
    }

    @Test
    void withoutARecordTheMessagesAfterTheLastAnswerAreNewAndANewThreadGetsTheRestAsATranscript() {
        assertThat(sent(List.of(user("a"), assistant("A"), user("b"), user("c")), List.of(), false))
                .containsExactly("b", "c");
        assertThat(sent(List.of(user("a"), assistant("A"), user("b")), List.of(), true))
                .containsExactly("The conversation so far:\n\nUser: a\nAssistant: A", "b");
    }

    @Test
    void aHistoryWithNothingNewToAskIsRefused() {
        assertThatThrownBy(() -> sent(List.of(user("a"), assistant("A")), List.of(), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no user message");
    }
}

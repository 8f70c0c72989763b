package dev.codexclient.conversation;

import dev.codexclient.Inputs;
import dev.codexclient.protocol.UserInput;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What of a chat history codex is sent: the user messages it has not seen. Codex's thread is the conversation's
 * memory, so a message codex has seen is never sent again, and one it has not seen is never left out. One job:
 * reading a history against what codex has seen.
 *
 * <p>What codex has seen is the history of the conversation's previous turn and, when it answered, that answer: a
 * turn's user messages are in codex's thread once the turn started, whether it then completed, failed or was
 * interrupted. A framework's memory keeps what it kept of that (a window drops the oldest messages) and appends the
 * new message, so the history's first {@code n} messages are the last {@code n} codex has seen, for the largest such
 * {@code n} short of the last message (a prompt's last message is always the one asked now). Without a record of
 * what codex has seen (the conversation's first turn in this process), the messages after the last answer are new.
 */
final class TurnInput {
    private TurnInput() {
    }

    /** {@return the history without its system messages: what the comparison and the input are made of} */
    static List<ConversationMessage> dialog(List<ConversationMessage> messages) {
        return messages.stream().filter(m -> m.role() != ConversationMessage.Role.SYSTEM).toList();
    }

    /** {@return the system messages' text, joined, for a new thread's developer instructions; empty for none} */
    static Optional<String> instructions(List<ConversationMessage> messages) {
        List<String> system = messages.stream().filter(m -> m.role() == ConversationMessage.Role.SYSTEM)
                .map(ConversationMessage::text).filter(t -> !t.isBlank()).toList();
        return system.isEmpty() ? Optional.empty() : Optional.of(String.join("\n\n", system));
    }

    /**
     * {@return the index of the first message of {@code dialog} codex has not seen}
     *
     * @param dialog the history without system messages
     * @param seen   what codex has seen of the conversation, oldest first; empty when that is not known
     */
    static int firstUnseen(List<ConversationMessage> dialog, List<ConversationMessage> seen) {
        int afterLastAnswer = 0;
        for (int i = 0; i < dialog.size(); i++) {
            if (dialog.get(i).role() == ConversationMessage.Role.ASSISTANT) {
                afterLastAnswer = i + 1;
            }
        }
        // The largest n short of the last message for which the history's first n are the last n codex saw.
        for (int n = Math.min(dialog.size() - 1, seen.size()); n > 0; n--) {
            if (endsWith(seen, dialog, n)) {
                return Math.max(n, afterLastAnswer);
            }
        }
        return afterLastAnswer;
    }

    private static boolean endsWith(List<ConversationMessage> seen, List<ConversationMessage> dialog, int n) {
        int offset = seen.size() - n;
        for (int i = 0; i < n; i++) {
            if (!dialog.get(i).sameAs(seen.get(offset + i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@return the turn's input: the user messages from {@code from} on and, for a thread started now with history
     * before them, that history once as a transcript}
     *
     * @throws IllegalArgumentException when no user message from {@code from} on has anything to send
     */
    static List<UserInput> of(List<ConversationMessage> dialog, int from, boolean newThread) {
        List<UserInput> input = new ArrayList<>();
        if (newThread && from > 0) {
            input.add(Inputs.text(transcript(dialog.subList(0, from))));
        }
        boolean asked = false;
        for (ConversationMessage m : dialog.subList(from, dialog.size())) {
            if (m.role() == ConversationMessage.Role.USER && !m.input().isEmpty()) {
                input.addAll(m.input());
                asked = true;
            }
        }
        if (!asked) {
            throw new IllegalArgumentException("the history has no user message codex has not seen yet");
        }
        return input;
    }

    private static String transcript(List<ConversationMessage> history) {
        StringBuilder text = new StringBuilder("The conversation so far:\n");
        for (ConversationMessage m : history) {
            String who = switch (m.role()) {
                case USER -> "User";
                case ASSISTANT -> "Assistant";
                case TOOL -> "Tool";
                case SYSTEM -> null;
            };
            if (who != null && !m.text().isBlank()) {
                text.append('\n').append(who).append(": ").append(m.text());
            }
        }
        return text.toString();
    }
}

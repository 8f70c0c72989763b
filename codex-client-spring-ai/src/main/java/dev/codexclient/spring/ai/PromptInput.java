package dev.codexclient.spring.ai;

import dev.codexclient.Inputs;
import dev.codexclient.protocol.UserInput;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.MessageType;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.content.Media;

/**
 * What of a Spring AI prompt codex is sent. Codex keeps a conversation's history in its thread, so a turn on a thread
 * that exists sends only the messages after the last assistant message (what a memory advisor replays before them,
 * codex has already); the first turn of a thread sends the messages before as a transcript, so a conversation begun
 * with another model goes on. System messages become the new thread's developer instructions.
 */
final class PromptInput {
    private PromptInput() {
    }

    /** {@return the system messages' text, joined, for a new thread's developer instructions; empty for none} */
    static Optional<String> instructions(List<Message> messages) {
        List<String> system = new ArrayList<>();
        for (Message m : messages) {
            if (m.getMessageType() == MessageType.SYSTEM && m.getText() != null && !m.getText().isBlank()) {
                system.add(m.getText());
            }
        }
        return system.isEmpty() ? Optional.empty() : Optional.of(String.join("\n\n", system));
    }

    /**
     * {@return the turn's input}
     *
     * @param messages  the prompt's messages
     * @param newThread whether the turn starts the conversation's thread
     * @throws IllegalArgumentException when no user message follows the last assistant message
     */
    static List<UserInput> of(List<Message> messages, boolean newThread) {
        int lastAssistant = -1;
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i).getMessageType() == MessageType.ASSISTANT) {
                lastAssistant = i;
            }
        }
        List<Message> fresh = messages.subList(lastAssistant + 1, messages.size()).stream()
                .filter(m -> m.getMessageType() == MessageType.USER).toList();
        if (fresh.isEmpty()) {
            throw new IllegalArgumentException("the prompt has no user message for codex to answer");
        }
        List<UserInput> input = new ArrayList<>();
        if (newThread && lastAssistant >= 0) {
            input.add(Inputs.text(transcript(messages.subList(0, lastAssistant + 1))));
        }
        for (Message m : fresh) {
            if (m.getText() != null && !m.getText().isEmpty()) {
                input.add(Inputs.text(m.getText()));
            }
            if (m instanceof UserMessage user) {
                user.getMedia().forEach(media -> input.add(image(media)));
            }
        }
        return input;
    }

    private static String transcript(List<Message> history) {
        StringBuilder text = new StringBuilder("The conversation so far:\n");
        for (Message m : history) {
            String who = switch (m.getMessageType()) {
                case USER -> "User";
                case ASSISTANT -> "Assistant";
                case TOOL -> "Tool";
                case SYSTEM -> null;
            };
            if (who != null && m.getText() != null && !m.getText().isBlank()) {
                text.append('\n').append(who).append(": ").append(m.getText());
            }
        }
        return text.toString();
    }

    private static UserInput image(Media media) {
        String type = media.getMimeType().toString();
        if (!media.getMimeType().getType().equals("image")) {
            throw new IllegalArgumentException("codex takes images, not " + type + " media");
        }
        Object data = media.getData();
        if (data instanceof String url) {
            return Inputs.imageUrl(url);
        }
        return Inputs.imageUrl("data:" + type + ";base64," + Base64.getEncoder().encodeToString(
                media.getDataAsByteArray()));
    }
}

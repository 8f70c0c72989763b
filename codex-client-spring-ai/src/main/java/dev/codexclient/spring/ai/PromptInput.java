package dev.codexclient.spring.ai;

import dev.codexclient.Inputs;
import dev.codexclient.conversation.ConversationMessage;
import dev.codexclient.protocol.UserInput;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.content.Media;

/**
 * A Spring AI prompt's messages as the turn runner reads a chat history ({@link ConversationMessage}); the runner
 * decides what of it codex has not seen. A user message's media become image inputs.
 */
final class PromptInput {
    private PromptInput() {
    }

    static List<ConversationMessage> of(List<Message> messages) {
        List<ConversationMessage> history = new ArrayList<>(messages.size());
        for (Message m : messages) {
            String text = m.getText() == null ? "" : m.getText();
            history.add(switch (m.getMessageType()) {
                case USER -> ConversationMessage.user(text, input(m, text));
                case ASSISTANT -> ConversationMessage.assistant(text);
                case SYSTEM -> ConversationMessage.system(text);
                case TOOL -> ConversationMessage.tool(text);
            });
        }
        return history;
    }

    private static List<UserInput> input(Message m, String text) {
        List<UserInput> input = new ArrayList<>();
        if (!text.isEmpty()) {
            input.add(Inputs.text(text));
        }
        if (m instanceof UserMessage user) {
            user.getMedia().forEach(media -> input.add(image(media)));
        }
        return input;
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

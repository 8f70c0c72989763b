package dev.codexclient.langchain4j;

import dev.codexclient.Inputs;
import dev.codexclient.protocol.UserInput;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What of a LangChain4j request codex is sent. Codex keeps a conversation's history in its thread, so a turn on a
 * thread that exists sends only the user messages after the last AI message (the chat memory replays the rest); the
 * first turn of a thread sends the messages before as a transcript. System messages become the new thread's developer
 * instructions.
 */
final class MessageInput {
    private MessageInput() {
    }

    static Optional<String> instructions(List<ChatMessage> messages) {
        List<String> system = messages.stream().filter(SystemMessage.class::isInstance)
                .map(m -> ((SystemMessage) m).text()).filter(t -> t != null && !t.isBlank()).toList();
        return system.isEmpty() ? Optional.empty() : Optional.of(String.join("\n\n", system));
    }

    /**
     * @throws IllegalArgumentException when no user message follows the last AI message
     */
    static List<UserInput> of(List<ChatMessage> messages, boolean newThread) {
        int lastAi = -1;
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i) instanceof AiMessage) {
                lastAi = i;
            }
        }
        List<UserMessage> fresh = messages.subList(lastAi + 1, messages.size()).stream()
                .filter(UserMessage.class::isInstance).map(UserMessage.class::cast).toList();
        if (fresh.isEmpty()) {
            throw new IllegalArgumentException("the request has no user message for codex to answer");
        }
        List<UserInput> input = new ArrayList<>();
        if (newThread && lastAi >= 0) {
            input.add(Inputs.text(transcript(messages.subList(0, lastAi + 1))));
        }
        for (UserMessage m : fresh) {
            for (Content content : m.contents()) {
                input.add(of(content));
            }
        }
        return input;
    }

    private static UserInput of(Content content) {
        if (content instanceof TextContent text) {
            return Inputs.text(text.text());
        }
        if (content instanceof ImageContent image) {
            if (image.image().url() != null) {
                return Inputs.imageUrl(image.image().url().toString());
            }
            return Inputs.imageUrl("data:" + image.image().mimeType() + ";base64," + image.image().base64Data());
        }
        throw new IllegalArgumentException("codex takes text and images, not " + content.type() + " content");
    }

    private static String transcript(List<ChatMessage> history) {
        StringBuilder text = new StringBuilder("The conversation so far:\n");
        for (ChatMessage m : history) {
            if (m instanceof UserMessage user) {
                text.append("\nUser: ").append(user.hasSingleText() ? user.singleText() : user.contents().toString());
            } else if (m instanceof AiMessage ai && ai.text() != null) {
                text.append("\nAssistant: ").append(ai.text());
            } else if (m instanceof ToolExecutionResultMessage tool) {
                text.append("\nTool ").append(tool.toolName()).append(": ").append(tool.text());
            }
        }
        return text.toString();
    }
}

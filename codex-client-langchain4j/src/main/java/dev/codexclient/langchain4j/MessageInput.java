package dev.codexclient.langchain4j;

import dev.codexclient.Inputs;
import dev.codexclient.conversation.ConversationMessage;
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

/**
 * A LangChain4j request's messages as the turn runner reads a chat history ({@link ConversationMessage}); the runner
 * decides what of it codex has not seen. A user message's images become image inputs.
 */
final class MessageInput {
    private MessageInput() {
    }

    static List<ConversationMessage> of(List<ChatMessage> messages) {
        List<ConversationMessage> history = new ArrayList<>(messages.size());
        for (ChatMessage m : messages) {
            if (m instanceof SystemMessage system) {
                history.add(ConversationMessage.system(system.text() == null ? "" : system.text()));
            } else if (m instanceof UserMessage user) {
                List<UserInput> input = new ArrayList<>();
                StringBuilder text = new StringBuilder();
                for (Content content : user.contents()) {
                    input.add(of(content));
                    if (content instanceof TextContent t) {
                        text.append(t.text());
                    }
                }
                history.add(ConversationMessage.user(text.toString(), input));
            } else if (m instanceof AiMessage ai) {
                history.add(ConversationMessage.assistant(ai.text() == null ? "" : ai.text()));
            } else if (m instanceof ToolExecutionResultMessage tool) {
                history.add(ConversationMessage.tool(tool.toolName() + ": " + tool.text()));
            }
        }
        return history;
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
}

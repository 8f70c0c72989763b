package com.example.codexclient.consumer.langchain4j;

import dev.codexclient.CodexClient;
import dev.codexclient.langchain4j.CodexChatModel;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;

/** What a LangChain4j application builds: an AI service on codex, a memory id per conversation, with a tool. */
public final class TicketAssistant {
    /** The AI service. */
    public interface Assistant {
        /** Answers within a conversation: the same id, the same codex thread. */
        String chat(@MemoryId String conversation, @UserMessage String text);
    }

    /** The application's tool, which codex may call during its turn. */
    public static final class Tickets {
        /** The state of a ticket. */
        @Tool("The state of a ticket")
        public String lookupTicket(@P("the ticket's id") String id) {
            return id + " is OPEN";
        }
    }

    private TicketAssistant() {
    }

    /** The assistant on {@code codex}, which must allow the experimental API (dynamic tools). */
    public static Assistant on(CodexClient codex) {
        CodexChatModel model = CodexChatModel.builder(codex).tools(new Tickets()).build();
        return AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(10))
                .chatRequestTransformer(model.memoryIdTransformer()).build();
    }
}

package com.example.codexclient.consumer.springai;

import dev.codexclient.CodexClient;
import dev.codexclient.spring.ai.CodexChatModel;
import dev.codexclient.spring.ai.CodexConversationAdvisor;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;

/** What a Spring AI application builds: a ChatClient on codex, whose conversations are codex threads, with a tool. */
public final class TicketDesk {
    /** The application's tool, which codex may call during its turn. */
    public static final class Tickets {
        /** The state of a ticket. */
        @Tool(description = "The state of a ticket")
        public String lookupTicket(@ToolParam(description = "the ticket's id") String id) {
            return id + " is OPEN";
        }
    }

    private final ChatClient chat;

    /** A desk on {@code codex}, which must allow the experimental API (dynamic tools). */
    public TicketDesk(CodexClient codex) {
        this.chat = ChatClient.builder(CodexChatModel.builder(codex).build())
                .defaultAdvisors(new CodexConversationAdvisor()).defaultTools(new Tickets()).build();
    }

    /** Asks within a conversation: the same id, the same codex thread. */
    public String ask(String conversation, String question) {
        return chat.prompt().user(question).advisors(a -> a.param(ChatMemory.CONVERSATION_ID, conversation))
                .call().content();
    }
}

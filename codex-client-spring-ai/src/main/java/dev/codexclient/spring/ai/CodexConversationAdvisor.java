package dev.codexclient.spring.ai;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.AdvisorChain;
import org.springframework.ai.chat.client.advisor.api.BaseAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.core.Ordered;

/**
 * Hands the conversation id of a {@code ChatClient} call to a {@link CodexChatModel}, which runs the conversation on
 * its codex thread. {@code ChatClient} gives its advisors' parameters to the advisors only; this one copies
 * {@link ChatMemory#CONVERSATION_ID} into the prompt's tool context, where the model (and the tools) find it.
 *
 * <pre>{@code
 * ChatClient chat = ChatClient.builder(codexModel).defaultAdvisors(new CodexConversationAdvisor()).build();
 * chat.prompt().user("And now?").advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "ticket-42")).call().content();
 * }</pre>
 *
 * <p>A call without the parameter runs on a thread of its own. Works beside a memory advisor, before or after it.
 */
public final class CodexConversationAdvisor implements BaseAdvisor {
    private final int order;

    /** An advisor that runs early in the chain, before the memory and tool-calling advisors. */
    public CodexConversationAdvisor() {
        this(Ordered.HIGHEST_PRECEDENCE + 100);
    }

    /**
     * An advisor at a place of your choice in the chain.
     *
     * @param order its order (lower runs earlier)
     */
    public CodexConversationAdvisor(int order) {
        this.order = order;
    }

    @Override
    public ChatClientRequest before(ChatClientRequest request, AdvisorChain chain) {
        Object conversation = request.context().get(ChatMemory.CONVERSATION_ID);
        if (conversation == null || !(request.prompt().getOptions() instanceof ToolCallingChatOptions options)) {
            return request;
        }
        ToolCallingChatOptions withId = options.mutate().toolContext(ChatMemory.CONVERSATION_ID, conversation.toString())
                .build();
        return request.mutate().prompt(request.prompt().mutate().chatOptions(withId).build()).build();
    }

    @Override
    public ChatClientResponse after(ChatClientResponse response, AdvisorChain chain) {
        return response;
    }

    @Override
    public int getOrder() {
        return order;
    }
}

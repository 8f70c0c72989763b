package dev.codexclient.spring.ai;

import dev.codexclient.errors.CodexException;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.core.Ordered;
import reactor.core.publisher.Flux;

/**
 * Hands the conversation id of a {@code ChatClient} call to a {@link CodexChatModel}, which runs the conversation on
 * its codex thread. {@code ChatClient} gives its advisors' parameters to the advisors only; this one copies
 * {@link ChatMemory#CONVERSATION_ID} into the prompt's {@link CodexChatOptions#getConversationId()}, where the model
 * finds it (the tools do not see it: their context is the application's).
 *
 * <pre>{@code
 * ChatClient chat = ChatClient.builder(codexModel).defaultAdvisors(new CodexConversationAdvisor()).build();
 * chat.prompt().user("And now?").advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "ticket-42")).call().content();
 * }</pre>
 *
 * <p>A call without the parameter runs on a thread of its own. Works beside a memory advisor, before or after it.
 * Running first in the chain, it also gives a failed stream's subscriber codex's own exception (a
 * {@link dev.codexclient.errors.CodexTurnFailedException}, say) rather than the {@code IllegalStateException} Spring
 * AI's base advisors wrap a stream's error in.
 */
public final class CodexConversationAdvisor implements CallAdvisor, StreamAdvisor {
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
    public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
        return chain.nextCall(withConversation(request));
    }

    @Override
    public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
        return chain.nextStream(withConversation(request)).onErrorMap(CodexConversationAdvisor::codexCause);
    }

    private static ChatClientRequest withConversation(ChatClientRequest request) {
        Object conversation = request.context().get(ChatMemory.CONVERSATION_ID);
        if (conversation == null) {
            return request;
        }
        CodexChatOptions options = CodexChatOptions.from(request.prompt().getOptions()).mutate()
                .conversationId(conversation.toString()).build();
        return request.mutate().prompt(request.prompt().mutate().chatOptions(options).build()).build();
    }

    /** The codex exception a stream failed with, under the wrappers of the advisors after this one. */
    private static Throwable codexCause(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof CodexException) {
                return t;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return error;
    }

    @Override
    public String getName() {
        return "CodexConversationAdvisor";
    }

    @Override
    public int getOrder() {
        return order;
    }
}

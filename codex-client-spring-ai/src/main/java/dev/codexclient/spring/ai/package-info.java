/**
 * Spring AI on codex-client: Spring AI tools as codex dynamic tools ({@link dev.codexclient.spring.ai.SpringAiTools}),
 * and codex as a Spring AI chat model ({@link dev.codexclient.spring.ai.CodexChatModel}, with
 * {@link dev.codexclient.spring.ai.CodexChatOptions}) whose conversations are codex threads
 * ({@link dev.codexclient.spring.ai.CodexConversationAdvisor}); a thin adapter of core's turn runner
 * ({@link dev.codexclient.conversation.CodexConversations}). Built on the public API of codex-client-core.
 */
package dev.codexclient.spring.ai;

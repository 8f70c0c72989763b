/**
 * LangChain4j on codex-client: LangChain4j tools as codex dynamic tools
 * ({@link dev.codexclient.langchain4j.LangChain4jTools}), and codex as a LangChain4j chat model, blocking
 * ({@link dev.codexclient.langchain4j.CodexChatModel}) and streaming
 * ({@link dev.codexclient.langchain4j.CodexStreamingChatModel}), whose conversations (AiServices memory ids) are codex
 * threads; thin adapters of core's turn runner ({@link dev.codexclient.conversation.CodexConversations}).
 */
package dev.codexclient.langchain4j;

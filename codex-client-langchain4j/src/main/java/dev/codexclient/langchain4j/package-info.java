/**
 * LangChain4j on codex-client: LangChain4j tools as codex dynamic tools
 * ({@link dev.codexclient.langchain4j.LangChain4jTools}), and codex as a LangChain4j chat model, blocking and streaming
 * ({@link dev.codexclient.langchain4j.CodexChatModel}), whose conversations (AiServices memory ids) are codex threads.
 * Built on the public API of codex-client-core.
 */
package dev.codexclient.langchain4j;

/**
 * Spring Boot 4 auto-configuration of codex as a Spring AI chat model: a {@link dev.codexclient.spring.ai.CodexChatModel}
 * bean on the application's {@link dev.codexclient.Codex} (the starter's client), and a {@code ChatClient.Builder} on
 * it, from the {@code spring.ai.codex.chat.*} properties ({@link dev.codexclient.spring.ai.autoconfigure.CodexChatProperties}).
 */
package dev.codexclient.spring.ai.autoconfigure;

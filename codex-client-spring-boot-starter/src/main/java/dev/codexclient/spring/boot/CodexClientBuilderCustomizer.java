package dev.codexclient.spring.boot;

import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexClient;

/**
 * Adjusts the {@link CodexClientBuilder} of the auto-configured client before it is built, for anything the
 * {@code codex.*} properties and the picked-up beans do not cover: handlers for user input or elicitations,
 * notification listeners, a callback executor, an {@link com.fasterxml.jackson.databind.ObjectMapper} for tool
 * arguments. Every bean of this type is applied, in {@link org.springframework.core.annotation.Order} order, after
 * the properties and beans, so a customizer has the last word.
 *
 * <pre>{@code
 * @Bean
 * CodexClientBuilderCustomizer userInput(Questions questions) {
 *     return builder -> builder.userInput(questions::ask);
 * }
 * }</pre>
 */
@FunctionalInterface
public interface CodexClientBuilderCustomizer {

    /**
     * Customizes the builder.
     *
     * @param builder the builder of the auto-configured client, already configured from properties and beans
     */
    void customize(CodexClientBuilder builder);
}

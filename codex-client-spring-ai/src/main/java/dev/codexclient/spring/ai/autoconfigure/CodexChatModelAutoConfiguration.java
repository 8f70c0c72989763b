package dev.codexclient.spring.ai.autoconfigure;

import dev.codexclient.Codex;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.spring.ai.CodexChatModel;
import dev.codexclient.spring.ai.CodexChatOptions;
import dev.codexclient.spring.ai.CodexConversationAdvisor;
import dev.codexclient.spring.ai.SpringAiTools;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Scope;

/**
 * Codex as the application's Spring AI chat model, as a {@code spring-ai-starter-model-*} configures its provider's:
 * with {@code codex-client-spring-ai} and the Spring Boot starter on the class path, a {@link CodexChatModel} bean on
 * the application's {@link Codex} (the starter's {@code CodexClient}, or a pool of the application's), set from the
 * {@code spring.ai.codex.chat.*} properties ({@link CodexChatProperties}); and, unless Spring AI's own
 * {@code ChatClient} auto-configuration is there to make it, a prototype {@code ChatClient.Builder} on that model with
 * the {@link CodexConversationAdvisor}, so that {@code ChatMemory.CONVERSATION_ID} picks the codex thread.
 *
 * <p>On unless {@code spring.ai.model.chat} names another provider (Spring AI's switch between chat models); a
 * {@code CodexChatModel} bean of the application's own takes the model's place. The model's observations go to the
 * application's {@code ObservationRegistry}; its tools' exceptions to its {@link ToolExecutionExceptionProcessor}.
 * Spring Boot 4 and Spring AI 2 only, the line this artifact is built for (on Spring Boot 3 it is not applied: its
 * classes need Spring Framework 7).
 */
@AutoConfiguration(afterName = "dev.codexclient.spring.boot.CodexAutoConfiguration",
        beforeName = "org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration")
@ConditionalOnClass(value = {ChatModel.class, Codex.class},
        // Spring Framework 7's: a Spring Boot 3 application (Spring AI 1) is left alone rather than failed.
        name = "org.springframework.core.retry.RetryTemplate")
@ConditionalOnProperty(name = "spring.ai.model.chat", havingValue = "codex", matchIfMissing = true)
@EnableConfigurationProperties(CodexChatProperties.class)
public class CodexChatModelAutoConfiguration {
    /** Created by Spring when the auto-configuration applies. */
    public CodexChatModelAutoConfiguration() {
    }

    /**
     * The chat model, on the application's {@code Codex}.
     *
     * @param codex        the application's client or pool
     * @param properties   the {@code spring.ai.codex.chat.*} properties
     * @param observations the application's observation registry, if any
     * @param convention   the application's chat-model observation convention, if any
     * @param processor    the application's tool exception processor, if any
     * @return the model; closed with the context (the client stays the starter's)
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnBean(Codex.class)
    public CodexChatModel codexChatModel(Codex codex, CodexChatProperties properties,
                                         ObjectProvider<ObservationRegistry> observations,
                                         ObjectProvider<ChatModelObservationConvention> convention,
                                         ObjectProvider<ToolExecutionExceptionProcessor> processor) {
        CodexChatModel.Builder model = CodexChatModel.builder(codex).threadParams(threadParams(properties.getThread()))
                .defaultOptions(options(properties.getOptions()))
                .observationRegistry(observations.getIfUnique(() -> ObservationRegistry.NOOP));
        convention.ifUnique(model::observationConvention);
        processor.ifUnique(p -> model.toolConverter(SpringAiTools.converter().exceptionProcessor(p)));
        if (properties.getTurnTimeout() != null) {
            model.turnTimeout(properties.getTurnTimeout());
        }
        if (properties.getMaxConversations() != null) {
            model.maxConversations(properties.getMaxConversations());
        }
        return model.build();
    }

    private static ThreadStartParams threadParams(CodexChatProperties.Thread thread) {
        ThreadStartParams.Builder params = ThreadStartParams.builder();
        if (thread.getCwd() != null) {
            params.cwd(thread.getCwd());
        }
        if (thread.getModel() != null) {
            params.model(thread.getModel());
        }
        if (thread.getSandbox() != null) {
            params.sandbox(sandbox(thread.getSandbox()));
        }
        return params.build();
    }

    private static SandboxMode sandbox(String value) {
        SandboxMode mode = SandboxMode.of(value.trim().toLowerCase(Locale.ROOT).replace('_', '-'));
        if (mode.known() != SandboxMode.Known.UNRECOGNIZED) {
            return mode;
        }
        throw new IllegalArgumentException(CodexChatProperties.PREFIX + ".thread.sandbox must be read-only, "
                + "workspace-write or danger-full-access, not " + value);
    }

    private static CodexChatOptions options(CodexChatProperties.Options options) {
        return CodexChatOptions.builder().model(options.getModel()).effort(options.getEffort())
                .cwd(options.getCwd()).build();
    }

    /**
     * A {@code ChatClient.Builder} on the codex model where Spring AI's own {@code ChatClient} auto-configuration is
     * absent (with it, that one makes the builder): a new builder for each injection point, as Spring AI's own, since
     * a builder is mutable. Declared after the model, whose bean it needs.
     *
     * @param model        the codex chat model
     * @param observations the application's observation registry, if any
     * @return the builder, with the conversation advisor
     */
    @Bean
    @Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
    @ConditionalOnMissingBean
    @ConditionalOnBean(CodexChatModel.class)
    @ConditionalOnMissingClass("org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration")
    public ChatClient.Builder codexChatClientBuilder(CodexChatModel model,
                                                    ObjectProvider<ObservationRegistry> observations) {
        return ChatClient.builder(model, observations.getIfUnique(() -> ObservationRegistry.NOOP), null, null)
                .defaultAdvisors(new CodexConversationAdvisor());
    }
}

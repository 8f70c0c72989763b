package dev.codexclient.spring.boot;

import dev.codexclient.CodexClient;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Contributes the {@code codex} health indicator ({@link CodexHealthIndicator}) when Actuator is present and the
 * context has a {@link CodexClient}, auto-configured or the application's own. Switched off with
 * {@code management.health.codex.enabled=false}; {@code codex.health.probe=true} adds a liveness request, bounded by
 * {@code codex.health.timeout}.
 */
@AutoConfiguration(after = CodexAutoConfiguration.class)
@ConditionalOnClass({CodexClient.class, HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnBean(CodexClient.class)
@ConditionalOnEnabledHealthIndicator("codex")
@EnableConfigurationProperties(CodexProperties.class)
public class CodexHealthContributorAutoConfiguration {

    /** Created by Spring when the auto-configuration applies. */
    public CodexHealthContributorAutoConfiguration() {
    }

    /**
     * The indicator, named {@code codex} in the health endpoint.
     *
     * @param client     the context's client, made when first checked if it is lazy
     * @param monitor    the auto-configured client's connection monitor, when the client is the auto-configured one
     * @param properties the {@code codex.*} properties, for the probe and its timeout
     * @return the indicator
     */
    @Bean
    @ConditionalOnMissingBean(name = "codexHealthIndicator")
    public CodexHealthIndicator codexHealthIndicator(ObjectProvider<CodexClient> client,
                                                     ObjectProvider<CodexConnectionMonitor> monitor,
                                                     CodexProperties properties) {
        // Through the provider, so a lazy client (codex.lazy=true) is not made by the indicator's creation.
        return new CodexHealthIndicator(client::getObject, Optional.ofNullable(monitor.getIfAvailable()),
                properties.getHealth().getTimeout(), properties.getHealth().isProbe());
    }
}

package dev.codexclient.spring.boot;

import dev.codexclient.CodexClient;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Contributes the {@code codex} health indicator when Actuator is present and the context has a {@link CodexClient},
 * auto-configured or the application's own: on Spring Boot 4.0 a
 * {@link dev.codexclient.spring.boot.health.CodexHealthIndicator} (health types in {@code spring-boot-health}), on
 * 3.5 a {@link dev.codexclient.spring.boot.actuate.CodexHealthIndicator}; both report a {@link CodexHealthCheck}.
 * Switched off with {@code management.health.codex.enabled=false}; {@code codex.health.probe=true} adds a liveness
 * request, bounded by {@code codex.health.timeout}. When Actuator is present and neither line's health types are,
 * {@link CodexFeatureReport} says so at start-up.
 */
@AutoConfiguration(after = CodexAutoConfiguration.class)
@ConditionalOnClass(CodexClient.class)
@ConditionalOnBean(CodexClient.class)
@EnableConfigurationProperties(CodexProperties.class)
public class CodexHealthContributorAutoConfiguration {

    /** The bean's name: Actuator names the health component after it, {@code codex}. */
    static final String BEAN_NAME = "codexHealthIndicator";

    /** Created by Spring when the auto-configuration applies. */
    public CodexHealthContributorAutoConfiguration() {
    }

    /** Through the provider, so a lazy client ({@code codex.lazy=true}) is not made by the indicator's creation. */
    static CodexHealthCheck check(ObjectProvider<CodexClient> client, ObjectProvider<CodexConnectionMonitor> monitor,
                                  CodexProperties properties) {
        CodexProperties.Health health = properties.withDefaults().health();
        return new CodexHealthCheck(client::getObject, Optional.ofNullable(monitor.getIfAvailable()),
                health.timeout(), health.probe());
    }

    /** Spring Boot 4.0: health types in {@code org.springframework.boot.health.contributor}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator("codex")
    static class SpringBoot4 {

        @Bean(name = BEAN_NAME)
        @ConditionalOnMissingBean(name = BEAN_NAME)
        dev.codexclient.spring.boot.health.CodexHealthIndicator codexHealthIndicator(
                ObjectProvider<CodexClient> client, ObjectProvider<CodexConnectionMonitor> monitor,
                CodexProperties properties) {
            return new dev.codexclient.spring.boot.health.CodexHealthIndicator(check(client, monitor, properties));
        }
    }

    /** Spring Boot 3.5: health types in {@code org.springframework.boot.actuate.health}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    @org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator("codex")
    static class SpringBoot3 {

        @Bean(name = BEAN_NAME)
        @ConditionalOnMissingBean(name = BEAN_NAME)
        dev.codexclient.spring.boot.actuate.CodexHealthIndicator codexHealthIndicator(
                ObjectProvider<CodexClient> client, ObjectProvider<CodexConnectionMonitor> monitor,
                CodexProperties properties) {
            return new dev.codexclient.spring.boot.actuate.CodexHealthIndicator(check(client, monitor, properties));
        }
    }
}

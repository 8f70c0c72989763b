package dev.codexclient.approvals.spring;

import dev.codexclient.approvals.ApprovalInbox;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code codexApprovalsInbox} health indicator, when the application has Actuator: one class per Spring Boot
 * line, as the codex starter's indicator.
 */
@AutoConfiguration(after = InboxAutoConfiguration.class)
@ConditionalOnBean(ApprovalInbox.class)
public class InboxHealthAutoConfiguration {
    /** The bean's name: Actuator names the component after it, {@code codexApprovalsInbox}. */
    static final String BEAN_NAME = "codexApprovalsInboxHealthIndicator";

    /** Created by Spring when the auto-configuration applies. */
    public InboxHealthAutoConfiguration() {
    }

    /** Spring Boot 4.0. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator("codexApprovalsInbox")
    static class SpringBoot4 {
        @Bean(name = BEAN_NAME)
        @ConditionalOnMissingBean(name = BEAN_NAME)
        dev.codexclient.approvals.spring.health.InboxHealthIndicator codexApprovalsInboxHealthIndicator(
                ApprovalInbox inbox) {
            return new dev.codexclient.approvals.spring.health.InboxHealthIndicator(inbox);
        }
    }

    /** Spring Boot 3.5. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    @org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator("codexApprovalsInbox")
    static class SpringBoot3 {
        @Bean(name = BEAN_NAME)
        @ConditionalOnMissingBean(name = BEAN_NAME)
        dev.codexclient.approvals.spring.actuate.InboxHealthIndicator codexApprovalsInboxHealthIndicator(
                ApprovalInbox inbox) {
            return new dev.codexclient.approvals.spring.actuate.InboxHealthIndicator(inbox);
        }
    }
}

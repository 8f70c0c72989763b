package dev.codexclient.approvals.spring;

import dev.codexclient.approvals.ApprovalInbox;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/** The inbox's meters ({@link InboxMeters}), when the application has Micrometer and a {@link MeterRegistry}. */
@AutoConfiguration(after = InboxAutoConfiguration.class, afterName = {
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ApprovalInbox.class, MeterRegistry.class})
public class InboxMetersAutoConfiguration {

    /** Created by Spring when the auto-configuration applies. */
    public InboxMetersAutoConfiguration() {
    }

    /**
     * The meters.
     *
     * @param inbox    the inbox
     * @param registry the registry
     * @return the meters, unbound with the context
     */
    @Bean(destroyMethod = "close")
    public InboxMeters codexInboxMeters(ApprovalInbox inbox, MeterRegistry registry) {
        return new InboxMeters(inbox, registry, Clock.systemUTC());
    }
}

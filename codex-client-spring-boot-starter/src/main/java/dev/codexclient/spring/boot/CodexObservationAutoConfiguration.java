package dev.codexclient.spring.boot;

import dev.codexclient.CodexClient;
import dev.codexclient.micrometer.MicrometerTelemetryListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Observes the auto-configured client with Micrometer when the application has {@code codex-client-micrometer} and
 * an {@link ObservationRegistry} (Spring Boot's Actuator makes one): a {@link MicrometerTelemetryListener} bean, which
 * the client picks up like any other telemetry listener bean. Requests and turns become observations (timers with
 * Actuator's meter handler, spans with Micrometer Tracing); with a {@link MeterRegistry}, tokens, approvals and
 * server requests are counted too. A {@code MicrometerTelemetryListener} bean of the application's own replaces it.
 * When the application has an {@code ObservationRegistry} and no listener results, {@link CodexFeatureReport} says
 * so at start-up.
 */
// After the configurations that make the registries, on both lines (Spring Boot 4.0 moved them into modules of their
// own): without the ordering, the condition on the ObservationRegistry bean is evaluated before that bean exists, and
// the meters are lost without a word. Names of the other line are not on the class path and are ignored.
@AutoConfiguration(before = CodexAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass({CodexClient.class, MicrometerTelemetryListener.class, ObservationRegistry.class,
        MeterRegistry.class})
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnProperty(prefix = "codex", name = "enabled", havingValue = "true", matchIfMissing = true)
public class CodexObservationAutoConfiguration {

    /** Created by Spring when the auto-configuration applies. */
    public CodexObservationAutoConfiguration() {
    }

    /**
     * The listener that turns the client's events into observations and meters.
     *
     * @param observations the application's observation registry
     * @param meters       the application's meter registry, when it has one
     * @return the listener
     */
    @Bean
    @ConditionalOnMissingBean
    public MicrometerTelemetryListener codexMicrometerTelemetryListener(ObservationRegistry observations,
                                                                ObjectProvider<MeterRegistry> meters) {
        MicrometerTelemetryListener.Builder builder = MicrometerTelemetryListener.builder(observations);
        meters.ifAvailable(builder::meterRegistry);
        return builder.build();
    }
}

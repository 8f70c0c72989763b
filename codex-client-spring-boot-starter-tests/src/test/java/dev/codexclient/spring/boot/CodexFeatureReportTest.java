package dev.codexclient.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.micrometer.MicrometerTelemetryListener;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.transport.Transport;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** What the start-up report says is missing, on the Spring Boot line under test. */
@ExtendWith(CodexTestExtension.class)
class CodexFeatureReportTest {

    private final ApplicationContextRunner all = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CodexObservationAutoConfiguration.class,
                    CodexAutoConfiguration.class, CodexHealthContributorAutoConfiguration.class));

    private static List<String> missing(ApplicationContext context) {
        return CodexFeatureReport.of(context, context.getEnvironment(), context.getClassLoader()).missing();
    }

    @Test
    void withEveryFeatureActiveNothingIsMissing(FakeCodexAppServer fake) {
        all.withBean(Transport.class, fake::connectInMemory)
                .withBean(ObservationRegistry.class, TestObservationRegistry::create)
                .run(context -> assertThat(missing(context)).isEmpty());
    }

    @Test
    void aHealthIndicatorThatWasNotConfiguredIsReported(FakeCodexAppServer fake) {
        // As an application that excluded the health auto-configuration, or a line that moved its conditions.
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(CodexAutoConfiguration.class))
                .withBean(Transport.class, fake::connectInMemory)
                .run(context -> assertThat(missing(context)).singleElement().asString()
                        .contains("the codex health indicator was not configured")
                        .contains("/actuator/health has no codex component")
                        .contains("management.health.codex.enabled=false"));
    }

    @Test
    void actuatorWithoutEitherLinesHealthTypesIsReported(FakeCodexAppServer fake) {
        // A Spring Boot that moved its health types again: Actuator is there, the indicator cannot be.
        all.withBean(Transport.class, fake::connectInMemory)
                .withClassLoader(new FilteredClassLoader(ActuatorHealth.HEALTH_INDICATOR))
                .run(context -> assertThat(missing(context)).singleElement().asString()
                        .contains("neither Spring Boot 3's health types").contains("nor 4's"));
    }

    @Test
    void healthSwitchedOffKnowinglyIsNotReported(FakeCodexAppServer fake) {
        all.withBean(Transport.class, fake::connectInMemory)
                .withPropertyValues("management.health.codex.enabled=false")
                .run(context -> assertThat(missing(context)).isEmpty());
        all.withBean(Transport.class, fake::connectInMemory)
                .withPropertyValues("management.health.defaults.enabled=false")
                .run(context -> assertThat(missing(context)).isEmpty());
    }

    @Test
    void anObservationRegistryWithoutTheListenerIsReported(FakeCodexAppServer fake) {
        // The registry's configuration ran after the condition on its bean: the loss Spring Boot 4.0 caused.
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(CodexAutoConfiguration.class,
                        CodexHealthContributorAutoConfiguration.class))
                .withBean(Transport.class, fake::connectInMemory)
                .withBean(ObservationRegistry.class, TestObservationRegistry::create)
                .run(context -> assertThat(missing(context)).singleElement().asString()
                        .contains("no MicrometerTelemetryListener was configured").contains("no gen_ai.* meters"));
    }

    @Test
    void withoutTheMicrometerModuleNothingIsMissing(FakeCodexAppServer fake) {
        // Observing the client is the application's choice: codex-client-micrometer left out is not a failure.
        all.withBean(Transport.class, fake::connectInMemory)
                .withBean(ObservationRegistry.class, TestObservationRegistry::create)
                .withClassLoader(new FilteredClassLoader(MicrometerTelemetryListener.class))
                .run(context -> assertThat(missing(context)).isEmpty());
    }

    @Test
    void withoutAClientNothingIsReportedButTheLine() {
        all.withPropertyValues("codex.enabled=false").run(context -> assertThat(missing(context)).isEmpty());
    }

    @Test
    void theSupportedLinesAre35AndNewer3xAnd4x() {
        assertThat(CodexFeatureReport.supported("3.5.7")).isTrue();
        assertThat(CodexFeatureReport.supported("3.6.0-M1")).isTrue();
        assertThat(CodexFeatureReport.supported("4.0.7")).isTrue();
        assertThat(CodexFeatureReport.supported("4.1.2")).isTrue();
        assertThat(CodexFeatureReport.supported("3.4.5")).isFalse();
        assertThat(CodexFeatureReport.supported("5.0.0")).isFalse();
        assertThat(CodexFeatureReport.supported("unknown")).isFalse();
    }
}

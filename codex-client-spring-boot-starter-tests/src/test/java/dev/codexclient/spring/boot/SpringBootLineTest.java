package dev.codexclient.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.micrometer.MicrometerTelemetryListener;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.transport.Transport;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * An application with Actuator and Micrometer on the Spring Boot line under test, every auto-configuration on, as
 * an application starts: the line is the one the build chose, and every feature of the starter is active on it (the
 * health indicator of that line, the Micrometer listener whose meters a turn fills, the failure analyzer), with
 * nothing reported missing; and the same application with two of them taken away, whose report says so at WARN.
 * On Spring Boot 4.0 the starter once lost the first two without a word.
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringBootLineTest {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {
        @Bean(destroyMethod = "close")
        FakeCodexAppServer fakeCodexAppServer() {
            return new FakeCodexAppServer();
        }

        @Bean
        Transport codexTransport(FakeCodexAppServer fake) {
            return fake.connectInMemory();
        }
    }

    @Test
    void everyFeatureIsActiveOnTheLineTheBuildChose() {
        String line = System.getProperty("spring-boot.version");
        assertThat(line).as("set by the build").isNotBlank();
        assertThat(SpringBootVersion.getVersion()).as("the Spring Boot on the class path").isEqualTo(line);

        ListAppender<ILoggingEvent> log = new ListAppender<>();
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                .listeners(reportLog(log)).web(WebApplicationType.NONE).properties("codex.client-info.name=line-test")
                .run()) {
            // The report is part of this application: its silence below is a verdict, not an absence.
            assertThat(context.getBeansOfType(CodexFeatureReport.class)).hasSize(1);
            assertThat(context.getBean("codexHealthIndicator")).isInstanceOf(ActuatorHealth.CODEX_INDICATOR);
            assertThat(ActuatorHealth.codex(context).status()).isEqualTo("UP");
            assertThat(context.getBeansOfType(MicrometerTelemetryListener.class)).hasSize(1);

            FakeCodexAppServer fake = context.getBean(FakeCodexAppServer.class);
            fake.onTurnStart(t -> t.agentMessage("metered").tokenUsage(12, 5).completed());
            assertThat(context.getBean(CodexClient.class).startThread().startTurn("go").await(Duration.ofSeconds(10))
                    .finalText()).isEqualTo("metered");
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            // The turn's observation stops on the client's callback thread, just after the result.
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (meters.find("gen_ai.client.operation.duration").timer() == null) {
                assertThat(System.nanoTime()).as("the turn's timer within 10 s").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(meters.find("gen_ai.client.operation.duration").timer().count()).isOne();
            assertThat(meters.find("gen_ai.client.token.usage").meters()).isNotEmpty();
        } finally {
            detach(log);
        }
        assertThat(log.list).as("nothing reported missing")
                .noneSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.WARN));
    }

    @Test
    void theSameApplicationWithTheHealthIndicatorAndTheListenerMissingSaysSoAtWarn() {
        // The application above as it starts, with the two features the starter once lost on a new line taken away
        // by hand: the report must say each at WARN, or its silence above proves nothing.
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                .listeners(reportLog(log)).web(WebApplicationType.NONE).properties("codex.client-info.name=line-test",
                        "spring.autoconfigure.exclude=" + CodexHealthContributorAutoConfiguration.class.getName()
                                + "," + CodexObservationAutoConfiguration.class.getName()).run()) {
            assertThat(context.containsBean("codexHealthIndicator")).isFalse();
            assertThat(context.getBeansOfType(MicrometerTelemetryListener.class)).isEmpty();
        } finally {
            detach(log);
        }
        assertThat(log.list).filteredOn(e -> e.getLevel() == Level.WARN).extracting(ILoggingEvent::getFormattedMessage)
                .satisfiesExactlyInAnyOrder(
                        health -> assertThat(health).contains("the codex health indicator was not configured")
                                .contains("Spring Boot " + System.getProperty("spring-boot.version")),
                        metrics -> assertThat(metrics).contains("no MicrometerTelemetryListener was configured"));
    }

    /**
     * Attaches {@code log} to the report's logger once Spring Boot has set up its logging, which resets the logging
     * system's appenders (one attached before the application starts sees nothing), and before the context makes its
     * singletons, after which the report speaks.
     */
    private static ApplicationListener<ApplicationPreparedEvent> reportLog(ListAppender<ILoggingEvent> log) {
        return event -> {
            log.start();
            ((Logger) LoggerFactory.getLogger(CodexFeatureReport.class)).addAppender(log);
        };
    }

    private static void detach(ListAppender<ILoggingEvent> log) {
        ((Logger) LoggerFactory.getLogger(CodexFeatureReport.class)).detachAppender(log);
    }

    /** An application whose codex cannot start, with no Transport bean. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class MissingCodex {
    }

    @Test
    void aStartUpThatFailsOnCodexIsExplainedByTheFailureAnalyzer(CapturedOutput output) {
        // Registered in spring.factories, which both lines read: Spring Boot prints its analysis as the start fails.
        assertThatThrownBy(() -> new SpringApplicationBuilder(MissingCodex.class).web(WebApplicationType.NONE)
                .properties("codex.binary=/nonexistent/bin/codex").run())
                .hasRootCauseInstanceOf(CodexTransportException.class);
        assertThat(output.getOut() + output.getErr()).contains("APPLICATION FAILED TO START")
                .contains("The codex client could not connect to the codex app-server")
                .contains("/nonexistent/bin/codex").contains("set codex.binary=/path/to/codex");
    }
}

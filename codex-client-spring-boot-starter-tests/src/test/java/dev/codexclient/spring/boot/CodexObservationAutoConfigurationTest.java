package dev.codexclient.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.RequestEnded;
import dev.codexclient.micrometer.MicrometerTelemetryListener;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.transport.Transport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@ExtendWith(CodexTestExtension.class)
class CodexObservationAutoConfigurationTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CodexObservationAutoConfiguration.class,
                    CodexAutoConfiguration.class));

    @Test
    void withAnObservationRegistryTheClientsTurnsAndRequestsAreObserved(FakeCodexAppServer fake) {
        TestObservationRegistry observations = TestObservationRegistry.create();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        // Events reach the listeners one at a time, in order, each event all listeners before the next one: when
        // this listener hears of thread/read, the Micrometer listener has handled the turn before it.
        CountDownLatch readEnded = new CountDownLatch(1);
        CodexTelemetryListener probe = new CodexTelemetryListener() {
            @Override
            public void requestEnded(RequestEnded event) {
                if (event.method().equals("thread/read")) {
                    readEnded.countDown();
                }
            }
        };
        fake.onTurnStart(turn -> turn.agentMessage("observed").completed());
        runner.withBean(Transport.class, fake::connectInMemory)
                .withBean(ObservationRegistry.class, () -> observations)
                .withBean(MeterRegistry.class, () -> meters)
                .withBean(CodexTelemetryListener.class, () -> probe)
                .run(context -> {
                    assertThat(context).hasSingleBean(MicrometerTelemetryListener.class);
                    CodexThread thread = context.getBean(CodexClient.class).startThread();
                    assertThat(thread.startTurn("go").await(WAIT).finalText()).isEqualTo("observed");
                    thread.read();
                    assertThat(readEnded.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

                    TestObservationRegistryAssert.assertThat(observations)
                            .hasObservationWithNameEqualTo("gen_ai.client.operation.duration").that()
                            .hasLowCardinalityKeyValue("codex.turn.status", "completed")
                            .hasBeenStarted().hasBeenStopped();
                    TestObservationRegistryAssert.assertThat(observations)
                            .hasObservationWithNameEqualTo("codex.client.requests");
                    assertThat(meters.find("codex.client.handshakes").timer()).isNotNull();
                    assertThat(meters.find("codex.client.handshakes").timer().count()).isEqualTo(1);
                });
    }

    @Test
    void withoutAnObservationRegistryThereIsNoMicrometerListener(FakeCodexAppServer fake) {
        runner.withBean(Transport.class, fake::connectInMemory).run(context -> {
            assertThat(context).hasSingleBean(CodexClient.class);
            assertThat(context).doesNotHaveBean(MicrometerTelemetryListener.class);
        });
    }

    @Test
    void withoutTheMicrometerModuleThereIsNoMicrometerListener(FakeCodexAppServer fake) {
        runner.withBean(Transport.class, fake::connectInMemory)
                .withBean(ObservationRegistry.class, TestObservationRegistry::create)
                .withClassLoader(new FilteredClassLoader(MicrometerTelemetryListener.class))
                .run(context -> {
                    assertThat(context).hasSingleBean(CodexClient.class);
                    assertThat(context).doesNotHaveBean(MicrometerTelemetryListener.class);
                });
    }

    @Test
    void codexEnabledFalseAddsNoListener(FakeCodexAppServer fake) {
        runner.withBean(Transport.class, fake::connectInMemory)
                .withBean(ObservationRegistry.class, TestObservationRegistry::create)
                .withPropertyValues("codex.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(MicrometerTelemetryListener.class));
    }
}

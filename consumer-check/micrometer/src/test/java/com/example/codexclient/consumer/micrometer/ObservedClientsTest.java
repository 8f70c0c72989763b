package com.example.codexclient.consumer.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.codexclient.CodexClient;
import dev.codexclient.micrometer.DefaultCodexTurnObservationConvention;
import dev.codexclient.micrometer.MicrometerTelemetryListener;
import dev.codexclient.testkit.FakeCodexAppServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ObservedClientsTest {
    @Test
    void aTurnBecomesAnObservationAndMetersInTheApplicationsRegistries() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ObservationRegistry observations = ObservationRegistry.create();
        // The listener reports on a callback thread of the client: the test waits for the turn's observation to stop.
        CountDownLatch turnObserved = new CountDownLatch(1);
        observations.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

            @Override
            public void onStop(Observation.Context context) {
                if (DefaultCodexTurnObservationConvention.NAME.equals(context.getName())) {
                    turnObserved.countDown();
                }
            }
        });
        try (FakeCodexAppServer fake = new FakeCodexAppServer();
             CodexClient client = new ObservedClients(observations, meters).connect(fake.connectInMemory())) {
            fake.onTurnStart(t -> t.tokenUsage(120, 30).agentMessage("done").completed());
            assertEquals("done", client.startThread().startTurn("go").await(Duration.ofSeconds(30)).finalText());
            assertTrue(turnObserved.await(30, TimeUnit.SECONDS), "the turn's observation stopped");
        }
        assertEquals(1, meters.get(DefaultCodexTurnObservationConvention.NAME).timer().count(), "the turn's timer");
        assertEquals(150, meters.get(MicrometerTelemetryListener.TOKENS).counters().stream()
                .mapToDouble(Counter::count).sum(), "the turn's tokens");
        boolean named = Boolean.getBoolean("consumer.namedModule");
        assertEquals(named, ObservedClients.class.getModule().isNamed(), "the consumer's module");
        assertEquals(named, MicrometerTelemetryListener.class.getModule().isNamed(), "codex-client-micrometer's module");
    }
}

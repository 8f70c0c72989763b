package com.example.codexclient.consumer.micrometer;

import dev.codexclient.CodexClient;
import dev.codexclient.micrometer.MicrometerTelemetryListener;
import dev.codexclient.transport.Transport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.ObservationRegistry;

/** What an application with Micrometer does: every client it makes reports to its registries. */
public final class ObservedClients {
    private final ObservationRegistry observations;
    private final MeterRegistry meters;

    /** Clients observed into {@code observations}, whose observations also become timers in {@code meters}. */
    public ObservedClients(ObservationRegistry observations, MeterRegistry meters) {
        this.observations = observations;
        this.meters = meters;
        observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
    }

    /** A client over {@code transport} that reports to the registries. */
    public CodexClient connect(Transport transport) {
        return CodexClient.builder().transport(transport)
                .telemetryListener(MicrometerTelemetryListener.builder(observations).meterRegistry(meters).build())
                .build();
    }
}

package dev.codexclient.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names a codex client's request observations and their key values. Implement it to add or change key values
 * (extending {@link DefaultCodexRequestObservationConvention} is the easy way), and give it to
 * {@link MicrometerTelemetryListener.Builder#requestConvention}; a global convention registered on the
 * {@link io.micrometer.observation.ObservationRegistry} for {@link CodexRequestContext} takes precedence over both.
 */
public interface CodexRequestObservationConvention extends ObservationConvention<CodexRequestContext> {

    /**
     * Whether this convention applies: to every {@link CodexRequestContext}.
     *
     * @param context the context of an observation
     * @return true for a request's context
     */
    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof CodexRequestContext;
    }
}

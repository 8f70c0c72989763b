package dev.codexclient.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names a codex client's turn observations and their key values. Implement it to add or change key values
 * (extending {@link DefaultCodexTurnObservationConvention} is the easy way), and give it to
 * {@link MicrometerTelemetryListener.Builder#turnConvention}; a global convention registered on the
 * {@link io.micrometer.observation.ObservationRegistry} for {@link CodexTurnContext} takes precedence over both.
 */
public interface CodexTurnObservationConvention extends ObservationConvention<CodexTurnContext> {

    /**
     * Whether this convention applies: to every {@link CodexTurnContext}.
     *
     * @param context the context of an observation
     * @return true for a turn's context
     */
    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof CodexTurnContext;
    }
}
